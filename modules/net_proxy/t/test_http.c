/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the HTTP request-head parser, the upstream rewrite and the
 * error responses (np_http.h): valid heads split at every byte, malformed
 * heads with the status each must get, every limit at and over its edge.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_http.h"
#include "unit.h"

struct good {
        const char *raw;
        const char *method;
        bool connect;
        const char *host;
        unsigned port;
        const char *path;        /* as stored (may be empty) */
        const char *host_header; /* NULL: none */
        unsigned host_header_port;
        long long content_length; /* -1: none */
        bool chunked;
        size_t body;             /* bytes after the head in raw */
};

static const struct good good[] = {
        { "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
          "GET", false, "example.com", 80, "/", "example.com", 0, -1, false, 0 },
        { "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nUser-Agent: curl/8.5.0\r\n\r\n",
          "CONNECT", true, "example.com", 443, "", "example.com", 443, -1, false, 0 },
        { "CONNECT [2001:DB8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n",
          "CONNECT", true, "2001:db8::1", 8443, "", "2001:db8::1", 8443, -1, false, 0 },
        { "CONNECT 127.1:22 HTTP/1.0\r\n\r\n",
          "CONNECT", true, "127.0.0.1", 22, "", NULL, 0, -1, false, 0 },
        { "POST http://EXAMPLE.com.:8080/a/b?c=d&e=%20 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
          "POST", false, "example.com", 8080, "/a/b?c=d&e=%20", "x", 0, 5, false, 5 },
        { "GET http://example.com HTTP/1.0\r\n\r\n",
          "GET", false, "example.com", 80, "", NULL, 0, -1, false, 0 },
        { "GET HTTP://Example.com?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
          "GET", false, "example.com", 80, "?q=1", "example.com", 0, -1, false, 0 },
        { "PUT http://127.1/x HTTP/1.1\r\nHost: 127.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
          "PUT", false, "127.0.0.1", 80, "/x", "127.0.0.1", 0, -1, true, 15 },
        { "PATCH http://h/ HTTP/1.1\r\nhost: h\r\nContent-Length: 007\r\ncontent-length: 7\r\n\r\n",
          "PATCH", false, "h", 80, "/", "h", 0, 7, false, 0 },
        { "M-SEARCH http://h:1/ HTTP/1.1\r\nHost: h\r\nX-A:\r\nX-B: \t v\xe9 \t\r\nTransfer-Encoding:  Chunked \r\n\r\n",
          "M-SEARCH", false, "h", 1, "/", "h", 0, -1, true, 0 },
        { "GET http://a.b/!$&'()*+,;=:@-._~%2F/? HTTP/1.1\r\nHost: a.b\r\nConnection: keep-alive, X-Y\r\n\r\n",
          "GET", false, "a.b", 80, "/!$&'()*+,;=:@-._~%2F/?", "a.b", 0, -1, false, 0 },
        { "GET http://[::1]:65535/ HTTP/1.1\r\nHost: [::1]\r\nUpgrade: websocket\r\n\r\n",
          "GET", false, "::1", 65535, "/", "::1", 0, -1, false, 0 },
};

static void check_good(const struct good *g, const struct np_http_parser *p, const char *raw)
{
        const struct np_http_req *r = &p->req;
        size_t head = strlen(raw) - g->body;

        CU_ASSERT_STRING_EQUAL(r->method, g->method);
        CU_ASSERT_EQUAL(r->is_connect, g->connect);
        CU_ASSERT_STRING_EQUAL(r->host.text, g->host);
        CU_ASSERT_EQUAL(r->port, g->port);
        CU_ASSERT_EQUAL(r->path_len, strlen(g->path));
        CU_ASSERT(strncmp(raw + r->path_off, g->path, r->path_len) == 0);
        CU_ASSERT_EQUAL(r->has_host_header, g->host_header != NULL);
        if (g->host_header) {
                CU_ASSERT_STRING_EQUAL(r->host_header.text, g->host_header);
                CU_ASSERT_EQUAL(r->host_header_port, g->host_header_port);
        }
        CU_ASSERT_EQUAL(r->has_content_length, g->content_length >= 0);
        if (g->content_length >= 0)
                CU_ASSERT_EQUAL(r->content_length, (uint64_t)g->content_length);
        CU_ASSERT_EQUAL(r->is_chunked, g->chunked);
        CU_ASSERT_EQUAL(r->head_len, head);
}

