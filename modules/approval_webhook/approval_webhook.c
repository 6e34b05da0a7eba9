/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook: answer the run's questions by POSTing them, as JSON
 * (stk_question_json.h), to an HTTPS endpoint a security team runs, with a
 * bearer token read from a private file.  Only an HTTP 200 whose body is a
 * well-formed verdict counts; a redirect, a 4xx, a 5xx after the retries, a
 * timeout, a TLS failure or a malformed or oversized body is a DENY, with a
 * log line that says which (stockade-approval_webhook(8)).
 *
 * The URL is the line's `url` argument, else the setting approval.webhook:
 * the shipped profiles carry a line with neither, which passes every
 * question on (IGNORE) until the user layer sets approval.webhook (issue
 * 13 §5).  libcurl is set up only for a line that has a URL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/stk_time.h"
#include "approval_webhook_internal.h"

static const struct stk_host *host;

/* Every argument is trusted: a project file must not pick who approves,
 * nor loosen how long or how often we ask. */
static const struct stk_arg_spec awh_args[] = {
        { "url", STK_ARG_STRING, STK_ARG_TRUSTED,
          "https:// endpoint (http:// only to 127.0.0.1, [::1] or localhost; default: the setting approval.webhook)" },
        { "ca_file", STK_ARG_STRING, STK_ARG_TRUSTED, "PEM bundle of the CAs to trust instead of the system's" },
        { "client_cert", STK_ARG_STRING, STK_ARG_TRUSTED, "PEM client certificate (mutual TLS)" },
        { "client_key", STK_ARG_STRING, STK_ARG_TRUSTED, "its private key: mode 0600 or stricter" },
        { "token_file", STK_ARG_STRING, STK_ARG_TRUSTED, "file holding the bearer token: mode 0600 or stricter" },
        { "timeout", STK_ARG_INT, STK_ARG_TRUSTED, "seconds for the whole exchange, retries included (default 10)" },
        { "retries", STK_ARG_INT, STK_ARG_TRUSTED, "further tries after a connection error or a 5xx (default 2)" },
        { NULL, 0, 0, NULL },
};

static int bad_arg(struct stk_ctx *ctx, const char *name, const char *value, const char *why)
{
        host->log(ctx, STK_LOG_ERROR, "%s \"%s\": %s", name, value ? value : "", why);
        return -EINVAL;
}

static int check_files(struct stk_ctx *ctx)
{
        static const struct { const char *name; bool secret; } files[] = {
                { "ca_file", false }, { "client_cert", false }, { "client_key", true },
        };
        const char *why = NULL;
        char token[AWH_TOKEN_MAX];

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                const char *p = host->arg_string(ctx, files[i].name);
                if (p && awh_check_file(p, files[i].secret, &why) < 0)
                        return bad_arg(ctx, files[i].name, p, why);
        }
        if (host->arg_string(ctx, "client_key") && !host->arg_string(ctx, "client_cert"))
                return bad_arg(ctx, "client_key", host->arg_string(ctx, "client_key"), "given without client_cert");
        if (host->arg_string(ctx, "token_file") &&
            awh_read_token(host->arg_string(ctx, "token_file"), token, sizeof(token), &why) < 0)
                return bad_arg(ctx, "token_file", host->arg_string(ctx, "token_file"), why);
        memset(token, 0, sizeof(token));
        return 0;
}

/* The endpoint of this line: its argument, else approval.webhook; NULL
 * when neither is set (the line then answers nothing). */
static const char *line_url(struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);
        const char *url = host->arg_string(ctx, "url");

        if (url)
                return url;
        return s && STK_HAS(s, stk_settings, approval_webhook) ? s->approval_webhook : NULL;
}

