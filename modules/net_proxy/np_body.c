/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the request-body framing tracker (Content-Length countdown
 * and a chunked-coding state machine).  The grammar and limits are in
 * np_body.h.
 */
#include <string.h>

#include "common/stk_util.h"
#include "np_body.h"

enum {
        B_LENGTH = 0,   /* Content-Length countdown */
        B_SIZE,         /* chunk-size hex digits */
        B_SIZE_WS,      /* BWS after the size: only ";" may follow */
        B_EXT,          /* chunk extensions */
        B_EXT_QUOTED,   /* inside a quoted-string extension value */
        B_EXT_ESCAPE,   /* after a backslash in a quoted string */
        B_SIZE_LF,      /* CR seen at the end of the size line */
        B_DATA,         /* chunk data */
        B_DATA_CR,      /* the CRLF after chunk data */
        B_DATA_LF,
        B_TRAILER,      /* start of a trailer line, or the final CRLF */
        B_TRAILER_NAME,
        B_TRAILER_VALUE,
        B_TRAILER_LF,
        B_FINAL_LF,
        B_DONE,
        B_BAD,
};

void np_body_init_length(struct np_body *b, uint64_t n)
{
        memset(b, 0, sizeof(*b));
        b->state = n ? B_LENGTH : B_DONE;
        b->remaining = n;
}

void np_body_init_chunked(struct np_body *b, const struct np_body_limits *lim)
{
        memset(b, 0, sizeof(*b));
        b->lim = lim ? *lim : NP_BODY_LIMITS_DEFAULT;
        b->state = B_SIZE;
}

static int fail(struct np_body *b, const char *why)
{
        b->state = B_BAD;
        b->why = why;
        return B_BAD;
}

static int size_char(struct np_body *b, uint8_t c)
{
        int v = stk_hex_value(c);

        if (v >= 0) {
                if (b->state != B_SIZE)
                        return fail(b, "chunk size after whitespace");
                if (b->digits || v)
                        b->digits++;
                if (b->digits > 16)
                        return fail(b, "chunk size too large");
                b->remaining = b->remaining << 4 | (uint64_t)v;
                return B_SIZE;
        }
        if (b->line_len == 0) /* nothing yet on this line: no digit */
                return fail(b, "chunk size missing");
        if (c == ' ' || c == '\t')
                return B_SIZE_WS;
        if (c == ';')
                return B_EXT;
        if (c == '\r' && b->state == B_SIZE)
                return B_SIZE_LF;
        return fail(b, "invalid character after the chunk size");
}

/* chunk-ext: tokens, ";", "=", BWS and quoted strings; CR ends the line. */
static int ext_char(struct np_body *b, uint8_t c)
{
        switch (b->state) {
        case B_EXT:
                if (c == '\r')
                        return B_SIZE_LF;
                if (c == '"')
                        return B_EXT_QUOTED;
                if (np_is_tchar(c) || c == ';' || c == '=' || c == ' ' || c == '\t')
                        return B_EXT;
                return fail(b, "invalid character in a chunk extension");
        case B_EXT_QUOTED:
                if (c == '"')
                        return B_EXT;
                if (c == '\\')
                        return B_EXT_ESCAPE;
                if (c == '\t' || (c >= 0x20 && c != 0x7f))
                        return B_EXT_QUOTED;
                return fail(b, "control character in a chunk extension");
        default: /* B_EXT_ESCAPE */
                if (c == '\t' || (c >= 0x20 && c != 0x7f))
                        return B_EXT_QUOTED;
                return fail(b, "control character in a chunk extension");
        }
}

static int trailer_char(struct np_body *b, uint8_t c)
{
        switch (b->state) {
        case B_TRAILER:
                if (c == '\r')
                        return B_FINAL_LF;
                if (np_is_tchar(c))
                        return B_TRAILER_NAME;
                return fail(b, c == ' ' || c == '\t' ? "obsolete line folding in a trailer"
                                                     : "invalid trailer field name");
        case B_TRAILER_NAME:
                if (np_is_tchar(c))
                        return B_TRAILER_NAME;
                if (c == ':')
                        return B_TRAILER_VALUE;
                return fail(b, "invalid trailer field name");
        case B_TRAILER_VALUE:
                if (c == '\r')
                        return B_TRAILER_LF;
                if (np_is_field_char(c))
                        return B_TRAILER_VALUE;
                return fail(b, "control character in a trailer");
        case B_TRAILER_LF:
                return c == '\n' ? B_TRAILER : fail(b, "trailer line not ended by CRLF");
        default: /* B_FINAL_LF */
                return c == '\n' ? B_DONE : fail(b, "chunked body not ended by CRLF");
        }
}

/* One byte of framing (anything but data): the next state. */
static int framing_char(struct np_body *b, uint8_t c)
{
        switch (b->state) {
        case B_SIZE:
        case B_SIZE_WS:
                return size_char(b, c);
        case B_EXT:
        case B_EXT_QUOTED:
        case B_EXT_ESCAPE:
                return ext_char(b, c);
        case B_SIZE_LF:
                if (c != '\n')
                        return fail(b, "chunk size line not ended by CRLF");
                return b->remaining ? B_DATA : B_TRAILER;
        case B_DATA_CR:
                return c == '\r' ? B_DATA_LF : fail(b, "chunk data not followed by CRLF");
        case B_DATA_LF:
                return c == '\n' ? B_SIZE : fail(b, "chunk data not followed by CRLF");
        default:
                return trailer_char(b, c);
        }
}

static bool in_trailer(int state)
{
        return state >= B_TRAILER && state <= B_FINAL_LF;
}

/* Account one framing byte against the limits; false when over. */
static bool within_limits(struct np_body *b, int next, uint8_t c)
{
        bool trailer = in_trailer(b->state);

        if (trailer && ++b->trailer_len > b->lim.max_trailer) {
                fail(b, "trailer section too large");
                return false;
        }
        if (c != '\r' && c != '\n' && ++b->line_len > b->lim.max_line) {
                fail(b, trailer ? "trailer line too long" : "chunk size line too long");
                return false;
        }
        if (next == B_SIZE && b->state == B_DATA_LF) { /* a new chunk begins */
                b->remaining = 0;
                b->digits = 0;
                b->line_len = 0;
        } else if (next == B_TRAILER || next == B_DATA) {
                b->line_len = 0;
        }
        return true;
}

/* Chunk or Content-Length data: as much as is there. */
static size_t take_data(struct np_body *b, size_t avail)
{
        size_t n = b->remaining < avail ? (size_t)b->remaining : avail;

        b->remaining -= n;
        b->total += n;
        if (b->remaining == 0)
                b->state = b->state == B_LENGTH ? B_DONE : B_DATA_CR;
        return n;
}

int np_body_feed(struct np_body *b, const uint8_t *buf, size_t len, size_t *consumed)
{
        size_t i = 0;

        while (i < len && b->state != B_DONE && b->state != B_BAD) {
                if (b->state == B_LENGTH || b->state == B_DATA) {
                        i += take_data(b, len - i);
                        continue;
                }
                int next = framing_char(b, buf[i]);
                if (next == B_BAD || !within_limits(b, next, buf[i]))
                        break;
                b->state = next;
                b->total++;
                i++;
        }
        *consumed = i;
        if (b->state == B_BAD)
                return NP_BAD;
        return b->state == B_DONE ? NP_DONE : NP_NEED_MORE;
}
