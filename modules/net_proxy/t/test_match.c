/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: host normalization, address-literal detection and the
 * allow/deny matcher (np_match.h), table-driven.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_match.h"
#include "unit.h"

#define L63 "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0"

static void test_normalize(void)
{
        static const struct { const char *in, *want; } t[] = {
                { "example.com", "example.com" },
                { "Example.COM", "example.com" },
                { "example.com.", "example.com" },      /* one trailing dot */
                { "example.com..", NULL },
                { ".", NULL },
                { "", NULL },
                { "a..b", NULL },
                { ".a", NULL },
                { "-a.com", NULL },
                { "a-.com", NULL },
                { "a.-b.com", NULL },
                { "example.com-", NULL },               /* the last label too */
                { "example-.", NULL },
                { "a-b.com", "a-b.com" },
                { "a--b.com", "a--b.com" },
                { "_dmarc.Example.com", "_dmarc.example.com" }, /* '_' allowed */
                { "a_.b", "a_.b" },
                { "xn--bcher-kva.example", "xn--bcher-kva.example" }, /* punycode as given */
                { "b\xc3\xbc" "cher.de", NULL },     /* UTF-8: no IDNA */
                { "a b.com", NULL },
                { "a\tb.com", NULL },
                { "a/b", NULL },
                { "a:b", NULL },
                { "a%2eb", NULL },
                { "*.a.com", NULL },
                { "a.com\r", NULL },
                { "127.0.0.1", "127.0.0.1" },           /* syntax only */
                { L63 ".com", L63 ".com" },
                { L63 "x.com", NULL },                  /* 64-character label */
                { "localhost", "localhost" },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                char out[NP_HOST_MAX + 1];
                int r = np_host_normalize(t[i].in, out, sizeof(out));
                if (t[i].want ? r != (int)strlen(t[i].want) || strcmp(out, t[i].want) : r != -EINVAL)
                        fprintf(stderr, "\n  normalize(\"%s\") = %d", t[i].in, r);
                if (t[i].want) {
                        CU_ASSERT_EQUAL(r, (int)strlen(t[i].want));
                        CU_ASSERT_STRING_EQUAL(out, t[i].want);
                } else {
                        CU_ASSERT_EQUAL(r, -EINVAL);
                }
        }
}

/* 253 characters is the longest name, with or without the trailing dot. */
static void test_normalize_lengths(void)
{
        char name[300], out[NP_HOST_MAX + 1];

        memset(name, 'a', sizeof(name));
        for (size_t i = 63; i < sizeof(name); i += 64)
                name[i] = '.';
        name[253] = '\0';
        CU_ASSERT_EQUAL(np_host_normalize(name, out, sizeof(out)), 253);
        name[253] = '.';
        name[254] = '\0';
        CU_ASSERT_EQUAL(np_host_normalize(name, out, sizeof(out)), 253);
        name[253] = 'a';
        CU_ASSERT_EQUAL(np_host_normalize(name, out, sizeof(out)), -EINVAL);
        /* out too small; and an embedded NUL is no character of a name */
        CU_ASSERT_EQUAL(np_host_normalize("example.com", out, 11), -ENOBUFS);
        CU_ASSERT_EQUAL(np_host_normalize("example.com", out, 12), 11);
        CU_ASSERT_EQUAL(np_host_normalize_n("a\0b.com", 7, out, sizeof(out)), -EINVAL);
}

