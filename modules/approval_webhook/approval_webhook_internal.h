/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook_internal.h - what the files of approval_webhook share
 * with each other and with their unit tests.  Nothing here is exported.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "stockade/module.h"
#include "approvals/stk_question_json.h"

/* The descriptor (approval_webhook.c), reached directly by the unit tests. */
extern const struct stk_module stockade_module;

#define AWH_TIMEOUT_DEFAULT 10
#define AWH_TIMEOUT_MAX 600
#define AWH_RETRIES_DEFAULT 2
#define AWH_RETRIES_MAX 10
#define AWH_TOKEN_MAX 4096

/* ---- approval_webhook_curl.c: libcurl, opened on first use ------------- */

/* The libcurl functions this module calls, from the library itself. */
struct awh_curl {
        CURLcode (*global_init)(long flags);
        void (*global_cleanup)(void);
        CURL *(*easy_init)(void);
        CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
        CURLcode (*easy_perform)(CURL *c);
        CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
        void (*easy_cleanup)(CURL *c);
        const char *(*easy_strerror)(CURLcode e);
        struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
        void (*slist_free_all)(struct curl_slist *l);
        CURLU *(*url)(void);
        void (*url_cleanup)(CURLU *u);
        CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
        CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
        void (*free)(void *p);
};
extern struct awh_curl awh_curl;

/* Open libcurl and look up every function above, once; -ENOENT with
 * *ret_why when the library or a function is missing. */
int awh_curl_load(const char **ret_why);

/* ---- approval_webhook_conf.c: the line's arguments, checked ------------- */

/* https://, or http:// to 127.0.0.1, [::1] or localhost; no user:password.
 * *ret_https says which. */
int awh_check_url(const char *url, bool *ret_https, const char **ret_why);

/* A file the supervisor trusts (a CA, a certificate, a key, a token): an
 * absolute path to a regular file that nobody but root or its owner (root
 * or us) can rewrite; `secret` also refuses any group or other access. */
int awh_check_file(const char *path, bool secret, const char **ret_why);

/* The bearer token: the file's one line, trailing whitespace dropped,
 * 1 to AWH_TOKEN_MAX-1 visible ASCII characters (no header injection). */
int awh_read_token(const char *path, char *buf, size_t size, const char **ret_why);

/* ---- approval_webhook_http.c: one POST -------------------------------- */

struct awh_request {
        const char *url;
        bool https;
        const char *ca_file, *client_cert, *client_key; /* NULL: curl's defaults / none */
        const char *token;                              /* NULL: no Authorization header */
        const char *body;
        long timeout_ms;
};

struct awh_reply {
        int curl_code;          /* CURLcode: 0 when an HTTP response came */
        char error[256];        /* curl's message when curl_code != 0 */
        long status;            /* HTTP status */
        char *body;             /* malloc()ed, at most STK_VERDICT_MAX bytes */
        size_t len;
        bool oversize;          /* the body was longer: it was cut off */
};

/* POST the body once.  -errno only when it could not even be tried (no
 * memory, curl refused an option); a failed transfer is a reply with
 * curl_code set. */
int awh_post(const struct awh_request *req, struct awh_reply *ret);
void awh_reply_done(struct awh_reply *r);
/* Worth another try: no answer at all (connection refused, reset, nothing
 * received), or a 5xx.  Never a 4xx, a redirect or any 200. */
bool awh_retryable(const struct awh_reply *r);
int awh_global_init(void);
void awh_global_done(void);