static void test_good(void)
{
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                struct np_http_parser p;
                np_http_parser_init(&p, NULL);
                int r = np_http_parse(&p, good[i].raw, strlen(good[i].raw));
                if (r != NP_DONE)
                        fprintf(stderr, "\n  good[%zu]: %d %d %s", i, r, p.status, p.why);
                CU_ASSERT_EQUAL_FATAL(r, NP_DONE);
                check_good(&good[i], &p, good[i].raw);
                /* asking again gives the same answer */
                CU_ASSERT_EQUAL(np_http_parse(&p, good[i].raw, strlen(good[i].raw)), NP_DONE);
        }
        struct np_http_parser p;
        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, good[11].raw, strlen(good[11].raw)), NP_DONE);
        CU_ASSERT(p.req.has_upgrade);
}

/* Every split: the same parser fed a growing buffer (appending), and a
 * fresh parser on every prefix.  Only the whole head is DONE. */
static void test_good_split(void)
{
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                const char *raw = good[i].raw;
                size_t len = strlen(raw), head = len - good[i].body;
                struct np_http_parser grow, fresh;

                np_http_parser_init(&grow, NULL);
                for (size_t k = 0; k <= len; k++) {
                        /* a copy of exactly k bytes, so reading past k is caught by ASan */
                        char *part = malloc(k ? k : 1);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(part);
                        memcpy(part, raw, k);
                        int want = k < head ? NP_NEED_MORE : NP_DONE;
                        np_http_parser_init(&fresh, NULL);
                        int r1 = np_http_parse(&fresh, part, k);
                        int r2 = np_http_parse(&grow, part, k);
                        if (r1 != want || r2 != want)
                                fprintf(stderr, "\n  good[%zu] at %zu: %d %d (%s)", i, k, r1, r2,
                                        fresh.why ? fresh.why : grow.why);
                        CU_ASSERT_EQUAL(r1, want);
                        CU_ASSERT_EQUAL(r2, want);
                        if (r2 == NP_DONE && k == head)
                                check_good(&good[i], &grow, raw);
                        free(part);
                }
        }
}

struct bad {
        const char *raw;
        int status;
};

#define R(line) line " HTTP/1.1\r\nHost: h\r\n\r\n"
#define H(hdrs) "GET http://h/ HTTP/1.1\r\nHost: h\r\n" hdrs "\r\n"