static void test_is_ip(void)
{
        static const struct { const char *in; int want; const char *addr; } t[] = {
                { "127.0.0.1", 1, "127.0.0.1" },
                { "127.1", 1, "127.0.0.1" },
                { "0x7f.1", 1, "127.0.0.1" },
                { "0x7F.0.0.1", 1, "127.0.0.1" },
                { "0177.0.0.1", 1, "127.0.0.1" },
                { "017700000001", 1, "127.0.0.1" },
                { "2130706433", 1, "127.0.0.1" },
                { "0x7f000001", 1, "127.0.0.1" },
                { "0", 1, "0.0.0.0" },
                { "1.2.3.999", -EINVAL, NULL },         /* numeric, but no address */
                { "1.2.3.4.5", -EINVAL, NULL },
                { "4294967296", -EINVAL, NULL },
                { "08", -EINVAL, NULL },                /* bad octal */
                { "example.123", -EINVAL, NULL },       /* last label numeric */
                { "foo.0x", -EINVAL, NULL },
                { "foo.0x1f", -EINVAL, NULL },
                { "0xg.com", 0, NULL },
                { "1e100.net", 0, NULL },
                { "123.example", 0, NULL },
                { "example.com", 0, NULL },
                { "::1", 1, "::1" },
                { "[::1]", 1, "::1" },
                { "[::ffff:127.0.0.1]", 1, "::ffff:127.0.0.1" },
                { "fe80::1%eth0", -EINVAL, NULL },      /* zone ids: never */
                { "[fe80::1%25eth0]", -EINVAL, NULL },
                { "[127.0.0.1]", -EINVAL, NULL },
                { ":::", -EINVAL, NULL },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_ip ip = { 0 };
                char text[64] = "";
                int r = np_host_is_ip(t[i].in, &ip);
                if (r == 1)
                        np_ip_to_string(&ip, text, sizeof(text));
                if (r != t[i].want || (t[i].addr && strcmp(text, t[i].addr)))
                        fprintf(stderr, "\n  is_ip(\"%s\") = %d %s", t[i].in, r, text);
                CU_ASSERT_EQUAL(r, t[i].want);
                if (t[i].addr)
                        CU_ASSERT_STRING_EQUAL(text, t[i].addr);
        }
}

static void test_host_parse(void)
{
        static const struct { const char *in; enum np_host_kind kind; const char *text; } t[] = {
                { "Example.Com.", NP_HOST_NAME, "example.com" },
                { "127.1", NP_HOST_IPV4, "127.0.0.1" },
                { "2130706433", NP_HOST_IPV4, "127.0.0.1" },
                { "[::FFFF:127.0.0.1]", NP_HOST_IPV6, "::ffff:127.0.0.1" },
                { "[2001:DB8::0:1]", NP_HOST_IPV6, "2001:db8::1" },
                { "::1", NP_HOST_IPV6, "::1" },
                { "", 0, NULL },
                { "[::1", 0, NULL },
                { "::1]", 0, NULL },
                { "[]", 0, NULL },
                { "1.2.3.4 ", 0, NULL },
                { "1.2.3.999", 0, NULL },
                { "a..b", 0, NULL },
                { "host:80", 0, NULL },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_host h;
                int r = np_host_parse(t[i].in, strlen(t[i].in), &h);
                if (t[i].text ? r != 0 || strcmp(h.text, t[i].text) : r != -EINVAL)
                        fprintf(stderr, "\n  host_parse(\"%s\") = %d", t[i].in, r);
                if (!t[i].text) {
                        CU_ASSERT_EQUAL(r, -EINVAL);
                        continue;
                }
                CU_ASSERT_EQUAL_FATAL(r, 0);
                CU_ASSERT_EQUAL(h.kind, t[i].kind);
                CU_ASSERT_STRING_EQUAL(h.text, t[i].text);
                CU_ASSERT_EQUAL(h.len, strlen(t[i].text));
        }
}

static const char *find(const struct np_matcher *m, const char *host)
{
        struct np_host h;

        if (np_host_parse(host, strlen(host), &h) < 0)
                return "(unparsable)";
        return np_matcher_find(m, &h, NULL);
}