/* This line's arguments make sense; a log line names what does not. */
static int check_line(struct stk_ctx *ctx)
{
        const char *url = line_url(ctx), *why = NULL;
        long long timeout = host->arg_int(ctx, "timeout", AWH_TIMEOUT_DEFAULT);
        long long retries = host->arg_int(ctx, "retries", AWH_RETRIES_DEFAULT);
        bool https;
        char shown[32];

        if (!url)
                return 0; /* not configured: IGNORE, said by explain */
        if (awh_check_url(url, &https, &why) < 0)
                return bad_arg(ctx, "url", url, why);
        if (timeout < 1 || timeout > AWH_TIMEOUT_MAX) {
                snprintf(shown, sizeof(shown), "%lld", timeout);
                return bad_arg(ctx, "timeout", shown, "must be 1 to 600 seconds");
        }
        if (retries < 0 || retries > AWH_RETRIES_MAX) {
                snprintf(shown, sizeof(shown), "%lld", retries);
                return bad_arg(ctx, "retries", shown, "must be 0 to 10");
        }
        return check_files(ctx);
}

static bool curl_ready;

/* libcurl once a line has a URL: a line that answers nothing costs no
 * libcurl set-up (every shipped profile carries one). */
static int curl_setup(struct stk_ctx *ctx)
{
        int r;

        if (curl_ready || !line_url(ctx))
                return 0;
        r = awh_global_init();
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "setting up libcurl failed: %s", strerror(-r));
                return r;
        }
        curl_ready = true;
        return 0;
}

/* A bad first line fails init: the run stops as a policy error (241). */
static int awh_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        int r;

        if (!STK_HAS(h, stk_host, audit))
                return -EPROTO; /* older than every slot used here */
        host = h;
        *ret_data = NULL;
        r = check_line(ctx);
        if (r >= 0)
                r = curl_setup(ctx);
        return r;
}

static void awh_fini(void *data)
{
        if (curl_ready)
                awh_global_done();
        curl_ready = false;
}

/* Every further line: a bad one is unusable; its questions pass on. */
static int awh_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        int r = check_line(ctx);

        *ret_covers = 0; /* an approver enforces nothing itself */
        return r < 0 ? r : curl_setup(ctx);
}