static const struct bad bad[] = {
        { R("GET /"), 400 },                                    /* origin-form */
        { R("OPTIONS *"), 400 },
        { R("GET https://example.com/"), 400 },
        { R("GET ftp://example.com/"), 400 },
        { R("GET http:/example.com/"), 400 },
        { R("GET example.com/"), 400 },
        { R("GET http://user@example.com/"), 400 },
        { R("GET http://user:pw@example.com/"), 400 },
        { R("GET http://example.com/#frag"), 400 },
        { R("GET http://example.com/a<b"), 400 },
        { R("GET http://example.com/a\\b"), 400 },
        { R("GET http://example.com/a%zz"), 400 },
        { R("GET http://example.com/a%2"), 400 },
        { R("GET http://"), 400 },
        { R("GET http://:80/"), 400 },
        { R("GET http://example.com:/"), 400 },
        { R("GET http://example.com:0/"), 400 },
        { R("GET http://example.com:65536/"), 400 },
        { R("GET http://example.com:123456/"), 400 },
        { R("GET http://example.com:8o/"), 400 },
        { R("GET http://ex%61mple.com/"), 400 },
        { R("GET http://b\xc3\xbc" "cher.de/"), 400 },
        { R("GET http://1.2.3.999/"), 400 },                    /* numeric, not an address */
        { R("GET http://[::1/"), 400 },
        { R("GET http://[::1]x/"), 400 },
        { R("GET http://[fe80::1%25eth0]/"), 400 },
        { R("GET http://a..b/"), 400 },
        { R("GET http://example.com/a b"), 400 },
        { R("GET  http://example.com/"), 400 },
        { R("GET http://example.com/ "), 400 },
        { "GET http://example.com/ HTTP/2.0\r\nHost: h\r\n\r\n", 505 },
        { "GET http://example.com/ HTTP/0.9\r\nHost: h\r\n\r\n", 505 },
        { "GET http://example.com/ HTTP/1.1x\r\nHost: h\r\n\r\n", 400 },
        { "GET http://example.com/ http/1.1\r\nHost: h\r\n\r\n", 400 },
        { "GET http://example.com/ HTTP/1.10\r\nHost: h\r\n\r\n", 400 },
        { "GET http://example.com/\r\nHost: h\r\n\r\n", 400 },
        { "GET\r\n\r\n", 400 },
        { R("TRACE http://example.com/"), 405 },
        { R("G\x01T http://example.com/"), 400 },
        { R("G(T http://example.com/"), 400 },
        { R(" GET http://example.com/"), 400 },
        { R("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG http://h/"), 501 }, /* 33 characters */
        { "\r\nGET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\nHost: h\r\n\r\n", 400 },      /* bare LF */
        { "GET http://h/ HTTP/1.1\r\nHost: h\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: h\r\n\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: ab\nY: c\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1x\nHost: h\r\n\r\n", 400 },
        { "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400 }, /* TLS sent to the proxy port */
        { H("X: a\rb\r\n"), 400 },                              /* bare CR */
        { H("X: a\x7f" "b\r\n"), 400 },
        { H("X: a\x01" "b\r\n"), 400 },
        { H("X: a\r\n b\r\n"), 400 },                           /* obs-fold */
        { H("X: a\r\n\tb\r\n"), 400 },
        { H("X : a\r\n"), 400 },
        { H("X\t: a\r\n"), 400 },
        { H("X(y): 1\r\n"), 400 },
        { H(": 1\r\n"), 400 },
        { H("Foo\r\n"), 400 },
        { "GET http://h/ HTTP/1.1\r\nX: y\r\n\r\n", 400 },     /* 1.1 without Host */
        { H("Host: h\r\n"), 400 },                              /* two Host */
        { H("host: other\r\n"), 400 },
        { "GET http://h/ HTTP/1.1\r\nHost:\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: a b\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: a:0\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: a:65536\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: [::1\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: u@a\r\n\r\n", 400 },
        { "GET http://h/ HTTP/1.1\r\nHost: a, b\r\n\r\n", 400 },
        { H("Content-Length: +5\r\n"), 400 },
        { H("Content-Length: -1\r\n"), 400 },
        { H("Content-Length: 5 5\r\n"), 400 },
        { H("Content-Length: 5,5\r\n"), 400 },
        { H("Content-Length: 0x5\r\n"), 400 },
        { H("Content-Length:\r\n"), 400 },
        { H("Content-Length: 99999999999999999999\r\n"), 400 },
        { H("Content-Length: 5\r\nContent-Length: 6\r\n"), 400 },
        { H("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"), 400 },
        { H("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"), 400 },
        { H("Transfer-Encoding: gzip\r\n"), 501 },
        { H("Transfer-Encoding: gzip, chunked\r\n"), 501 },
        { H("Transfer-Encoding: chunked, gzip\r\n"), 400 },
        { H("Transfer-Encoding: chunked, chunked\r\n"), 400 },
        { H("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"), 400 },
        { H("Transfer-Encoding: chunked,\r\n"), 400 },
        { H("Transfer-Encoding:\r\n"), 400 },
        { H("Transfer-Encoding: chunked;q=1\r\n"), 501 },
        { "POST http://h/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
        { "CONNECT h:443 HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", 400 },
        { "CONNECT h:443 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
        { R("CONNECT example.com"), 400 },
        { R("CONNECT example.com:"), 400 },
        { R("CONNECT example.com:0"), 400 },
        { R("CONNECT example.com:65536"), 400 },
        { R("CONNECT [::1]"), 400 },
        { R("CONNECT ::1:443"), 400 },
        { R("CONNECT http://example.com:443"), 400 },
        { R("CONNECT user@example.com:443"), 400 },
        { R("CONNECT 1.2.3.999:443"), 400 },
        { R("CONNECT example.com:443/"), 400 },
        { H("Connection: content-length\r\n"), 400 },
        { H("Connection: close, Transfer-Encoding\r\n"), 400 },
        { H("Connection: HOST\r\n"), 400 },
        { H("Connection: close, , x\r\n"), 400 },
        { H("Connection: a b\r\n"), 400 },
};

static void test_bad(void)
{
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                const char *raw = bad[i].raw;
                size_t len = strlen(raw);
                struct np_http_parser p;
                np_http_parser_init(&p, NULL);
                int r = np_http_parse(&p, raw, len);
                if (r != NP_BAD || p.status != bad[i].status)
                        fprintf(stderr, "\n  bad[%zu] \"%.40s\": %d status %d (%s)", i, raw, r, p.status,
                                p.why ? p.why : "");
                CU_ASSERT_EQUAL(r, NP_BAD);
                CU_ASSERT_EQUAL(p.status, bad[i].status);
                CU_ASSERT(p.why && strlen(p.why) > 5);
                CU_ASSERT_EQUAL(np_http_parse(&p, raw, len), NP_BAD); /* stays BAD */
        }
}

/* The table above uses string literals; these need their embedded NUL. */
/* ---- requests inside a tunnel ----------------------------------------- */

struct tunnel_case {
        const char *raw;
        int want;                /* NP_DONE, or the status of a refusal */
        const char *host;        /* the target's host (NULL: none) */
        unsigned port;           /* the target's port, 0 when not given */
        const char *host_header;
};

static const struct tunnel_case tunnel_cases[] = {
        { "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", NP_DONE, NULL, 0, "allowed.test" },
        { "GET /a?b HTTP/1.0\r\nHost: allowed.test:8080\r\n\r\n", NP_DONE, NULL, 0, "allowed.test" },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", NP_DONE, NULL, 0, "a" },
        { "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", NP_DONE, NULL, 0, "a" },
        /* absolute-form: an origin must accept it, and it names a host */
        { "GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", NP_DONE, "evil.test", 0, "allowed.test" },
        { "GET http://Evil.test:81/p HTTP/1.1\r\nHost: a\r\n\r\n", NP_DONE, "evil.test", 81, "a" },
        { "GET http://[::1]/ HTTP/1.1\r\nHost: [::1]\r\n\r\n", NP_DONE, "::1", 0, "::1" },
        { "CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", 400, NULL, 0, NULL },
        { "GET / HTTP/1.0\r\n\r\n", 400, NULL, 0, NULL },                 /* no Host, even in 1.0 */
        { "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", 400, NULL, 0, NULL },
        { "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET //evil.test/ HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET evil.test HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET https://evil.test/ HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, NULL, 0, NULL },
        { "GET / HTTP/1.1\nHost: a\r\n\r\n", 400, NULL, 0, NULL },
        { "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, NULL, 0, NULL },
        { "\x16\x03\x01\x00\x05", 400, NULL, 0, NULL },
};

/* Whole and split at every byte: the same answer, and nothing to rewrite
 * (a tunnel's bytes go on as they are). */
static void test_tunnel_requests(void)
{
        for (size_t i = 0; i < sizeof(tunnel_cases) / sizeof(tunnel_cases[0]); i++) {
                const struct tunnel_case *t = &tunnel_cases[i];
                size_t len = strlen(t->raw);
                struct np_http_parser p, grow;
                char out[1024];
                int r = NP_NEED_MORE;

                np_http_parser_init_tunnel(&grow, NULL);
                for (size_t k = 0; k <= len && r == NP_NEED_MORE; k++)
                        r = np_http_parse(&grow, t->raw, k);
                np_http_parser_init_tunnel(&p, NULL);
                int whole = np_http_parse(&p, t->raw, len);
                int want = t->want == NP_DONE ? NP_DONE : NP_BAD;
                if (whole != want || r != want || (want == NP_BAD && p.status != t->want))
                        fprintf(stderr, "\n  tunnel[%zu] \"%.40s\": %d %d status %d (%s)", i, t->raw, whole, r,
                                p.status, p.why ? p.why : "");
                CU_ASSERT_EQUAL(whole, want);
                CU_ASSERT_EQUAL(r, want);
                if (want == NP_BAD) {
                        CU_ASSERT_EQUAL(p.status, t->want);
                        continue;
                }
                CU_ASSERT_EQUAL(p.req.has_target_host, t->host != NULL);
                if (t->host) {
                        CU_ASSERT_STRING_EQUAL(p.req.host.text, t->host);
                        CU_ASSERT_EQUAL(p.req.port, t->port);
                }
                CU_ASSERT_STRING_EQUAL(p.req.host_header.text, t->host_header);
                CU_ASSERT_EQUAL(np_http_rewrite(&p, t->raw, out, sizeof(out)), -EINVAL);
        }
}

/* Forwarding refuses what a tunnel accepts, and the other way round. */
static void test_tunnel_and_proxy_differ(void)
{
        static const char origin_form[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
        static const char connect[] = "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n";
        struct np_http_parser p;

        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, origin_form, strlen(origin_form)), NP_BAD);
        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, connect, strlen(connect)), NP_DONE);
        np_http_parser_init_tunnel(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, connect, strlen(connect)), NP_BAD);
        np_http_parser_init(&p, NULL); /* an absolute URL without a port: 80 when forwarding */
        CU_ASSERT_EQUAL(np_http_parse(&p, tunnel_cases[4].raw, strlen(tunnel_cases[4].raw)), NP_DONE);
        CU_ASSERT_EQUAL(p.req.port, 80);
}

