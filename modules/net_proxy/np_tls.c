/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: ClientHello reassembly and the server_name / ECH extensions
 * (RFC 8446 4.1.2 and 5.1, RFC 6066 3).  What is accepted is in np_tls.h.
 */
#include <string.h>

#include "np_match.h"
#include "np_tls.h"

enum { T_READING = 0, T_DONE, T_BAD };

#define RECORD_HANDSHAKE 22
#define HANDSHAKE_CLIENT_HELLO 1
#define RECORD_MAX 16384

/* A bounds-checked reader over one length-delimited part of the hello. */
struct reader {
        const uint8_t *p;
        size_t len, off;
        bool bad;
};

static size_t left(const struct reader *r)
{
        return r->len - r->off;
}

static unsigned read_u8(struct reader *r)
{
        if (r->bad || left(r) < 1) {
                r->bad = true;
                return 0;
        }
        return r->p[r->off++];
}

static unsigned read_u16(struct reader *r)
{
        unsigned hi = read_u8(r);
        return hi << 8 | read_u8(r);
}

/* A sub-reader over the next n bytes (marked bad if they are not there). */
static struct reader take(struct reader *r, size_t n)
{
        struct reader sub = { r->p + r->off, n, 0, false };

        if (r->bad || left(r) < n) {
                r->bad = true;
                sub.len = 0;
                sub.bad = true;
                sub.p = r->p;
                return sub;
        }
        r->off += n;
        return sub;
}

static int fail(struct np_tls_parser *p, const char *why)
{
        p->state = T_BAD;
        p->why = why;
        return NP_BAD;
}

void np_tls_init(struct np_tls_parser *p)
{
        p->state = T_READING;
        p->in_off = p->rec_have = p->rec_left = p->msg_len = 0;
        p->has_sni = p->has_ech = false;
        p->sni[0] = '\0';
        p->hello_end = 0;
        p->why = NULL;
}

/* RFC 6066 3 lets the list carry several names of different types, but
 * defines only host_name (0) and no client sends more than one entry.  A
 * parser that skips what it does not know, while the server reads some
 * other entry, lets the two disagree about the name: so exactly one entry,
 * of type host_name, or the hello is refused. */
static int server_name(struct np_tls_parser *p, struct reader ext)
{
        struct reader list = take(&ext, read_u16(&ext));
        unsigned type = read_u8(&list);
        struct reader name = take(&list, read_u16(&list));
        struct np_host h;

        if (ext.bad || left(&ext) || list.bad)
                return fail(p, "malformed server_name extension");
        if (type != 0)
                return fail(p, "server_name entry that is not a host_name");
        if (left(&list))
                return fail(p, "server_name lists more than one name");
        if (np_host_parse((const char *)name.p, name.len, &h) < 0)
                return fail(p, "invalid host name in server_name");
        if (h.kind != NP_HOST_NAME)
                return fail(p, "IP address in server_name (RFC 6066 forbids it)");
        memcpy(p->sni, h.text, h.len + 1);
        p->has_sni = true;
        return NP_DONE;
}

static int extensions(struct np_tls_parser *p, struct reader *hello)
{
        uint8_t seen[65536 / 8] = { 0 };
        struct reader all = take(hello, read_u16(hello));

        if (hello->bad || left(hello))
                return fail(p, "ClientHello extensions do not fill the message");
        while (left(&all)) {
                unsigned type = read_u16(&all);
                struct reader ext = take(&all, read_u16(&all));
                if (all.bad)
                        return fail(p, "malformed ClientHello extension");
                if (seen[type / 8] & (1u << (type % 8)))
                        return fail(p, "duplicate ClientHello extension");
                seen[type / 8] |= (uint8_t)(1u << (type % 8));
                if (type == NP_TLS_EXT_ECH || type == NP_TLS_EXT_ESNI_DRAFT)
                        p->has_ech = true;
                if (type == NP_TLS_EXT_SERVER_NAME && server_name(p, ext) == NP_BAD)
                        return NP_BAD;
        }
        return NP_DONE;
}

