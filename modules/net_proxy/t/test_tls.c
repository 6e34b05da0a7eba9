/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: SNI and ECH from a ClientHello (np_tls.h).  A real hello
 * (captured once from `openssl s_client -servername example.com`, OpenSSL
 * 3.0) split at every byte and re-fragmented into records of every size;
 * hand-built hellos for each malformed length and extension case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_tls.h"
#include "unit.h"

static const uint8_t openssl_hello[] = {
        0x16, 0x03, 0x01, 0x01, 0x38, 0x01, 0x00, 0x01, 0x34, 0x03, 0x03, 0x75,
        0x55, 0xda, 0x46, 0x3a, 0x6a, 0xe2, 0x45, 0x3a, 0xe2, 0x38, 0x84, 0x12,
        0x9f, 0xa8, 0xb8, 0x86, 0x78, 0x4d, 0x8e, 0x91, 0x49, 0x99, 0x43, 0x92,
        0x1c, 0xcd, 0x8e, 0x6b, 0xec, 0x5a, 0x2f, 0x20, 0xba, 0xa5, 0x36, 0x00,
        0x9e, 0xde, 0x2b, 0x1d, 0x09, 0x4f, 0x0c, 0x72, 0x31, 0x6f, 0x68, 0xd5,
        0x7e, 0xca, 0x2c, 0x99, 0xaa, 0xce, 0xf5, 0xd9, 0x0a, 0x09, 0xf0, 0x62,
        0x16, 0x39, 0x5a, 0x03, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
        0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
        0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
        0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
        0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
        0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xad,
        0x00, 0x00, 0x00, 0x10, 0x00, 0x0e, 0x00, 0x00, 0x0b, 0x65, 0x78, 0x61,
        0x6d, 0x70, 0x6c, 0x65, 0x2e, 0x63, 0x6f, 0x6d, 0x00, 0x0b, 0x00, 0x04,
        0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00, 0x1d,
        0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01,
        0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16,
        0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28,
        0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09,
        0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01,
        0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02,
        0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03,
        0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00,
        0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0x7d, 0xfd, 0x8e,
        0xa1, 0xbc, 0x14, 0x45, 0xcd, 0xfb, 0x34, 0xff, 0xa0, 0x7d, 0xb4, 0xbf,
        0x5e, 0xc1, 0x08, 0xee, 0x33, 0x84, 0x0a, 0xd0, 0x79, 0xae, 0xa7, 0xfc,
        0x37, 0xe3, 0xc0, 0xb1, 0x2a,
};

static int parse_all(const uint8_t *buf, size_t len, struct np_tls_parser *p)
{
        np_tls_init(p);
        return np_tls_parse(p, buf, len);
}

static void test_openssl_hello(void)
{
        static struct np_tls_parser p;

        CU_ASSERT_EQUAL(sizeof(openssl_hello), 317);
        CU_ASSERT_EQUAL_FATAL(parse_all(openssl_hello, sizeof(openssl_hello), &p), NP_DONE);
        CU_ASSERT(p.has_sni);
        CU_ASSERT_STRING_EQUAL(p.sni, "example.com");
        CU_ASSERT(!p.has_ech);
        CU_ASSERT_EQUAL(p.hello_end, sizeof(openssl_hello));
        CU_ASSERT_EQUAL(np_tls_parse(&p, openssl_hello, sizeof(openssl_hello)), NP_DONE);
}

/* Every prefix: NEED_MORE, for the same parser fed a growing buffer and for
 * a fresh one on an exact-size copy; DONE only with the last byte. */
static void test_openssl_hello_split(void)
{
        static struct np_tls_parser grow, fresh;
        size_t len = sizeof(openssl_hello);

        np_tls_init(&grow);
        for (size_t k = 0; k <= len; k++) {
                uint8_t *part = malloc(k ? k : 1);
                int want = k < len ? NP_NEED_MORE : NP_DONE;
                CU_ASSERT_PTR_NOT_NULL_FATAL(part);
                memcpy(part, openssl_hello, k);
                int r1 = parse_all(part, k, &fresh), r2 = np_tls_parse(&grow, part, k);
                if (r1 != want || r2 != want)
                        fprintf(stderr, "\n  prefix %zu: %d %d (%s)", k, r1, r2, fresh.why ? fresh.why : "");
                CU_ASSERT_EQUAL(r1, want);
                CU_ASSERT_EQUAL(r2, want);
                free(part);
        }
        CU_ASSERT_STRING_EQUAL(grow.sni, "example.com");
}