static void test_bad_nul(void)
{
        static const char a[] = "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n";
        static const char b[] = "GET http://h\0/ HTTP/1.1\r\nHost: h\r\n\r\n";
        static const char c[] = "GET http://h/ HTTP/1.1\r\nHost: h\r\nX\0: 1\r\n\r\n";
        static const char d[] = "GE\0T http://h/ HTTP/1.1\r\nHost: h\r\n\r\n";
        const struct { const char *raw; size_t len; } t[] = {
                { a, sizeof(a) - 1 }, { b, sizeof(b) - 1 }, { c, sizeof(c) - 1 }, { d, sizeof(d) - 1 },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_http_parser p;
                np_http_parser_init(&p, NULL);
                CU_ASSERT_EQUAL(np_http_parse(&p, t[i].raw, t[i].len), NP_BAD);
                CU_ASSERT_EQUAL(p.status, 400);
        }
}

/* The reason names what to do about it. */
static void test_bad_reasons(void)
{
        static const struct { const char *raw, *why; } t[] = {
                { R("GET http://user@example.com/"), "user" },
                { R("GET https://example.com/"), "CONNECT" },
                { R("GET /index.html"), "absolute URL" },
                { R("CONNECT example.com"), "host:port" },
                { H("Connection: content-length\r\n"), "Connection" },
                { "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: ab\nY: c\r\n\r\n", "CRLF" },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_http_parser p;
                np_http_parser_init(&p, NULL);
                CU_ASSERT_EQUAL(np_http_parse(&p, t[i].raw, strlen(t[i].raw)), NP_BAD);
                if (!p.why || !strstr(p.why, t[i].why))
                        fprintf(stderr, "\n  reason for \"%.30s\": %s", t[i].raw, p.why ? p.why : "-");
                CU_ASSERT(p.why && strstr(p.why, t[i].why));
        }
}

