/* SPDX-License-Identifier: MIT */
/*
 * Fuzz np_http_parse and np_http_rewrite.  Input: one option byte (bits
 * 0-1: which limits; 2-6: how to split; 7: a request inside a tunnel, as
 * np_http_parser_init_tunnel parses it), then the request bytes.
 * Properties: parsing the
 * whole buffer and parsing it grown step by step agree (NEED_MORE / DONE /
 * BAD, the status of a refusal, and on DONE every field); the head stays
 * within the input and the limits; the rewritten head is well formed (CRLF
 * only, one blank line, at the end; no control characters but HTAB); an
 * error response can always be written for a refusal.  Inside a tunnel: a
 * request passed has a Host header, is no CONNECT, carries no Upgrade, and
 * is never rewritten (its bytes go on as they are).
 */
#include <errno.h>

#include "fuzz.h"
#include "np_http.h"

static const struct np_http_limits limits[4] = {
        { 8192, 32768, 100 }, { 64, 256, 4 }, { 16, 64, 2 }, { 200, 1000, 10 },
};

static void same_request(const struct np_http_req *a, const struct np_http_req *b)
{
        FUZZ_CHECK(strcmp(a->method, b->method) == 0);
        FUZZ_CHECK(a->is_connect == b->is_connect && a->version_minor == b->version_minor);
        FUZZ_CHECK(a->has_target_host == b->has_target_host);
        FUZZ_CHECK(strcmp(a->host.text, b->host.text) == 0 && a->port == b->port);
        FUZZ_CHECK(a->path_off == b->path_off && a->path_len == b->path_len);
        FUZZ_CHECK(a->has_host_header == b->has_host_header && a->host_header_port == b->host_header_port);
        FUZZ_CHECK(a->has_content_length == b->has_content_length && a->content_length == b->content_length);
        FUZZ_CHECK(a->is_chunked == b->is_chunked && a->head_len == b->head_len);
        FUZZ_CHECK(a->n_headers == b->n_headers);
}

static void check_rewrite(const struct np_http_parser *p, const char *buf)
{
        size_t size = p->req.head_len + 512;
        char *out = malloc(size);
        int n;

        FUZZ_CHECK(out != NULL);
        n = np_http_rewrite(p, buf, out, size);
        if (p->req.is_connect || p->in_tunnel) {
                FUZZ_CHECK(n == -EINVAL);
                free(out);
                return;
        }
        FUZZ_CHECK(n > 4);
        FUZZ_CHECK(memcmp(out + n - 4, "\r\n\r\n", 4) == 0);
        for (int i = 0; i < n; i++) {
                unsigned char c = (unsigned char)out[i];
                FUZZ_CHECK(c != '\n' || (i > 0 && out[i - 1] == '\r'));   /* no bare LF */
                FUZZ_CHECK(c != '\r' || (i + 1 < n && out[i + 1] == '\n')); /* no bare CR */
                FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\r' || c == '\n');
                FUZZ_CHECK(c != 0x7f);
                if (i + 4 < n)
                        FUZZ_CHECK(memcmp(out + i, "\r\n\r\n", 4) != 0); /* one blank line */
        }
        FUZZ_CHECK(np_http_rewrite(p, buf, out, (size_t)n - 1) == -ENOBUFS);
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct np_http_parser whole, grow;
        const struct np_http_limits *lim;
        size_t len, step;
        char *buf;
        bool tunnel;
        int rw, rg = NP_NEED_MORE;

        if (size < 1)
                return 0;
        lim = &limits[data[0] & 3];
        step = 1 + ((data[0] & 0x7f) >> 2);
        tunnel = data[0] & 0x80;
        buf = fuzz_copy(data + 1, size - 1);
        len = size - 1;

        (tunnel ? np_http_parser_init_tunnel : np_http_parser_init)(&whole, lim);
        rw = np_http_parse(&whole, buf, len);
        (tunnel ? np_http_parser_init_tunnel : np_http_parser_init)(&grow, lim);
        for (size_t k = 0; rg == NP_NEED_MORE; k += step) {
                rg = np_http_parse(&grow, buf, k < len ? k : len);
                if (k >= len)
                        break;
        }
        FUZZ_CHECK(rw == rg);
        if (rw == NP_DONE) {
                same_request(&whole.req, &grow.req);
                FUZZ_CHECK(whole.req.head_len <= len && whole.req.head_len <= lim->max_head);
                FUZZ_CHECK(whole.req.n_headers <= lim->max_headers);
                FUZZ_CHECK(whole.req.path_off + whole.req.path_len <= whole.req.head_len);
                FUZZ_CHECK(tunnel || (whole.req.port != 0 && whole.req.has_target_host));
                FUZZ_CHECK(!tunnel || (whole.req.has_host_header && !whole.req.is_connect && !whole.req.has_upgrade));
                check_rewrite(&whole, buf);
        } else if (rw == NP_BAD) {
                char resp[2048];
                FUZZ_CHECK(whole.why != NULL && grow.why != NULL);
                FUZZ_CHECK(whole.status == grow.status);
                FUZZ_CHECK(np_http_error_response(whole.status, whole.why, resp, sizeof(resp)) > 0);
        }
        free(buf);
        return 0;
}
