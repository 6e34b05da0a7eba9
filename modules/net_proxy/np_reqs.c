/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: a client's byte stream judged request by request (np_reqs.h).
 * Why: checking only a tunnel's first request let a second one, in the
 * same packet or later, or one whose request line named another host than
 * its Host header, reach a denied host on the allowed host's address (a
 * CDN serves both).  The check is per request, not one request per tunnel,
 * so keep-alive and pipelining clients (pip, npm, git over http) work.
 */
#include <stdio.h>
#include <string.h>

#include "np_reqs.h"

#define NEXT (-1) /* judged a part; go on with the next */

static bool same_host(const struct np_host *a, const struct np_host *b)
{
        return a->kind == b->kind && strcmp(a->text, b->text) == 0;
}

static int end(struct np_reqs *s, int result)
{
        s->result = result; /* answered again on every later call */
        return result;
}

/* Whether the request names the destination; else s->why says how not.
 * A port, where the request gives one, must be the tunnel's too. */
static bool names_dest(struct np_reqs *s, const struct np_http_req *r)
{
        if (r->has_target_host && (!same_host(&r->host, &s->dest) || (r->port && r->port != s->port))) {
                snprintf(s->why, sizeof(s->why), "the request line names %s:%u, not the tunnel's host", r->host.text,
                         r->port ? r->port : s->port);
                return false;
        }
        if (!same_host(&r->host_header, &s->dest) || (r->host_header_port && r->host_header_port != s->port)) {
                snprintf(s->why, sizeof(s->why), "the Host header names %s:%u, not the tunnel's host",
                         r->host_header.text, r->host_header_port ? r->host_header_port : s->port);
                return false;
        }
        return true;
}

static void begin_body(struct np_reqs *s, const struct np_http_req *req)
{
        s->in_body = true;
        if (req->is_chunked)
                np_body_init_chunked(&s->body, NULL);
        else
                np_body_init_length(&s->body, req->has_content_length ? req->content_length : 0);
}

void np_reqs_init_tunnel(struct np_reqs *s, const struct np_host *dest, uint16_t port,
                         const struct np_http_limits *lim)
{
        memset(s, 0, sizeof(*s));
        s->lim = lim ? *lim : NP_HTTP_LIMITS_DEFAULT;
        s->dest = *dest;
        s->port = port;
        s->tunnel = true;
        np_http_parser_init_tunnel(&s->http, &s->lim);
}

void np_reqs_init_body(struct np_reqs *s, const struct np_http_req *req)
{
        memset(s, 0, sizeof(*s));
        s->n = 1;
        begin_body(s, req);
}

/* A head at offset 0, nothing judged before it still unsent. */
static int judge_head(struct np_reqs *s, const char *buf, size_t len)
{
        int r;

        if (s->ok > 0)
                return NP_NEED_MORE; /* the bytes before it go out first */
        r = np_http_parse(&s->http, buf, len);
        if (r == NP_NEED_MORE && len < s->http.lim.max_head)
                return NP_NEED_MORE;
        if (r == NP_NEED_MORE) { /* a full buffer: the parser would wait for ever */
                snprintf(s->why, sizeof(s->why), "request head larger than %zu bytes", s->http.lim.max_head);
                return end(s, NP_BAD);
        }
        if (r == NP_BAD) {
                snprintf(s->why, sizeof(s->why), "bad request: %s", s->http.why);
                return end(s, NP_BAD);
        }
        if (!names_dest(s, &s->http.req))
                return end(s, NP_BAD);
        s->ok = s->http.req.head_len;
        s->n++;
        begin_body(s, &s->http.req);
        return NEXT;
}

static int judge_body(struct np_reqs *s, const char *buf, size_t len)
{
        size_t used = 0;
        int r = np_body_feed(&s->body, (const uint8_t *) buf + s->ok, len - s->ok, &used);

        s->ok += used;
        if (r == NP_BAD) {
                snprintf(s->why, sizeof(s->why), "malformed request body: %s", s->body.why);
                return end(s, NP_BAD);
        }
        if (r == NP_NEED_MORE)
                return NP_NEED_MORE;
        s->in_body = false;
        if (!s->tunnel)
                return end(s, NP_DONE); /* what follows the body is not passed on */
        np_http_parser_init_tunnel(&s->http, &s->lim);
        return NEXT;
}

int np_reqs_judge(struct np_reqs *s, const char *buf, size_t len)
{
        int r = NEXT;

        if (s->result)
                return s->result;
        if (len < s->ok) { /* the caller broke the contract: judge nothing more */
                snprintf(s->why, sizeof(s->why), "request buffer shrank");
                return end(s, NP_BAD);
        }
        while (r == NEXT)
                r = s->in_body ? judge_body(s, buf, len) : judge_head(s, buf, len);
        return r;
}

void np_reqs_sent(struct np_reqs *s, size_t n)
{
        s->ok -= n < s->ok ? n : s->ok;
}