/* Fed one byte more at a time, a bad head is refused with the same status
 * as when it comes whole, never accepted on the way. */
static void test_bad_split(void)
{
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                const char *raw = bad[i].raw;
                size_t len = strlen(raw);
                struct np_http_parser p;
                int r = NP_NEED_MORE;

                np_http_parser_init(&p, NULL);
                for (size_t k = 0; k <= len && r == NP_NEED_MORE; k++)
                        r = np_http_parse(&p, raw, k);
                if (r != NP_BAD || p.status != bad[i].status)
                        fprintf(stderr, "\n  bad[%zu] split: %d status %d (%s)", i, r, p.status, p.why);
                CU_ASSERT_EQUAL(r, NP_BAD);
                CU_ASSERT_EQUAL(p.status, bad[i].status);
        }
}

/*
 * With tight limits several faults can be in one line; the status must
 * not depend on how the bytes were cut.  Each case: whole, then one byte
 * more at a time.  (The first case is what fuzz_http found: a control
 * character in a method longer than the line limit got 400 whole but 414
 * in pieces.)
 */
static void test_status_split(void)
{
        static const struct { struct np_http_limits lim; const char *raw; int status; } t[] = {
                { { 16, 64, 2 }, "Pdddddddfdddddddddd\x01i", 414 },
                { { 16, 64, 2 }, "AAAA(B http://h/ HTTP/1.1\r\n", 400 },
                { { 16, 64, 2 }, "GET http://h/ HTTP/1.1\n", 414 },
                { { 64, 40, 4 }, "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: aaaaaaaaaaaaaa\n", 431 },
                { { 64, 40, 4 }, "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\n", 400 },
                { { 24, 400, 4 }, "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: aaaaaaaaaaaaaaaaaaaaaaaaa\n", 431 },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                const char *raw = t[i].raw;
                size_t len = strlen(raw);
                struct np_http_parser whole, grow;
                int r = NP_NEED_MORE;

                np_http_parser_init(&whole, &t[i].lim);
                np_http_parser_init(&grow, &t[i].lim);
                CU_ASSERT_EQUAL(np_http_parse(&whole, raw, len), NP_BAD);
                for (size_t k = 0; k <= len && r == NP_NEED_MORE; k++)
                        r = np_http_parse(&grow, raw, k);
                CU_ASSERT_EQUAL(r, NP_BAD);
                if (whole.status != t[i].status || grow.status != t[i].status)
                        fprintf(stderr, "\n  status split[%zu]: %d (%s) / %d (%s)", i, whole.status, whole.why,
                                grow.status, grow.why);
                CU_ASSERT_EQUAL(whole.status, t[i].status);
                CU_ASSERT_EQUAL(grow.status, t[i].status);
        }
}

