/* SPDX-License-Identifier: MIT */
/*
 * Fuzz host normalization, address literals, patterns, resolve entries and
 * port lists with the same bytes.  Properties: normalization is idempotent
 * and stays within the name rules; np_host_parse's canonical text parses
 * back to the same host; a pattern that compiles as a name matches that
 * name, and one that compiles as an address matches that address; `*`
 * matches every host but lists no address (np_matcher_find_address), and
 * an address a matcher lists is one it matches; address classification
 * never fails on any 16 bytes.
 */
#include <errno.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "np_addr.h"
#include "np_match.h"

static void check_normalize(const char *s, size_t len)
{
        char out[NP_HOST_MAX + 1], again[NP_HOST_MAX + 1];
        int n = np_host_normalize_n(s, len, out, sizeof(out));

        if (n < 0) {
                FUZZ_CHECK(n == -EINVAL);
                return;
        }
        FUZZ_CHECK(n > 0 && n <= NP_HOST_MAX && (size_t)n == strlen(out));
        FUZZ_CHECK(np_host_normalize(out, again, sizeof(again)) == n && strcmp(out, again) == 0);
        for (int i = 0; i < n; i++)
                FUZZ_CHECK(strchr("abcdefghijklmnopqrstuvwxyz0123456789-_.", out[i]) != NULL);
        FUZZ_CHECK(out[0] != '.' && out[0] != '-' && out[n - 1] != '.' && out[n - 1] != '-');
        FUZZ_CHECK(strstr(out, "..") == NULL);
}

static void check_star(const struct np_host *h)
{
        static struct np_matcher *star;
        static const char *const pats[] = { "*", NULL };

        if (!star)
                FUZZ_CHECK(np_matcher_new(pats, &star, NULL, NULL) == 0); /* kept for the whole run */
        FUZZ_CHECK(np_matcher_match(star, h));
        FUZZ_CHECK(np_matcher_find_address(star, h) == NULL);
}

static void check_parse(const char *s, size_t len)
{
        struct np_host h, h2;

        if (np_host_parse(s, len, &h) < 0)
                return;
        check_star(&h);
        FUZZ_CHECK(h.len == strlen(h.text) && h.len > 0);
        FUZZ_CHECK(np_host_parse(h.text, h.len, &h2) == 0);
        FUZZ_CHECK(h2.kind == h.kind && strcmp(h2.text, h.text) == 0);
        if (h.kind != NP_HOST_NAME)
                FUZZ_CHECK(h2.ip.family == h.ip.family && memcmp(h2.ip.bytes, h.ip.bytes, 16) == 0);
        (void)np_addr_classify(&h.ip);
}

static void check_pattern(const char *s)
{
        const char *pats[] = { s, NULL }, *bad = NULL, *why = NULL;
        struct np_matcher *m = NULL;
        struct np_host h;
        int r = np_matcher_new(pats, &m, &bad, &why);

        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL && bad == s && why != NULL && m == NULL);
                return;
        }
        FUZZ_CHECK(np_matcher_count(m) <= 1);
        if (np_host_parse(s, strlen(s), &h) == 0 && h.kind == NP_HOST_NAME && s[0] != '*')
                FUZZ_CHECK(np_matcher_match(m, &h));
        if (np_host_parse(s, strlen(s), &h) == 0 && h.kind != NP_HOST_NAME)
                FUZZ_CHECK(np_matcher_find_address(m, &h) != NULL);
        if (np_host_parse(s, strlen(s), &h) == 0 && np_matcher_find_address(m, &h))
                FUZZ_CHECK(h.kind != NP_HOST_NAME && np_matcher_match(m, &h));
        if (strncmp(s, "*.", 2) == 0 && strlen(s) < 200) {
                char sub[256];
                snprintf(sub, sizeof(sub), "x.%s", s + 2);
                if (np_host_parse(sub, strlen(sub), &h) == 0)
                        FUZZ_CHECK(np_matcher_match(m, &h));
        }
        np_matcher_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = fuzz_copy(data, size), *z = malloc(size + 1);
        struct np_resolve res;
        struct np_ports ports;
        struct np_ip ip = { .family = AF_INET6 };
        const char *why;

        FUZZ_CHECK(z != NULL);
        memcpy(z, data, size);
        z[size] = '\0';
        check_normalize(s, size);
        check_parse(s, size);
        check_pattern(z);
        if (np_resolve_parse(z, &res, &why) == 0)
                FUZZ_CHECK(res.host[0] != '\0' && (res.ip.family == AF_INET || res.ip.family == AF_INET6));
        np_ports_clear(&ports);
        (void)np_ports_add(&ports, z, &why); /* any result; must not crash */
        if (size >= 16) {
                memcpy(ip.bytes, data, 16);
                FUZZ_CHECK(np_addr_classify(&ip) < NP_ADDR_UNKNOWN);
                ip.family = AF_INET;
                FUZZ_CHECK(np_addr_classify(&ip) < NP_ADDR_UNKNOWN);
        }
        free(s);
        free(z);
        return 0;
}