static void test_matcher(void)
{
        static const char *const pats[] = {
                "example.com", "*.github.com", "*.b.c", "10.0.0.0/8", "::1", "[fe80::1]",
                "192.168.1.1", "fc00::/7", "Upper.Case.ORG.", "0.0.0.0/0", NULL,
        };
        static const struct { const char *host, *want; } t[] = {
                { "example.com", "example.com" },
                { "EXAMPLE.com.", "example.com" },
                { "www.example.com", NULL },            /* exact means exact */
                { "github.com", NULL },                 /* *.x is below x only */
                { "api.github.com", "*.github.com" },
                { "a.b.api.github.com", "*.github.com" },
                { "evilgithub.com", NULL },
                { "github.com.evil.com", NULL },
                { "b.c", NULL },
                { "a.b.c", "*.b.c" },
                { "upper.case.org", "upper.case.org" },
                { "10.1.2.3", "10.0.0.0/8" },
                { "0x0a.1", "10.0.0.0/8" },             /* numeric forms are addresses */
                { "::ffff:10.0.0.1", "10.0.0.0/8" },    /* mapped matches IPv4 */
                { "127.1", "0.0.0.0/0" },
                { "::1", "::1" },
                { "::2", NULL },
                { "fe80::1", "fe80::1" },
                { "fd12::1", "fc00::/7" },
                { "192.168.1.1", "192.168.1.1" },       /* the first listed wins */
                { "8.8.8.8", "0.0.0.0/0" },
                { "fe::", NULL },
        };
        struct np_matcher *m = NULL;
        const char *bad = NULL, *why = NULL;

        CU_ASSERT_EQUAL_FATAL(np_matcher_new(pats, &m, &bad, &why), 0);
        CU_ASSERT_EQUAL(np_matcher_count(m), 10);
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                const char *got = find(m, t[i].host);
                bool same = got && t[i].want ? strcmp(got, t[i].want) == 0 : got == t[i].want;
                if (!same)
                        fprintf(stderr, "\n  match(%s) = %s, want %s", t[i].host, got ? got : "-",
                                t[i].want ? t[i].want : "-");
                CU_ASSERT(same);
        }
        m = np_matcher_free(m);
        CU_ASSERT_PTR_NULL(m);
}

/* `*` matches every destination; no pattern matches nothing. */
static void test_matcher_all_and_none(void)
{
        static const char *const all[] = { "example.com", "*", NULL }, *const none[] = { NULL };
        struct np_matcher *m = NULL;

        CU_ASSERT_EQUAL_FATAL(np_matcher_new(all, &m, NULL, NULL), 0);
        CU_ASSERT_STRING_EQUAL(find(m, "anything.test"), "*");
        CU_ASSERT_STRING_EQUAL(find(m, "169.254.169.254"), "*");
        CU_ASSERT_STRING_EQUAL(find(m, "::1"), "*");
        /* ...but for the allow list's question, "is this address listed?",
         * `*` is a name pattern and lists no address. */
        struct np_host h;
        CU_ASSERT_EQUAL_FATAL(np_host_parse("169.254.169.254", 15, &h), 0);
        CU_ASSERT_PTR_NULL(np_matcher_find_address(m, &h));
        CU_ASSERT_EQUAL_FATAL(np_host_parse("anything.test", 13, &h), 0);
        CU_ASSERT_PTR_NULL(np_matcher_find_address(m, &h));
        np_matcher_free(m);
        CU_ASSERT_EQUAL_FATAL(np_matcher_new(none, &m, NULL, NULL), 0);
        CU_ASSERT_EQUAL(np_matcher_count(m), 0);
        CU_ASSERT_PTR_NULL(find(m, "example.com"));
        CU_ASSERT_PTR_NULL(find(m, "127.0.0.1"));
        np_matcher_free(m);
        CU_ASSERT_PTR_NULL(np_matcher_free(NULL));
}

static void test_matcher_invalid(void)
{
        static const char *const bad_patterns[] = {
                "", "*.", "**", "a*.com", "*.*.com", "a.*.com", "*example.com", "example.com:443",
                "http://example.com", "127.1", "0x7f.0.0.1", "1.2.3.999", "10.0.0.1/8", "10.0.0.0/33",
                "::1/129", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/-1", "10.0.0.0/0008", "*.10.0.0.1",
                "ex ample.com", "b\xc3\xbc" "cher.de", "fe80::1%eth0", "a..b", "-a.com", "example.com/",
                "/8",
        };

        for (size_t i = 0; i < sizeof(bad_patterns) / sizeof(bad_patterns[0]); i++) {
                const char *list[] = { "ok.example", bad_patterns[i], "ok2.example", NULL };
                struct np_matcher *m = NULL;
                const char *bad = NULL, *why = NULL;
                int r = np_matcher_new(list, &m, &bad, &why);
                if (r != -EINVAL)
                        fprintf(stderr, "\n  pattern \"%s\" accepted", bad_patterns[i]);
                CU_ASSERT_EQUAL(r, -EINVAL);
                CU_ASSERT_PTR_NULL(m);
                CU_ASSERT_PTR_EQUAL(bad, bad_patterns[i]); /* names the offending text */
                CU_ASSERT(why && strlen(why) > 10);
                np_matcher_free(m);
        }
}