/* A head built to exact sizes: request line of `line` bytes (without
 * CRLF), `n` headers of `hlen` bytes each. */
static char *build(size_t line, size_t n, size_t hlen)
{
        static const char pre[] = "GET http://h/", post[] = " HTTP/1.1";
        size_t size = line + 2 + 9 + n * (hlen + 2) + 2 + 1;
        char *s = malloc(size), *w = s;

        if (!s || line < sizeof(pre) + sizeof(post) - 2 || hlen < 4)
                abort();
        w += sprintf(w, "%s", pre);
        memset(w, 'a', line - (sizeof(pre) - 1) - (sizeof(post) - 1));
        w += line - (sizeof(pre) - 1) - (sizeof(post) - 1);
        w += sprintf(w, "%s\r\nHost: h\r\n", post);
        for (size_t i = 0; i < n; i++) {
                w += sprintf(w, "X: ");
                memset(w, 'v', hlen - 3);
                w += hlen - 3;
                w += sprintf(w, "\r\n");
        }
        sprintf(w, "\r\n");
        return s;
}

static int parse_with(const struct np_http_limits *lim, const char *raw, int *status)
{
        struct np_http_parser p;
        int r;

        np_http_parser_init(&p, lim);
        r = np_http_parse(&p, raw, strlen(raw));
        *status = p.status;
        return r;
}

static void expect(const struct np_http_limits *lim, size_t line, size_t n, size_t hlen, int want_status)
{
        char *raw = build(line, n, hlen);
        int status = 0, r = parse_with(lim, raw, &status);

        if (want_status ? r != NP_BAD || status != want_status : r != NP_DONE)
                fprintf(stderr, "\n  limits %zu/%zu/%zu line %zu n %zu hlen %zu: %d %d", lim->max_line,
                        lim->max_head, lim->max_headers, line, n, hlen, r, status);
        CU_ASSERT_EQUAL(r, want_status ? NP_BAD : NP_DONE);
        if (want_status)
                CU_ASSERT_EQUAL(status, want_status);
        free(raw);
}

static void test_limits(void)
{
        const struct np_http_limits small = { 64, 256, 5 }, dflt = NP_HTTP_LIMITS_DEFAULT;

        expect(&small, 64, 0, 10, 0);   /* request line at the limit */
        expect(&small, 65, 0, 10, 414); /* and one over */
        expect(&small, 30, 1, 64, 0);   /* header line at the limit */
        expect(&small, 30, 1, 65, 431);
        expect(&small, 30, 4, 10, 0);   /* 4 + Host = 5 headers */
        expect(&small, 30, 5, 10, 431);
        /* the whole head: 32 + 9 + n * (hlen + 2) + 2 */
        expect(&small, 30, 3, 60, 0);   /* 32 + 9 + 186 + 2 = 229 */
        {
                struct np_http_limits exact = { 64, 229, 5 }, under = { 64, 228, 5 };
                expect(&exact, 30, 3, 60, 0);
                expect(&under, 30, 3, 60, 431);
        }
        expect(&dflt, 8192, 0, 10, 0);
        expect(&dflt, 8193, 0, 10, 414);
        expect(&dflt, 100, 99, 10, 0);  /* 99 + Host = 100 */
        expect(&dflt, 100, 100, 10, 431);
        expect(&dflt, 100, 1, 8192, 0);
        expect(&dflt, 100, 1, 8193, 431);
        /* 102 + 9 + 5 * 6531 + 2 = 32768 */
        expect(&dflt, 100, 5, 6529, 0);
        expect(&dflt, 101, 5, 6529, 431);
}