/* The handshake message of `msg_len` bytes cut into records of `frag`. */
static size_t fragment(const uint8_t *msg, size_t msg_len, size_t frag, uint8_t *out)
{
        size_t n = 0;

        for (size_t off = 0; off < msg_len; off += frag) {
                size_t k = msg_len - off < frag ? msg_len - off : frag;
                out[n++] = 22;
                out[n++] = 3;
                out[n++] = 1;
                out[n++] = (uint8_t)(k >> 8);
                out[n++] = (uint8_t)k;
                memcpy(out + n, msg + off, k);
                n += k;
        }
        return n;
}

static void test_openssl_hello_fragmented(void)
{
        static struct np_tls_parser p;
        static uint8_t buf[16 * 1024];
        const uint8_t *msg = openssl_hello + 5;
        size_t msg_len = sizeof(openssl_hello) - 5;

        for (size_t frag = 1; frag <= msg_len; frag++) {
                size_t n = fragment(msg, msg_len, frag, buf);
                int r = parse_all(buf, n, &p);
                if (r != NP_DONE)
                        fprintf(stderr, "\n  fragments of %zu: %d (%s)", frag, r, p.why);
                CU_ASSERT_EQUAL(r, NP_DONE);
                CU_ASSERT_STRING_EQUAL(p.sni, "example.com");
                CU_ASSERT_EQUAL(p.hello_end, n);
        }
        /* one byte per record and one byte per read */
        size_t n = fragment(msg, msg_len, 1, buf);
        int r = NP_NEED_MORE;
        np_tls_init(&p);
        for (size_t k = 1; k <= n && r == NP_NEED_MORE; k++)
                r = np_tls_parse(&p, buf, k);
        CU_ASSERT_EQUAL(r, NP_DONE);
        CU_ASSERT_EQUAL(p.hello_end, n);
}

/* ---- hand-built hellos ---------------------------------------------------- */

struct out {
        uint8_t b[40000];
        size_t n;
};

static void put(struct out *o, const void *p, size_t n)
{
        if (o->n + n > sizeof(o->b))
                abort();
        memcpy(o->b + o->n, p, n);
        o->n += n;
}

static void put8(struct out *o, unsigned v)
{
        uint8_t b = (uint8_t)v;
        put(o, &b, 1);
}

static void put16(struct out *o, unsigned v)
{
        put8(o, v >> 8);
        put8(o, v);
}

static void put_ext(struct out *o, unsigned type, const void *data, size_t n)
{
        put16(o, type);
        put16(o, (unsigned)n);
        put(o, data, n);
}

/* server_name data with one host_name entry */
static size_t sni_data(uint8_t *d, const char *name)
{
        size_t n = strlen(name);

        d[0] = (uint8_t)((n + 3) >> 8);
        d[1] = (uint8_t)(n + 3);
        d[2] = 0;
        d[3] = (uint8_t)(n >> 8);
        d[4] = (uint8_t)n;
        memcpy(d + 5, name, n);
        return n + 5;
}

struct shape {
        unsigned version, sid_len, suites_len, comp_len;
        bool no_ext;
};

static const struct shape normal = { 0x0303, 32, 4, 1, false };

/* A ClientHello handshake message: header, fixed fields, `exts` (already
 * encoded) as its extensions block. */
static void hello_msg(struct out *m, const struct shape *s, const struct out *exts)
{
        struct out body = { .n = 0 };
        static const uint8_t zeros[300];

        put16(&body, s->version);
        put(&body, zeros, 32);
        put8(&body, s->sid_len);
        put(&body, zeros, s->sid_len);
        put16(&body, s->suites_len);
        put(&body, "\x13\x01\x13\x02\x13\x03\x00\xff", s->suites_len < 8 ? s->suites_len : 8);
        if (s->suites_len > 8)
                put(&body, zeros, s->suites_len - 8);
        put8(&body, s->comp_len);
        put(&body, zeros, s->comp_len);
        if (!s->no_ext) {
                put16(&body, (unsigned)exts->n);
                put(&body, exts->b, exts->n);
        }
        m->n = 0;
        put8(m, 1);
        put8(m, (unsigned)(body.n >> 16));
        put16(m, (unsigned)(body.n & 0xffff));
        put(m, body.b, body.n);
}

static struct np_tls_parser tp;
static struct out ext, msg, rec;

static int parse_msg(const struct shape *s)
{
        hello_msg(&msg, s, &ext);
        rec.n = fragment(msg.b, msg.n, 16384, rec.b);
        return parse_all(rec.b, rec.n, &tp);
}

