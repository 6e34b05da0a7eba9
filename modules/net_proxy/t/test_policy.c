/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: what the egress hook decides by itself (np_policy_decide) and
 * which addresses a connection may use (np_policy_listed_address,
 * np_policy_address_ok): a name pattern, `*` included, never admits an
 * address literal in any of its spellings, nor a non-public address a
 * name resolved to; an address or prefix entry, or allow_private, does.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "np_internal.h"
#include "unit.h"

static void conf_make(struct np_conf *c, const char *const *allow, const char *const *deny,
                      const char *const *private_)
{
        static const char *const none[] = { NULL };
        const char *why = NULL;

        memset(c, 0, sizeof(*c));
        CU_ASSERT_EQUAL_FATAL(np_ports_add(&c->ports, "80,443", &why), 0);
        CU_ASSERT_EQUAL_FATAL(np_matcher_new(allow, &c->allow, NULL, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(np_matcher_new(deny ? deny : none, &c->deny, NULL, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(np_matcher_new(private_ ? private_ : none, &c->allow_private, NULL, NULL), 0);
}

static void conf_free(struct np_conf *c)
{
        np_matcher_free(c->allow);
        np_matcher_free(c->deny);
        np_matcher_free(c->allow_private);
}

static enum stk_verdict decide(const struct np_conf *c, const char *host, char *why, size_t size)
{
        struct np_host h;

        CU_ASSERT_EQUAL_FATAL(np_host_parse(host, strlen(host), &h), 0);
        return np_policy_decide(c, &h, 80, why, size);
}

/* Every spelling of loopback, link-local and a public address. */
static const char *const literals[] = {
        "127.0.0.1", "2130706433", "0x7f000001", "0x7f.1", "127.1", "017700000001",
        "::1", "[::1]", "::ffff:127.0.0.1", "[::ffff:7f00:1]",
        "169.254.169.254", "10.0.0.1", "[fe80::1]", "8.8.8.8", "[2001:4860:4860::8888]",
};

static void test_wildcard_never_admits_an_address(void)
{
        static const char *const allow[] = { "*", NULL };
        struct np_conf c;
        char why[160];

        conf_make(&c, allow, NULL, NULL);
        for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++) {
                enum stk_verdict v = decide(&c, literals[i], why, sizeof(why));
                if (v != STK_DENY)
                        fprintf(stderr, "\n  \"*\" admitted %s (%s)", literals[i], why);
                CU_ASSERT_EQUAL(v, STK_DENY);
                CU_ASSERT_PTR_NOT_NULL(strstr(why, "address literal"));
        }
        CU_ASSERT_EQUAL(decide(&c, "example.com", why, sizeof(why)), STK_ALLOW);
        CU_ASSERT_EQUAL(decide(&c, "localhost", why, sizeof(why)), STK_ALLOW); /* its addresses are checked */
        conf_free(&c);
}

static void test_address_entries_admit(void)
{
        static const char *const allow[] = { "*", "127.0.0.1", "fc00::/7", "10.0.0.0/8", NULL };
        static const char *const deny[] = { "10.9.0.0/16", NULL };
        static const struct { const char *host; enum stk_verdict want; } t[] = {
                { "127.0.0.1", STK_ALLOW }, { "2130706433", STK_ALLOW }, { "0x7f000001", STK_ALLOW },
                { "::ffff:127.0.0.1", STK_ALLOW },      /* mapped: matches the IPv4 entry */
                { "127.0.0.2", STK_DENY }, { "::1", STK_DENY }, { "169.254.169.254", STK_DENY },
                { "fd00::5", STK_ALLOW }, { "10.1.2.3", STK_ALLOW }, { "10.9.1.1", STK_DENY },
        };
        struct np_conf c;
        char why[160];

        conf_make(&c, allow, deny, NULL);
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_host h;
                enum stk_verdict v = decide(&c, t[i].host, why, sizeof(why));
                if (v != t[i].want)
                        fprintf(stderr, "\n  %s: %d (%s)", t[i].host, v, why);
                CU_ASSERT_EQUAL(v, t[i].want);
                CU_ASSERT_EQUAL_FATAL(np_host_parse(t[i].host, strlen(t[i].host), &h), 0);
                CU_ASSERT_EQUAL(np_policy_listed_address(&c, &h), t[i].want == STK_ALLOW);
        }
        conf_free(&c);
}

static void test_deny_star_denies_addresses(void)
{
        static const char *const allow[] = { "127.0.0.1", NULL }, *const deny[] = { "*", NULL };
        struct np_conf c;
        char why[160];

        conf_make(&c, allow, deny, NULL);
        CU_ASSERT_EQUAL(decide(&c, "127.0.0.1", why, sizeof(why)), STK_DENY);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "network.deny"));
        conf_free(&c);
}

static struct sockaddr_storage sa(const char *text)
{
        struct sockaddr_storage s = { 0 };

        if (strchr(text, ':')) {
                s.ss_family = AF_INET6;
                CU_ASSERT_EQUAL(inet_pton(AF_INET6, text, &((struct sockaddr_in6 *) &s)->sin6_addr), 1);
        } else {
                s.ss_family = AF_INET;
                CU_ASSERT_EQUAL(inet_pton(AF_INET, text, &((struct sockaddr_in *) &s)->sin_addr), 1);
        }
        return s;
}

/* What a name (any name, however it was allowed) may resolve to. */
static void test_resolved_addresses(void)
{
        static const char *const allow[] = { "*", NULL }, *const priv[] = { "192.168.7.0/24", NULL };
        static const struct { const char *addr; bool ok; } t[] = {
                { "127.0.0.1", false }, { "::1", false }, { "::ffff:127.0.0.1", false },
                { "169.254.169.254", false }, { "10.0.0.1", false }, { "fe80::1", false },
                { "100.64.0.1", false }, { "0.0.0.0", false },
                { "192.168.7.9", true },                 /* allow_private */
                { "::ffff:192.168.7.9", true },
                { "93.184.215.14", true }, { "2606:2800:21f:cb07:6820:80da:af6b:8b2c", true },
        };
        struct np_conf c;

        conf_make(&c, allow, NULL, priv);
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct sockaddr_storage s = sa(t[i].addr);
                bool ok = np_policy_address_ok(&c, &s, false);
                if (ok != t[i].ok)
                        fprintf(stderr, "\n  resolved %s: %d", t[i].addr, ok);
                CU_ASSERT_EQUAL(ok, t[i].ok);
                CU_ASSERT(np_policy_address_ok(&c, &s, true)); /* a listed address is used as given */
        }
        conf_free(&c);
}

UNIT_SUITE(np_policy,
           UNIT_TEST(test_wildcard_never_admits_an_address),
           UNIT_TEST(test_address_entries_admit),
           UNIT_TEST(test_deny_star_denies_addresses),
           UNIT_TEST(test_resolved_addresses))