/* Over a limit and still no LF: refused before the line ends. */
static void test_limits_early(void)
{
        const struct np_http_limits small = { 64, 256, 5 };
        char buf[400];
        struct np_http_parser p;

        memset(buf, 'a', sizeof(buf));
        memcpy(buf, "GET http://h/", 13);
        np_http_parser_init(&p, &small);
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, 65), NP_NEED_MORE); /* 64 + CR possible */
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, 66), NP_BAD);
        CU_ASSERT_EQUAL(p.status, 414);

        snprintf(buf, sizeof(buf), "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: ");
        size_t n = strlen(buf);
        memset(buf + n, 'v', sizeof(buf) - n);
        np_http_parser_init(&p, &small);
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, n + 62), NP_NEED_MORE); /* 65: 64 + CR possible */
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, n + 63), NP_BAD);
        CU_ASSERT_EQUAL(p.status, 431);

        /* a method longer than NP_HTTP_METHOD_MAX, before its SP */
        memset(buf, 'A', sizeof(buf));
        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, NP_HTTP_METHOD_MAX), NP_NEED_MORE);
        CU_ASSERT_EQUAL(np_http_parse(&p, buf, NP_HTTP_METHOD_MAX + 1), NP_BAD);
        CU_ASSERT_EQUAL(p.status, 501);
}

static int rewrite(const char *raw, char *out, size_t outsz)
{
        struct np_http_parser p;

        np_http_parser_init(&p, NULL);
        if (np_http_parse(&p, raw, strlen(raw)) != NP_DONE)
                return -1000;
        return np_http_rewrite(&p, raw, out, outsz);
}

static void test_rewrite(void)
{
        static const struct { const char *in, *out; } t[] = {
                { "POST http://Example.com:8080/up?x=1 HTTP/1.1\r\n"
                  "Host: evil.internal\r\n"
                  "User-Agent: t\r\n"
                  "Proxy-Authorization: Basic Zm9vOmJhcg==\r\n"
                  "Proxy-Connection: keep-alive\r\n"
                  "Connection: keep-alive, X-Secret\r\n"
                  "x-secret: 1\r\n"
                  "Keep-Alive: timeout=5\r\n"
                  "TE: trailers\r\n"
                  "Trailer: X-T\r\n"
                  "Upgrade: websocket\r\n"
                  "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
                  "Content-Length: 0003\r\n"
                  "Accept:  */* \r\n"
                  "\r\nabc",
                  "POST /up?x=1 HTTP/1.1\r\n"
                  "Host: example.com:8080\r\n"
                  "User-Agent: t\r\n"
                  "Accept:  */* \r\n"
                  "Content-Length: 3\r\n"
                  "Connection: close\r\n\r\n" },
                { "GET http://[::1]?q HTTP/1.0\r\nX: y\r\n\r\n",
                  "GET /?q HTTP/1.0\r\nHost: [::1]\r\nX: y\r\nConnection: close\r\n\r\n" },
                { "PUT http://h HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\n\r\n",
                  "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" },
                { "GET http://127.1:80/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                  "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" },
        };
        char out[1024];

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                int n = rewrite(t[i].in, out, sizeof(out));
                CU_ASSERT_EQUAL_FATAL(n, (int)strlen(t[i].out));
                if (memcmp(out, t[i].out, (size_t)n) != 0)
                        fprintf(stderr, "\n  rewrite[%zu]:\n%.*s", i, n, out);
                CU_ASSERT(memcmp(out, t[i].out, (size_t)n) == 0);
                /* every smaller buffer is refused whole, never truncated */
                for (size_t sz = 0; sz < (size_t)n; sz++)
                        CU_ASSERT_EQUAL(rewrite(t[i].in, out, sz), -ENOBUFS);
        }
}

