/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the HTTP/1.x request head a client sends to a forward proxy
 * (RFC 9112), parsed strictly, and the origin-form head sent upstream.
 *
 * Accepted:
 *   CONNECT host:port HTTP/1.x          authority-form; port required, 1..65535;
 *                                       IPv6 in brackets
 *   METHOD http://host[:port]/path?q HTTP/1.x   absolute-form, scheme http only
 * Refused (status in parentheses):
 *  - lines not ended by CRLF: a bare LF or a bare CR (400).  RFC 9112 2.2
 *    lets a recipient accept a bare LF; we do not, so the proxy and the
 *    origin can never disagree about where a line ends;
 *  - anything but exactly one SP between the request-line parts (400);
 *    a method that is not a token (400) or longer than NP_HTTP_METHOD_MAX
 *    (501); TRACE (405: it would echo the request's headers back); a
 *    version other than HTTP/1.x (505 when it is HTTP/d.d, else 400);
 *  - origin-form `/path` and asterisk-form `*`: this is a proxy (400);
 *    `https://` absolute-form (400: use CONNECT); other schemes (400);
 *    userinfo (`http://user@host/`, 400); a fragment or a character RFC
 *    3986 does not allow in the target, or a bad %-escape (400);
 *  - obs-fold (a line starting with SP/HTAB), whitespace before the colon,
 *    a field name that is not a token, NUL or any control character but
 *    HTAB in a value, DEL (400);
 *  - a request line over max_line (414), a header line over max_line, more
 *    than max_headers fields, or a head over max_head (431);
 *  - HTTP/1.1 without a Host header, more than one Host header, a Host
 *    value that is not host[:port] (400);
 *  - Content-Length that is not plain digits (no sign, no list), or two
 *    that differ (400); Transfer-Encoding with Content-Length, or in an
 *    HTTP/1.0 request, or `chunked` twice or not last (400); any coding
 *    but chunked (501: the proxy must see the body's framing);
 *  - a body on CONNECT (Content-Length or Transfer-Encoding, 400);
 *  - a Connection header naming Content-Length, Transfer-Encoding or Host
 *    (400): removing those as hop-by-hop would change the framing the
 *    origin sees, a request-smuggling trick.
 * Upgrade is not refused but removed (with Connection: close the origin
 * answers the request itself; a client wanting WebSocket gets that answer
 * rather than a tunnel we cannot inspect).
 *
 * Inside a tunnel (np_http_parser_init_tunnel): the requests a client
 * sends through CONNECT or SOCKS5 to the origin itself, each of them
 * parsed so its host can be checked against the tunnel's.  The same rules,
 * except for the target and three more refusals:
 *   METHOD /path?q HTTP/1.x             origin-form (not starting with //)
 *   OPTIONS * HTTP/1.x                  asterisk-form, OPTIONS only
 *   METHOD http://host[:port]/path HTTP/1.x   absolute-form, which origins
 *                                       accept too: its host is checked
 *  - CONNECT (400): the stream after it would be opaque;
 *  - any request without a Host header, HTTP/1.0 too (400);
 *  - an Upgrade header (400): the bytes pass unchanged, and after the
 *    origin's 101 they would no longer be HTTP the proxy could check.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "np_match.h"
#include "np_parse.h"

#define NP_HTTP_METHOD_MAX 32

struct np_http_limits {
        size_t max_line;    /* longest request or header line, without CRLF */
        size_t max_head;    /* the whole head, final CRLF included */
        size_t max_headers; /* header lines */
};

#define NP_HTTP_LIMITS_DEFAULT ((struct np_http_limits){ 8192, 32768, 100 })

/* What a request head says; filled as lines arrive, complete on NP_DONE. */
struct np_http_req {
        char method[NP_HTTP_METHOD_MAX + 1];
        bool is_connect;
        unsigned version_minor;     /* HTTP/1.<minor> */
        bool has_target_host;       /* the target names a host (always, but in a tunnel) */
        struct np_host host;        /* from the target, normalized */
        uint16_t port;              /* from the target; 80 when absolute-form omits it
                                     * (in a tunnel: 0) */
        size_t path_off, path_len;  /* absolute- or origin-form: path and query in
                                     * the buffer (path_len 0: the path is "/" or,
                                     * asterisk-form, none); CONNECT: 0 */
        bool has_host_header;
        struct np_host host_header; /* the Host header's host, normalized */
        uint16_t host_header_port;  /* 0 when the Host header has no port */
        bool has_content_length;
        uint64_t content_length;
        bool is_chunked;            /* Transfer-Encoding: chunked */
        bool has_upgrade;           /* an Upgrade header was present (and is dropped) */
        size_t n_headers;
        size_t head_len;            /* bytes of the head, final CRLF included */
};

struct np_http_parser {
        struct np_http_limits lim;
        size_t pos;        /* start of the next line to parse */
        size_t scan;       /* where the search for that line's LF resumes */
        int state;
        unsigned te_chunked; /* how many `chunked` codings were seen */
        bool has_te;
        bool in_tunnel;    /* requests inside a tunnel (see the head comment) */
        struct np_http_req req;
        int status;        /* on NP_BAD: the HTTP status to answer */
        const char *why;   /* on NP_BAD: a static reason text */
};

/* Start parsing a new head; lim NULL means NP_HTTP_LIMITS_DEFAULT. */
void np_http_parser_init(struct np_http_parser *p, const struct np_http_limits *lim);
/* The same for a request inside a tunnel. */
void np_http_parser_init_tunnel(struct np_http_parser *p, const struct np_http_limits *lim);

/*
 * Parse the head in buf[0..len): the bytes received so far.  Between calls
 * the caller may only append (the same bytes must stay at the same
 * offsets; a shorter buffer than before is NP_BAD, status 500); work
 * already done is not repeated.  Returns NP_NEED_MORE,
 * NP_DONE (p->req complete; p->req.head_len bytes are the head, what
 * follows is body), or NP_BAD (p->status and p->why; answer with
 * np_http_error_response and close).  After NP_DONE or NP_BAD the same
 * answer is returned again.
 */
int np_http_parse(struct np_http_parser *p, const char *buf, size_t len);

/*
 * The head to send upstream for a parsed non-CONNECT request:
 *      METHOD /path HTTP/1.1   (HTTP/1.0 for a 1.0 client: the origin must
 *                               not answer a 1.0 client with chunked data)
 *      Host: host[:port]       from the target (RFC 9112 3.2.2: a proxy
 *                              replaces the client's Host with it)
 *      the client's headers in order, minus the hop-by-hop ones
 *        (Connection and those it names, Proxy-Connection, Keep-Alive,
 *        Proxy-Authorization, Proxy-Authenticate, TE, Trailer, Upgrade,
 *        HTTP2-Settings) and minus Host, Content-Length and
 *        Transfer-Encoding, which are written once, canonically:
 *      Content-Length: N / Transfer-Encoding: chunked
 *      Connection: close
 * `buf` is the buffer np_http_parse returned NP_DONE on.  Returns the
 * length written to out (not NUL-terminated), -ENOBUFS if out is too small
 * (head_len + 512 always suffices), -EINVAL for CONNECT, a request parsed
 * inside a tunnel (passed on as it is), or an unfinished parse.
 */
int np_http_rewrite(const struct np_http_parser *p, const char *buf, char *out, size_t outsz);

/*
 * A complete short response for `status` (400, 403, 405, 407, 411, 413,
 * 414, 431, 500, 501, 502, 503, 504, 505) with Connection: close and a
 * text/plain body "stockade: <reason>\n" (reason NULL: the status text;
 * control and non-ASCII bytes in it become '?').  Returns the length
 * written (NUL-terminated too), -EINVAL for an unknown status, -ENOBUFS
 * if it does not fit.
 */
int np_http_error_response(int status, const char *reason, char *buf, size_t size);

/* The reason phrase of a status np_http_error_response knows, else NULL. */
const char *np_http_status_text(int status);