static void test_sni_forms(void)
{
        static const struct { const char *name; int want; const char *sni; } t[] = {
                { "example.com", NP_DONE, "example.com" },
                { "Example.COM.", NP_DONE, "example.com" },
                { "xn--bcher-kva.example", NP_DONE, "xn--bcher-kva.example" },
                { "127.0.0.1", NP_BAD, NULL },          /* RFC 6066: no IP literals */
                { "127.1", NP_BAD, NULL },
                { "::1", NP_BAD, NULL },
                { "a b", NP_BAD, NULL },
                { "", NP_BAD, NULL },
                { "a..b", NP_BAD, NULL },
                { "b\xc3\xbc" "cher.de", NP_BAD, NULL },
        };
        uint8_t d[512];

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                ext.n = 0;
                put_ext(&ext, 0x000a, "\x00\x02\x00\x1d", 4);
                put_ext(&ext, 0, d, sni_data(d, t[i].name));
                int r = parse_msg(&normal);
                if (r != t[i].want)
                        fprintf(stderr, "\n  sni \"%s\": %d (%s)", t[i].name, r, tp.why ? tp.why : "");
                CU_ASSERT_EQUAL(r, t[i].want);
                if (t[i].sni) {
                        CU_ASSERT(tp.has_sni);
                        CU_ASSERT_STRING_EQUAL(tp.sni, t[i].sni);
                }
        }
}

static void test_no_sni_and_ech(void)
{
        static const struct shape bare = { 0x0301, 0, 2, 1, true };
        uint8_t d[512];

        ext.n = 0;
        CU_ASSERT_EQUAL(parse_msg(&bare), NP_DONE); /* no extensions at all */
        CU_ASSERT(!tp.has_sni && !tp.has_ech);
        put_ext(&ext, 0x002b, "\x02\x03\x04", 3);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_DONE); /* extensions, none of them SNI */
        CU_ASSERT(!tp.has_sni && !tp.has_ech);
        ext.n = 0;
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_DONE); /* an empty extensions block */

        ext.n = 0;
        put_ext(&ext, 0, d, sni_data(d, "public.example"));
        put_ext(&ext, 0xfe0d, "\x00\x00\x01\x00\x01\x01\x00\x00\x00\x00", 10);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_DONE);
        CU_ASSERT(tp.has_ech && tp.has_sni);
        CU_ASSERT_STRING_EQUAL(tp.sni, "public.example");
        ext.n = 0;
        put_ext(&ext, 0xffce, "\x00", 1); /* draft ESNI */
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_DONE);
        CU_ASSERT(tp.has_ech && !tp.has_sni);
}

/* server_name extensions that must be refused, by their raw data. */
static void test_sni_malformed(void)
{
        static const struct { const char *name; uint8_t d[32]; size_t n; int want; const char *sni; } t[] = {
                { "empty extension", { 0 }, 0, NP_BAD, NULL },
                { "empty list", { 0, 0 }, 2, NP_BAD, NULL },
                { "list longer than the extension", { 0, 6, 0, 0, 1, 'a' }, 6, NP_BAD, NULL },
                { "list shorter than the extension", { 0, 4, 0, 0, 1, 'a', 'x' }, 7, NP_BAD, NULL },
                { "name longer than the list", { 0, 4, 0, 0, 2, 'a' }, 6, NP_BAD, NULL },
                { "two host names", { 0, 8, 0, 0, 1, 'a', 0, 0, 1, 'b' }, 10, NP_BAD, NULL },
                /* Exactly one host_name entry: an entry of another type is
                 * refused wherever it stands, not skipped (a server might
                 * read the entry the proxy skipped). */
                { "other type, then a host name", { 0, 8, 7, 0, 1, 'x', 0, 0, 1, 'b' }, 10, NP_BAD, NULL },
                { "host name, then another type", { 0, 8, 0, 0, 1, 'b', 7, 0, 1, 'x' }, 10, NP_BAD, NULL },
                { "only another type", { 0, 4, 1, 0, 1, 'x' }, 6, NP_BAD, NULL },
                { "one host name", { 0, 4, 0, 0, 1, 'b' }, 6, NP_DONE, "b" },
                { "empty host name", { 0, 3, 0, 0, 0 }, 5, NP_BAD, NULL },
                { "NUL in the name", { 0, 6, 0, 0, 3, 'a', 0, 'b' }, 8, NP_BAD, NULL },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                ext.n = 0;
                put_ext(&ext, 0, t[i].d, t[i].n);
                int r = parse_msg(&normal);
                if (r != t[i].want)
                        fprintf(stderr, "\n  %s: %d (%s)", t[i].name, r, tp.why ? tp.why : "");
                CU_ASSERT_EQUAL(r, t[i].want);
                if (t[i].sni)
                        CU_ASSERT_STRING_EQUAL(tp.sni, t[i].sni);
        }
}