static void test_matcher_duplicates(void)
{
        static const char *const pats[] = { "a.com", "A.com.", "a.com", "*.a.com", "*.A.COM",
                                            "10.0.0.0/8", NULL };
        struct np_matcher *m = NULL;

        CU_ASSERT_EQUAL_FATAL(np_matcher_new(pats, &m, NULL, NULL), 0);
        CU_ASSERT_EQUAL(np_matcher_count(m), 3);
        CU_ASSERT_STRING_EQUAL(find(m, "a.com"), "a.com");
        CU_ASSERT_STRING_EQUAL(find(m, "x.a.com"), "*.a.com");
        np_matcher_free(m);
}

/*
 * 20,000 patterns: every one matches what it should, near misses do not,
 * and the cost of a lookup (slots examined) stays a small multiple of the
 * host's labels; a linear matcher would examine ~20,000.
 */
#define N_MANY 10000
static void test_matcher_many(void)
{
        char **pats = calloc(2 * N_MANY + 1, sizeof(*pats));
        struct np_matcher *m = NULL;
        size_t worst = 0, sum = 0, lookups = 0;
        char host[128];

        CU_ASSERT_PTR_NOT_NULL_FATAL(pats);
        for (int i = 0; i < N_MANY; i++) {
                CU_ASSERT_FATAL(asprintf(&pats[2 * i], "host%d.zone%d.example", i, i % 97) > 0);
                CU_ASSERT_FATAL(asprintf(&pats[2 * i + 1], "*.sub%d.example.org", i) > 0);
        }
        CU_ASSERT_EQUAL_FATAL(np_matcher_new((const char *const *)pats, &m, NULL, NULL), 0);
        CU_ASSERT_EQUAL(np_matcher_count(m), 2 * N_MANY);
        for (int i = 0; i < N_MANY; i++) {
                for (int k = 0; k < 5; k++) {
                        struct np_host h;
                        size_t cost = 0;
                        bool hit = k == 0 || k == 2;
                        switch (k) {
                        case 0: snprintf(host, sizeof(host), "host%d.zone%d.example", i, i % 97); break;
                        case 1: snprintf(host, sizeof(host), "x.host%d.zone%d.example", i, i % 97); break;
                        case 2: snprintf(host, sizeof(host), "a.b.c.sub%d.example.org", i); break;
                        case 3: snprintf(host, sizeof(host), "sub%d.example.org", i); break;
                        default: snprintf(host, sizeof(host), "host%d.zone%d.example.net", i, i % 97); break;
                        }
                        CU_ASSERT_EQUAL_FATAL(np_host_parse(host, strlen(host), &h), 0);
                        const char *got = np_matcher_find(m, &h, &cost);
                        CU_ASSERT(hit ? got != NULL : got == NULL);
                        worst = cost > worst ? cost : worst;
                        sum += cost;
                        lookups++;
                }
        }
        /* At most 6 labels per host here: 7 table lookups. */
        CU_ASSERT(worst < 7 * 8);
        CU_ASSERT(sum / lookups < 12);
        fprintf(stderr, "\n  %zu lookups over %d patterns: %zu slots on average, %zu at worst ",
                lookups, 2 * N_MANY, sum / lookups, worst);
        np_matcher_free(m);
        for (int i = 0; i < 2 * N_MANY; i++)
                free(pats[i]);
        free(pats);
}

UNIT_SUITE(np_match,
           UNIT_TEST(test_normalize),
           UNIT_TEST(test_normalize_lengths),
           UNIT_TEST(test_is_ip),
           UNIT_TEST(test_host_parse),
           UNIT_TEST(test_matcher),
           UNIT_TEST(test_matcher_all_and_none),
           UNIT_TEST(test_matcher_invalid),
           UNIT_TEST(test_matcher_duplicates),
           UNIT_TEST(test_matcher_many))
