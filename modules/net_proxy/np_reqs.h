/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: a client's byte stream judged request by request, without
 * I/O (np_stream.c moves the bytes; the fuzz harness drives this alone).
 *
 * In a tunnel (np_reqs_init_tunnel) every head is parsed with the strict
 * parser in its tunnel mode (np_http.h), and its target, when it names a
 * host, and its Host header must name the tunnel's destination (the same
 * np_host, and the same port where the request gives one); every body is
 * framed (np_body.h) so that the next head is looked for exactly where the
 * origin will look for it.  For a plain-HTTP request (np_reqs_init_body)
 * only its body is framed, and nothing after it passes.
 *
 * Judged bytes pass unchanged.  A head is parsed only once everything
 * judged before it has gone out (s->ok == 0), so it starts at offset 0 of
 * the buffer and stays there, as the parser's append-only contract wants.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "np_body.h"
#include "np_http.h"
#include "np_match.h"

struct np_reqs {
        struct np_http_parser http;
        struct np_body body;
        struct np_http_limits lim;      /* for each head; the caller's buffer holds lim.max_head */
        struct np_host dest;
        uint16_t port;
        bool tunnel;            /* heads to judge; else one body, then the end */
        bool in_body;
        int result;             /* NP_DONE or NP_BAD once ended, else 0 */
        size_t ok;              /* judged bytes at the front of the buffer, not sent yet */
        unsigned n;             /* heads passed */
        char why[320];          /* on NP_BAD: room for a host name */
};

/* lim NULL means NP_HTTP_LIMITS_DEFAULT. */
void np_reqs_init_tunnel(struct np_reqs *s, const struct np_host *dest, uint16_t port,
                         const struct np_http_limits *lim);
void np_reqs_init_body(struct np_reqs *s, const struct np_http_req *req);

/*
 * Judge buf[0..len), the bytes received and not sent yet, past the s->ok
 * already judged.  Returns NP_NEED_MORE (judged as far as it can: either
 * s->ok bytes must go out before the next head, or more bytes are needed),
 * NP_DONE (the plain request's body is complete: nothing past s->ok may
 * pass), or NP_BAD (a request refused, s->why: nothing past s->ok may
 * pass; bytes before it are still good to send).  Once DONE or BAD it
 * stays so.
 */
int np_reqs_judge(struct np_reqs *s, const char *buf, size_t len);

/* The caller sent the first n judged bytes and removed them from its buffer. */
void np_reqs_sent(struct np_reqs *s, size_t n);
