/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook_http.c - one POST of the question with libcurl, set up
 * so that nothing from the environment or the server widens it: no proxy
 * from $https_proxy (the question and the token would go there), no
 * redirect, only the URL's own protocol, peer and host verified, a capped
 * body and one deadline.  The supervisor waits here (single-threaded), so
 * the deadline is what keeps a dead server from hanging the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval_webhook_internal.h"

int awh_global_init(void)
{
        const char *why = NULL;
        int r = awh_curl_load(&why);

        if (r < 0)
                return r;
        return awh_curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

void awh_global_done(void)
{
        awh_curl.global_cleanup();
}

/* Keep at most STK_VERDICT_MAX bytes; returning short aborts the transfer
 * (CURLE_WRITE_ERROR), which is how a huge reply is cut off. */
static size_t collect(char *data, size_t size, size_t nmemb, void *userdata)
{
        struct awh_reply *r = userdata;
        size_t n = size * nmemb;

        if (n > STK_VERDICT_MAX - r->len) {
                r->oversize = true;
                return 0;
        }
        memcpy(r->body + r->len, data, n);
        r->len += n;
        return n;
}

static int headers_for(const struct awh_request *req, struct curl_slist **ret)
{
        /* "Expect:" with no value: no 100-continue round trip on a big body. */
        static const char *const fixed[] = { "Content-Type: application/json", "Accept: application/json", "Expect:" };
        struct curl_slist *h = NULL, *n;
        char auth[AWH_TOKEN_MAX + 32];

        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
                n = awh_curl.slist_append(h, fixed[i]);
                if (!n)
                        return awh_curl.slist_free_all(h), -ENOMEM;
                h = n;
        }
        if (req->token) {
                snprintf(auth, sizeof(auth), "Authorization: Bearer %s", req->token);
                n = awh_curl.slist_append(h, auth);
                memset(auth, 0, sizeof(auth)); /* the token lives no longer than needed */
                if (!n)
                        return awh_curl.slist_free_all(h), -ENOMEM;
                h = n;
        }
        *ret = h;
        return 0;
}

/* Every option that narrows the transfer; any that curl refuses fails the
 * POST rather than leaving the default in place. */
static int set_options(CURL *c, const struct awh_request *req, struct curl_slist *headers, struct awh_reply *reply)
{
        CURLcode e = CURLE_OK;

#define SET(opt, val) do { if (e == CURLE_OK) e = awh_curl.easy_setopt(c, opt, val); } while (0)
        SET(CURLOPT_URL, req->url);
#if LIBCURL_VERSION_NUM >= 0x075500
        SET(CURLOPT_PROTOCOLS_STR, req->https ? "https" : "http");
#else
        SET(CURLOPT_PROTOCOLS, req->https ? CURLPROTO_HTTPS : CURLPROTO_HTTP);
#endif
        SET(CURLOPT_FOLLOWLOCATION, 0L);
        SET(CURLOPT_PROXY, "");   /* no proxy, whatever the environment says */
        SET(CURLOPT_NOPROXY, "*");
        SET(CURLOPT_NOSIGNAL, 1L); /* no SIGALRM in the supervisor */
        SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDS, req->body);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) strlen(req->body));
        SET(CURLOPT_HTTPHEADER, headers);
        SET(CURLOPT_USERAGENT, "stockade-approval_webhook/1");
        SET(CURLOPT_TIMEOUT_MS, req->timeout_ms);
        SET(CURLOPT_CONNECTTIMEOUT_MS, req->timeout_ms);
        SET(CURLOPT_SSL_VERIFYPEER, 1L);
        SET(CURLOPT_SSL_VERIFYHOST, 2L);
        if (req->ca_file)
                SET(CURLOPT_CAINFO, req->ca_file);
        if (req->client_cert)
                SET(CURLOPT_SSLCERT, req->client_cert);
        if (req->client_key)
                SET(CURLOPT_SSLKEY, req->client_key);
        SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t) STK_VERDICT_MAX);
        SET(CURLOPT_WRITEFUNCTION, collect);
        SET(CURLOPT_WRITEDATA, reply);
        SET(CURLOPT_ERRORBUFFER, reply->error);
#undef SET
        return e == CURLE_OK ? 0 : -EINVAL;
}

int awh_post(const struct awh_request *req, struct awh_reply *ret)
{
        struct awh_reply reply = { 0 };
        struct curl_slist *headers = NULL;
        CURL *c = NULL;
        int r;

        reply.body = malloc(STK_VERDICT_MAX);
        if (!reply.body)
                return -ENOMEM;
        r = headers_for(req, &headers);
        if (r >= 0 && !(c = awh_curl.easy_init()))
                r = -ENOMEM;
        if (r >= 0)
                r = set_options(c, req, headers, &reply);
        if (r >= 0) {
                CURLcode e = awh_curl.easy_perform(c);
                reply.curl_code = (int) e;
                if (e == CURLE_FILESIZE_EXCEEDED)
                        reply.oversize = true; /* a Content-Length above the cap */
                if (e != CURLE_OK && !reply.error[0])
                        snprintf(reply.error, sizeof(reply.error), "%s", awh_curl.easy_strerror(e));
                if (awh_curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status) != CURLE_OK)
                        reply.status = 0;
        }
        awh_curl.easy_cleanup(c);
        awh_curl.slist_free_all(headers);
        if (r < 0) {
                free(reply.body);
                return r;
        }
        *ret = reply;
        return 0;
}

void awh_reply_done(struct awh_reply *r)
{
        free(r->body);
        *r = (struct awh_reply) { 0 };
}

bool awh_retryable(const struct awh_reply *r)
{
        switch ((CURLcode) r->curl_code) {
        case CURLE_OK:
                return r->status >= 500 && r->status <= 599;
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
                return true;
        default:
                return false; /* TLS failures, timeouts, oversize: trying again changes nothing */
        }
}