static int client_hello(struct np_tls_parser *p, struct reader hello)
{
        unsigned version = read_u16(&hello);
        struct reader sid, suites, comp;

        (void)take(&hello, 32); /* random */
        sid = take(&hello, read_u8(&hello));
        suites = take(&hello, read_u16(&hello));
        comp = take(&hello, read_u8(&hello));
        if (hello.bad)
                return fail(p, "truncated ClientHello");
        if (version >> 8 != 3)
                return fail(p, "ClientHello version is not 3.x");
        if (sid.len > 32 || suites.len < 2 || suites.len % 2 || comp.len < 1)
                return fail(p, "malformed ClientHello");
        if (left(&hello) == 0)
                return NP_DONE; /* no extensions (TLS 1.2 allows it): no SNI */
        return extensions(p, &hello);
}

/* The 5-byte record header is complete: check it. */
static int record_header(struct np_tls_parser *p)
{
        size_t len = (size_t)p->rec[3] << 8 | p->rec[4];

        if (len == 0 || len > RECORD_MAX)
                return fail(p, "TLS record length out of range");
        p->rec_left = len;
        return NP_NEED_MORE;
}

/* Check the header bytes as they arrive, so non-TLS is refused at once. */
static int record_header_byte(struct np_tls_parser *p, uint8_t c)
{
        p->rec[p->rec_have++] = c;
        if (p->rec_have == 1 && c != RECORD_HANDSHAKE)
                return fail(p, "not a TLS handshake record");
        if (p->rec_have == 2 && c != 3)
                return fail(p, "TLS record version is not 3.x");
        return p->rec_have == 5 ? record_header(p) : NP_NEED_MORE;
}

/* The handshake message's length from its 4-byte header (0 before). */
static size_t message_total(const struct np_tls_parser *p)
{
        if (p->msg_len < 4)
                return 0;
        return 4 + ((size_t)p->msg[1] << 16 | (size_t)p->msg[2] << 8 | p->msg[3]);
}

/* Handshake bytes from the current record: first the message header, then
 * its body, never beyond the message (a record may hold more). */
static int handshake_bytes(struct np_tls_parser *p, const uint8_t *buf, size_t avail)
{
        size_t want = p->msg_len < 4 ? 4 - p->msg_len : message_total(p) - p->msg_len;
        size_t n = avail < p->rec_left ? avail : p->rec_left, total;

        n = n < want ? n : want;
        if (n == 0) /* cannot happen (a record is never empty); never spin */
                return fail(p, "TLS record state lost");
        memcpy(p->msg + p->msg_len, buf, n);
        p->msg_len += n;
        p->rec_left -= n;
        p->in_off += n;
        if (p->rec_left == 0)
                p->rec_have = 0;
        if (p->msg[0] != HANDSHAKE_CLIENT_HELLO)
                return fail(p, "first handshake message is not a ClientHello");
        total = message_total(p);
        if (total > NP_TLS_HELLO_MAX)
                return fail(p, "ClientHello too large");
        if (total == 0 || p->msg_len < total)
                return NP_NEED_MORE;
        struct reader hello = { p->msg + 4, total - 4, 0, false };
        if (client_hello(p, hello) == NP_BAD)
                return NP_BAD;
        p->hello_end = p->in_off;
        p->state = T_DONE;
        return NP_DONE;
}

int np_tls_parse(struct np_tls_parser *p, const uint8_t *buf, size_t len)
{
        int r = NP_NEED_MORE;

        if (p->state != T_READING)
                return p->state == T_DONE ? NP_DONE : NP_BAD;
        while (r == NP_NEED_MORE && p->in_off < len) {
                if (p->rec_have < 5)
                        r = record_header_byte(p, buf[p->in_off++]);
                else
                        r = handshake_bytes(p, buf + p->in_off, len - p->in_off);
        }
        return r;
}
