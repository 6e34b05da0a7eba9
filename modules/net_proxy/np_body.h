/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: where a request body ends.  The proxy forwards exactly one
 * request per plain-HTTP connection; it passes the body through unchanged
 * but must know its end, so that bytes after it (a second, pipelined or
 * smuggled request) are never sent to the origin as part of this one.
 *
 * Two framings (RFC 9112 6.3): a Content-Length countdown, or chunked
 * transfer coding (RFC 9112 7.1), checked strictly:
 *  - chunk-size is 1..16 significant hex digits (leading zeros allowed, a
 *    value over 2^64 - 1 is an error), right at the start of the line;
 *  - chunk extensions: BWS ";" name [= token / quoted-string], checked
 *    character by character (tokens, quoted strings with \-escapes, no
 *    control characters); whitespace after the size only before a ";";
 *  - every line ends in CRLF: a bare LF or bare CR is an error (lenient
 *    parsers that accept one are the other half of a smuggling attack);
 *  - chunk data is followed by exactly CRLF;
 *  - the trailer section after the 0 chunk: field lines (token ":" value,
 *    no obs-fold, no whitespace before the colon), then CRLF.
 * Limits: a chunk-size line (with its extensions) or a trailer line over
 * max_line bytes, a trailer section over max_trailer bytes.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "np_parse.h"

struct np_body_limits {
        size_t max_line;    /* chunk-size line or trailer line, without CRLF */
        size_t max_trailer; /* the whole trailer section */
};

#define NP_BODY_LIMITS_DEFAULT ((struct np_body_limits){ 4096, 16384 })

struct np_body {
        struct np_body_limits lim;
        int state;
        uint64_t remaining;   /* Content-Length left, or the current chunk's data left */
        unsigned digits;      /* significant hex digits of the chunk size so far */
        size_t line_len;      /* bytes of the current size or trailer line */
        size_t trailer_len;   /* bytes of the trailer section so far */
        uint64_t total;       /* body bytes consumed so far */
        const char *why;      /* on NP_BAD: a static reason */
};

/* A body of exactly n bytes (n 0: no body; np_body_feed says NP_DONE). */
void np_body_init_length(struct np_body *b, uint64_t n);

/* A chunked body; lim NULL means NP_BODY_LIMITS_DEFAULT. */
void np_body_init_chunked(struct np_body *b, const struct np_body_limits *lim);

/*
 * Feed the next `len` bytes from the client (each byte once: this is a
 * stream tracker, unlike the head parsers).  *consumed gets how many of
 * them belong to the body: all of them on NP_NEED_MORE; on NP_DONE those
 * up to the body's last byte (the rest is not part of this request); on
 * NP_BAD the offset of the offending byte, with b->why set.  Once DONE or
 * BAD, it stays so (consumed 0).
 */
int np_body_feed(struct np_body *b, const uint8_t *buf, size_t len, size_t *consumed);