/* A caller that hands a shorter buffer than before gets a refusal, never
 * a read based on stale offsets. */
static void test_buffer_shrank(void)
{
        static const char raw[] = "GET http://h/ HTTP/1.1\r\nHost: h\r\n";
        struct np_http_parser p;

        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, raw, sizeof(raw) - 1), NP_NEED_MORE);
        CU_ASSERT_EQUAL(np_http_parse(&p, raw, 10), NP_BAD);
        CU_ASSERT_EQUAL(p.status, 500);
}

static void test_rewrite_refuses(void)
{
        static const char connect[] = "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n";
        static const char partial[] = "GET http://h/ HTTP/1.1\r\nHost: h\r\n";
        struct np_http_parser p;
        char out[256];

        CU_ASSERT_EQUAL(rewrite(connect, out, sizeof(out)), -EINVAL);
        np_http_parser_init(&p, NULL);
        CU_ASSERT_EQUAL(np_http_parse(&p, partial, strlen(partial)), NP_NEED_MORE);
        CU_ASSERT_EQUAL(np_http_rewrite(&p, partial, out, sizeof(out)), -EINVAL);
}

static void test_error_response(void)
{
        static const int statuses[] = { 400, 403, 405, 407, 411, 413, 414, 431, 500, 501, 502, 503, 504, 505 };
        static const char want_body[] = "stockade: example.com:443 denied by policy (net_proxy)\n";
        char buf[2048], line[64], cl[64];
        int n;

        n = np_http_error_response(403, "example.com:443 denied by policy (net_proxy)", buf, sizeof(buf));
        CU_ASSERT_FATAL(n > 0);
        CU_ASSERT_EQUAL((size_t)n, strlen(buf));
        CU_ASSERT(strncmp(buf, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nConnection: close\r\n"));
        snprintf(cl, sizeof(cl), "\r\nContent-Length: %zu\r\n", strlen(want_body));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, cl));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\n\r\n"));
        CU_ASSERT_STRING_EQUAL(strstr(buf, "\r\n\r\n") + 4, want_body);

        /* a reason quoting the client cannot add header lines */
        n = np_http_error_response(400, "bad \"a\r\nSet-Cookie: x\"\x80", buf, sizeof(buf));
        CU_ASSERT_FATAL(n > 0);
        CU_ASSERT_PTR_NULL(strstr(buf, "\r\nSet-Cookie"));
        CU_ASSERT_STRING_EQUAL(strstr(buf, "\r\n\r\n") + 4, "stockade: bad \"a??Set-Cookie: x\"?\n");

        for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
                n = np_http_error_response(statuses[i], NULL, buf, sizeof(buf));
                CU_ASSERT_FATAL(n > 0);
                snprintf(line, sizeof(line), "HTTP/1.1 %d %s\r\n", statuses[i], np_http_status_text(statuses[i]));
                CU_ASSERT(strncmp(buf, line, strlen(line)) == 0);
        }
        CU_ASSERT_EQUAL(np_http_error_response(200, "x", buf, sizeof(buf)), -EINVAL);
        CU_ASSERT_EQUAL(np_http_error_response(999, "x", buf, sizeof(buf)), -EINVAL);
        n = np_http_error_response(403, "x", buf, sizeof(buf));
        CU_ASSERT_EQUAL(np_http_error_response(403, "x", buf, (size_t)n), -ENOBUFS);
        CU_ASSERT_EQUAL(np_http_error_response(403, "x", buf, (size_t)n + 1), n);
}

UNIT_SUITE(np_http,
           UNIT_TEST(test_good),
           UNIT_TEST(test_good_split),
           UNIT_TEST(test_bad),
           UNIT_TEST(test_bad_nul),
           UNIT_TEST(test_tunnel_requests),
           UNIT_TEST(test_tunnel_and_proxy_differ),
           UNIT_TEST(test_bad_reasons),
           UNIT_TEST(test_bad_split),
           UNIT_TEST(test_status_split),
           UNIT_TEST(test_limits),
           UNIT_TEST(test_limits_early),
           UNIT_TEST(test_rewrite),
           UNIT_TEST(test_buffer_shrank),
           UNIT_TEST(test_rewrite_refuses),
           UNIT_TEST(test_error_response))