static void test_extensions_malformed(void)
{
        uint8_t d[512];
        size_t n = sni_data(d, "a.example");

        /* the same extension type twice: which would the server read? */
        ext.n = 0;
        put_ext(&ext, 0, d, n);
        put_ext(&ext, 0, d, n);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_BAD);
        ext.n = 0;
        put_ext(&ext, 0x002b, "\x02\x03\x04", 3);
        put_ext(&ext, 0x002b, "\x02\x03\x04", 3);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_BAD);
        /* an extension whose length runs past the block */
        ext.n = 0;
        put16(&ext, 0x002b);
        put16(&ext, 9);
        put(&ext, "\x02\x03\x04", 3);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_BAD);
        /* half an extension header */
        ext.n = 0;
        put(&ext, "\x00\x2b\x00", 3);
        CU_ASSERT_EQUAL(parse_msg(&normal), NP_BAD);
        /* bytes after the extensions block */
        ext.n = 0;
        put_ext(&ext, 0, d, n);
        hello_msg(&msg, &normal, &ext);
        msg.b[msg.n++] = 0;
        msg.b[3]++;
        rec.n = fragment(msg.b, msg.n, 16384, rec.b);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_BAD);
        /* a block length shorter than what follows */
        ext.n = 0;
        put_ext(&ext, 0, d, n);
        hello_msg(&msg, &normal, &ext);
        msg.b[4 + 2 + 32 + 1 + 32 + 2 + 4 + 1 + 1]--;
        rec.n = fragment(msg.b, msg.n, 16384, rec.b);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_BAD);
}

static void test_fixed_fields(void)
{
        static const struct { const char *name; struct shape s; int want; } t[] = {
                { "normal", { 0x0303, 32, 4, 1, false }, NP_DONE },
                { "TLS 1.0 hello", { 0x0301, 0, 2, 1, false }, NP_DONE },
                { "session id of 33", { 0x0303, 33, 4, 1, false }, NP_BAD },
                { "no cipher suites", { 0x0303, 32, 0, 1, false }, NP_BAD },
                { "odd cipher suites", { 0x0303, 32, 3, 1, false }, NP_BAD },
                { "no compression", { 0x0303, 32, 4, 0, false }, NP_BAD },
                { "version 2.0", { 0x0200, 32, 4, 1, false }, NP_BAD },
                { "version 4.0", { 0x0400, 32, 4, 1, false }, NP_BAD },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                ext.n = 0;
                CU_ASSERT_EQUAL(parse_msg(&t[i].s), t[i].want);
        }
        /* a length field that runs past the message: the cipher suites */
        ext.n = 0;
        hello_msg(&msg, &normal, &ext);
        msg.b[4 + 2 + 32 + 1 + 32] = 0x7f;
        rec.n = fragment(msg.b, msg.n, 16384, rec.b);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_BAD);
        /* a message too short for its fixed fields */
        static const uint8_t tiny[] = { 22, 3, 1, 0, 8, 1, 0, 0, 4, 3, 3, 0, 0 };
        CU_ASSERT_EQUAL(parse_all(tiny, sizeof(tiny), &tp), NP_BAD);
        static const uint8_t empty[] = { 22, 3, 1, 0, 4, 1, 0, 0, 0 };
        CU_ASSERT_EQUAL(parse_all(empty, sizeof(empty), &tp), NP_BAD);
}

/* Not TLS, or not a ClientHello: refused as soon as it shows. */
static void test_records(void)
{
        static const struct { const char *name; uint8_t in[12]; size_t len; int want; } t[] = {
                { "plain HTTP", { 'G', 'E', 'T', ' ' }, 1, NP_BAD },
                { "application data", { 23, 3, 3, 0, 1, 0 }, 1, NP_BAD },
                { "alert", { 21, 3, 3, 0, 2, 2, 40 }, 1, NP_BAD },
                { "SSLv2 hello", { 0x80, 0x2e, 1, 3, 1 }, 1, NP_BAD },
                { "record version 2", { 22, 2, 0, 0, 1 }, 2, NP_BAD },
                { "empty record", { 22, 3, 1, 0, 0 }, 5, NP_BAD },
                { "record over 2^14", { 22, 3, 1, 0x40, 0x01 }, 5, NP_BAD },
                { "record of 2^14", { 22, 3, 1, 0x40, 0x00 }, 5, NP_NEED_MORE },
                { "ServerHello", { 22, 3, 3, 0, 4, 2, 0, 0, 0 }, 6, NP_BAD },
                { "Finished", { 22, 3, 3, 0, 4, 20, 0, 0, 0 }, 6, NP_BAD },
                { "hello over the cap", { 22, 3, 1, 0, 4, 1, 0, 0x40, 0x01 }, 9, NP_BAD },
                { "hello at the cap", { 22, 3, 1, 0, 4, 1, 0, 0x40, 0x00 }, 9, NP_NEED_MORE },
                { "nothing yet", { 0 }, 0, NP_NEED_MORE },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                int r = parse_all(t[i].in, t[i].len, &tp);
                if (r != t[i].want)
                        fprintf(stderr, "\n  %s: %d (%s)", t[i].name, r, tp.why ? tp.why : "");
                CU_ASSERT_EQUAL(r, t[i].want);
                if (r == NP_BAD)
                        CU_ASSERT(tp.why && strlen(tp.why) > 5);
        }
}

