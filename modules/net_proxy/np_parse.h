/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: what every parser of the proxy shares.  The parsers read bytes
 * a sandboxed (so: hostile) command sent; they are pure (no I/O, no
 * allocation), never read past the length they are given, never recurse,
 * and cap every size.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an incremental parser says about the bytes received so far. */
enum np_status {
        NP_NEED_MORE = 0, /* valid so far: call again with more bytes */
        NP_DONE,          /* complete: the parser says how many bytes it used */
        NP_BAD,           /* invalid: the parser says why (and what to answer) */
};

/* Longest host name (RFC 1035 2.3.4: 255 octets on the wire, 253 as text). */
#define NP_HOST_MAX 253

/* An IP address in network byte order; AF_INET uses bytes[0..3]. */
struct np_ip {
        int family; /* AF_INET or AF_INET6 */
        uint8_t bytes[16];
};

/* RFC 9110 5.6.2 tchar: the characters of a token (methods, field names). */
static inline bool np_is_tchar(unsigned char c)
{
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                return true;
        switch (c) {
        case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
        case '+': case '-': case '.': case '^': case '_': case '`': case '|': case '~':
                return true;
        default:
                return false;
        }
}

/* RFC 9110 5.5 field-vchar plus SP and HTAB: what a field value may hold.
 * obs-text (0x80-0xff) is allowed: values pass through to the origin. */
static inline bool np_is_field_char(unsigned char c)
{
        return c == ' ' || c == '\t' || (c >= 0x21 && c != 0x7f);
}

static inline char np_lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}