static void sleep_ms(long long ms)
{
        struct timespec ts = { (time_t) (ms / 1000), (long) (ms % 1000) * 1000000 };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* POST until an answer that is not worth retrying, the retries are spent,
 * or the deadline leaves no room for another try.  *ret_tries counts them. */
static int post_with_retries(struct stk_ctx *ctx, struct awh_request *req, long long retries, long long deadline,
                             struct awh_reply *ret, int *ret_tries)
{
        for (int attempt = 0;; attempt++) {
                long long backoff = 100LL << (attempt < 4 ? attempt : 4); /* 100 ms ... 1.6 s */
                int r;

                req->timeout_ms = (long) (deadline - stk_now_ms());
                if (req->timeout_ms < 1)
                        req->timeout_ms = 1; /* curl's 0 would mean "no timeout" */
                r = awh_post(req, ret);
                if (r < 0)
                        return r;
                *ret_tries = attempt + 1;
                if (!awh_retryable(ret) || attempt >= retries || deadline - stk_now_ms() <= backoff)
                        return 0;
                host->log(ctx, STK_LOG_INFO, "try %d: %s; again in %lld ms", attempt + 1,
                          ret->curl_code ? ret->error : "a server error (5xx)", backoff);
                awh_reply_done(ret);
                sleep_ms(backoff);
        }
}

/* What the exchange means; only a 200 with a well-formed verdict is one. */
static enum stk_verdict judge(struct stk_ctx *ctx, const char *url, const struct awh_reply *reply, int tries)
{
        char shown[256], why[160], reason[256];
        enum stk_verdict v = STK_VERDICT_UNSET;

        stk_json_excerpt(reply->body, reply->len, shown, sizeof(shown));
        if (reply->oversize) {
                host->log(ctx, STK_LOG_WARNING, "%s: reply longer than %d bytes: DENY \"%s\"", url, STK_VERDICT_MAX,
                          shown);
                return STK_DENY;
        }
        if (reply->curl_code) {
                host->log(ctx, STK_LOG_WARNING, "%s: no answer (%s) after %d %s: DENY", url, reply->error, tries,
                          tries == 1 ? "try" : "tries");
                return STK_DENY;
        }
        if (reply->status != 200) {
                host->log(ctx, STK_LOG_WARNING, "%s: HTTP %ld%s: DENY \"%s\"", url, reply->status,
                          reply->status >= 300 && reply->status < 400 ? " (redirects are not followed)" : "", shown);
                return STK_DENY;
        }
        if (stk_verdict_json_parse(reply->body, reply->len, &v, reason, sizeof(reason), why, sizeof(why)) < 0) {
                host->log(ctx, STK_LOG_WARNING, "%s: malformed verdict (%s): DENY \"%s\"", url, why, shown);
                return STK_DENY;
        }
        host->log(ctx, v == STK_DENY ? STK_LOG_WARNING : STK_LOG_INFO, "%s: %s%s%s", url, stk_verdict_word(v),
                  *reason ? ": " : "", reason);
        return v;
}

/* The request for this line, the token read now (it may have been rotated
 * since the run started). */
static int request_for(struct stk_ctx *ctx, struct awh_request *req, char *token, size_t token_size)
{
        const char *why = NULL, *token_file = host->arg_string(ctx, "token_file");
        int r;

        *req = (struct awh_request) {
                .url = line_url(ctx),
                .ca_file = host->arg_string(ctx, "ca_file"),
                .client_cert = host->arg_string(ctx, "client_cert"),
                .client_key = host->arg_string(ctx, "client_key"),
        };
        if (awh_check_url(req->url, &req->https, &why) < 0)
                return bad_arg(ctx, "url", req->url, why);
        if (!token_file)
                return 0;
        r = awh_read_token(token_file, token, token_size, &why);
        if (r < 0)
                return bad_arg(ctx, "token_file", token_file, why);
        req->token = token;
        return 0;
}

static int awh_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict)
{
        long long timeout_s = host->arg_int(ctx, "timeout", AWH_TIMEOUT_DEFAULT);
        long long deadline = stk_now_ms() + timeout_s * 1000;
        const struct stk_settings *s = host->settings(ctx);
        char token[AWH_TOKEN_MAX], *question = NULL;
        struct awh_request req;
        struct awh_reply reply;
        int r, tries = 0;

        if (!line_url(ctx)) {
                *ret_verdict = STK_IGNORE; /* nowhere to ask: the next approver, or DENY */
                return 0;
        }
        *ret_verdict = STK_DENY; /* until a 200 with a well-formed verdict says otherwise */
        r = stk_question_json_encode(q, s ? s->profile : NULL, &question);
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "cannot put the question into JSON (%s): DENY", strerror(-r));
                return 0;
        }
        r = request_for(ctx, &req, token, sizeof(token));
        if (r >= 0) {
                req.body = question;
                r = post_with_retries(ctx, &req, host->arg_int(ctx, "retries", AWH_RETRIES_DEFAULT), deadline,
                                      &reply, &tries);
                if (r < 0)
                        host->log(ctx, STK_LOG_WARNING, "cannot POST to %s (%s): DENY", req.url, strerror(-r));
        }
        memset(token, 0, sizeof(token));
        free(question);
        if (r < 0)
                return 0; /* logged: DENY */
        *ret_verdict = judge(ctx, req.url, &reply, tries);
        awh_reply_done(&reply);
        return 0;
}

static int awh_explain(struct stk_ctx *ctx, char **ret_text)
{
        const char *url = line_url(ctx);
        long long timeout_s = host->arg_int(ctx, "timeout", AWH_TIMEOUT_DEFAULT);
        int n = url ? asprintf(ret_text, "POSTs each question to %s (%s), DENY after %lld s without a verdict\n", url,
                               host->arg_string(ctx, "url") ? "url" : "approval.webhook", timeout_s)
                    : asprintf(ret_text, "answers nothing (IGNORE): no URL; set approval.webhook to an endpoint "
                               "that answers\n");

        return n < 0 ? -ENOMEM : 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("approval_webhook"),
        .summary = "answer approval questions with an HTTPS endpoint (JSON question, JSON verdict)",
        .args = awh_args,
        .init = awh_init,
        .fini = awh_fini,
        .probe = awh_probe,
        .approve = awh_approve,
        .explain = awh_explain,
};