/* Another record type between two fragments of the hello. */
static void test_interleaved_record(void)
{
        const uint8_t *m = openssl_hello + 5;
        size_t n = sizeof(openssl_hello) - 5;

        rec.n = fragment(m, 100, 100, rec.b);
        put(&rec, "\x15\x03\x03\x00\x02\x01\x00", 7);
        rec.n += fragment(m + 100, n - 100, 16384, rec.b + rec.n);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_BAD);
}

/* A record may carry more than the hello (the next handshake message):
 * the hello ends where its own length says, and nothing past it is read
 * into the reassembly buffer, even when the hello's header came alone. */
static void test_record_holds_more(void)
{
        uint8_t d[512];
        static uint8_t payload[16384];

        ext.n = 0;
        put_ext(&ext, 0, d, sni_data(d, "more.example"));
        hello_msg(&msg, &normal, &ext);
        memcpy(payload, msg.b, msg.n);
        memset(payload + msg.n, 0x0b, 200);
        rec.n = fragment(payload, msg.n + 200, 16384, rec.b);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_DONE);
        CU_ASSERT_EQUAL(tp.hello_end, 5 + msg.n);
        CU_ASSERT_STRING_EQUAL(tp.sni, "more.example");

        /* the 4-byte header in one record, then a full record: the rest of
         * the hello and 16 KiB of what follows */
        memset(payload, 0x0b, sizeof(payload));
        memcpy(payload, msg.b + 4, msg.n - 4);
        rec.n = fragment(msg.b, 4, 4, rec.b);
        rec.n += fragment(payload, sizeof(payload), sizeof(payload), rec.b + rec.n);
        CU_ASSERT_EQUAL(parse_all(rec.b, rec.n, &tp), NP_DONE);
        CU_ASSERT_EQUAL(tp.hello_end, 5 + 4 + 5 + msg.n - 4);
}

/* A hello of exactly NP_TLS_HELLO_MAX bytes (two records) and one more. */
static void test_hello_cap(void)
{
        uint8_t d[512];

        for (int extra = 0; extra <= 1; extra++) {
                ext.n = 0;
                put_ext(&ext, 0, d, sni_data(d, "big.example"));
                hello_msg(&msg, &normal, &ext);
                size_t pad = NP_TLS_HELLO_MAX - msg.n - 4 + (size_t)extra;
                uint8_t *zeros = calloc(1, pad);
                CU_ASSERT_PTR_NOT_NULL_FATAL(zeros);
                put_ext(&ext, 21, zeros, pad); /* padding (RFC 7685) */
                free(zeros);
                hello_msg(&msg, &normal, &ext);
                CU_ASSERT_EQUAL(msg.n, NP_TLS_HELLO_MAX + (size_t)extra);
                rec.n = fragment(msg.b, msg.n, 16384, rec.b);
                int r = parse_all(rec.b, rec.n, &tp);
                CU_ASSERT_EQUAL(r, extra ? NP_BAD : NP_DONE);
                if (r == NP_DONE)
                        CU_ASSERT_STRING_EQUAL(tp.sni, "big.example");
        }
}

UNIT_SUITE(np_tls,
           UNIT_TEST(test_openssl_hello),
           UNIT_TEST(test_openssl_hello_split),
           UNIT_TEST(test_openssl_hello_fragmented),
           UNIT_TEST(test_sni_forms),
           UNIT_TEST(test_no_sni_and_ech),
           UNIT_TEST(test_sni_malformed),
           UNIT_TEST(test_extensions_malformed),
           UNIT_TEST(test_fixed_fields),
           UNIT_TEST(test_records),
           UNIT_TEST(test_interleaved_record),
           UNIT_TEST(test_record_holds_more),
           UNIT_TEST(test_hello_cap))
