/* SPDX-License-Identifier: MIT */
/* net_proxy: address classes, resolve-map entries and port sets (np_addr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "np_addr.h"
#include "unit.h"

static void test_classify(void)
{
        static const struct { const char *addr; enum np_addr_class want; } t[] = {
                { "8.8.8.8", NP_ADDR_PUBLIC },
                { "1.1.1.1", NP_ADDR_PUBLIC },
                { "0.0.0.0", NP_ADDR_UNSPECIFIED },
                { "0.1.2.3", NP_ADDR_UNSPECIFIED },
                { "10.0.0.1", NP_ADDR_PRIVATE },
                { "10.255.255.255", NP_ADDR_PRIVATE },
                { "11.0.0.0", NP_ADDR_PUBLIC },
                { "100.63.255.255", NP_ADDR_PUBLIC },
                { "100.64.0.0", NP_ADDR_CGNAT },
                { "100.127.255.255", NP_ADDR_CGNAT },
                { "100.128.0.0", NP_ADDR_PUBLIC },
                { "127.0.0.1", NP_ADDR_LOOPBACK },
                { "127.255.255.254", NP_ADDR_LOOPBACK },
                { "169.254.169.254", NP_ADDR_LINK_LOCAL }, /* cloud metadata */
                { "169.254.0.1", NP_ADDR_LINK_LOCAL },
                { "172.15.255.255", NP_ADDR_PUBLIC },
                { "172.16.0.0", NP_ADDR_PRIVATE },
                { "172.31.255.255", NP_ADDR_PRIVATE },
                { "172.32.0.0", NP_ADDR_PUBLIC },
                { "192.0.0.8", NP_ADDR_PROTOCOL },
                { "192.0.2.1", NP_ADDR_DOCUMENTATION },
                { "192.88.99.1", NP_ADDR_RESERVED },
                { "192.168.0.1", NP_ADDR_PRIVATE },
                { "192.169.0.1", NP_ADDR_PUBLIC },
                { "198.17.255.255", NP_ADDR_PUBLIC },
                { "198.18.0.1", NP_ADDR_BENCHMARK },
                { "198.19.255.255", NP_ADDR_BENCHMARK },
                { "198.20.0.0", NP_ADDR_PUBLIC },
                { "198.51.100.7", NP_ADDR_DOCUMENTATION },
                { "203.0.113.9", NP_ADDR_DOCUMENTATION },
                { "224.0.0.1", NP_ADDR_MULTICAST },
                { "239.255.255.250", NP_ADDR_MULTICAST },
                { "240.0.0.1", NP_ADDR_RESERVED },
                { "255.255.255.254", NP_ADDR_RESERVED },
                { "255.255.255.255", NP_ADDR_BROADCAST },
                { "223.255.255.255", NP_ADDR_PUBLIC },
                { "::", NP_ADDR_UNSPECIFIED },
                { "::1", NP_ADDR_LOOPBACK },
                { "2606:4700::1111", NP_ADDR_PUBLIC },
                { "2a00:1450:4001::200e", NP_ADDR_PUBLIC },
                { "::ffff:127.0.0.1", NP_ADDR_LOOPBACK },     /* mapped */
                { "::ffff:8.8.8.8", NP_ADDR_PUBLIC },
                { "::ffff:169.254.169.254", NP_ADDR_LINK_LOCAL },
                { "::ffff:0:10.0.0.1", NP_ADDR_PRIVATE },     /* SIIT */
                { "::127.0.0.1", NP_ADDR_LOOPBACK },          /* IPv4-compatible */
                { "::10.1.1.1", NP_ADDR_PRIVATE },
                { "::8.8.8.8", NP_ADDR_PUBLIC },
                { "64:ff9b::127.0.0.1", NP_ADDR_LOOPBACK },   /* NAT64 */
                { "64:ff9b::8.8.8.8", NP_ADDR_PUBLIC },
                { "64:ff9b:1::1", NP_ADDR_PRIVATE },          /* local-use NAT64 */
                { "2002:7f00:1::", NP_ADDR_LOOPBACK },        /* 6to4 of 127.0.0.1 */
                { "2002:a9fe:a9fe::1", NP_ADDR_LINK_LOCAL },  /* 6to4 of the metadata address */
                { "2002:808:808::1", NP_ADDR_PUBLIC },
                { "fe80::1", NP_ADDR_LINK_LOCAL },
                { "febf::1", NP_ADDR_LINK_LOCAL },
                { "fec0::1", NP_ADDR_SITE_LOCAL },
                { "fc00::1", NP_ADDR_UNIQUE_LOCAL },
                { "fd00:ec2::254", NP_ADDR_UNIQUE_LOCAL },    /* AWS IPv6 metadata */
                { "ff02::1", NP_ADDR_MULTICAST },
                { "2001:db8::1", NP_ADDR_DOCUMENTATION },
                { "3fff::1", NP_ADDR_DOCUMENTATION },
                { "2001:2::1", NP_ADDR_BENCHMARK },
                { "2001::1", NP_ADDR_PROTOCOL },              /* Teredo */
                { "100::1", NP_ADDR_RESERVED },
                { "::1:0:0:0", NP_ADDR_RESERVED },
                { "4000::1", NP_ADDR_RESERVED },              /* outside 2000::/3 */
                { "5f00::1", NP_ADDR_RESERVED },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_ip ip;
                CU_ASSERT_EQUAL_FATAL(np_ip_parse(t[i].addr, strlen(t[i].addr), &ip), 0);
                enum np_addr_class c = np_addr_classify(&ip);
                if (c != t[i].want)
                        fprintf(stderr, "\n  %s: %s, want %s", t[i].addr, np_addr_class_name(c),
                                np_addr_class_name(t[i].want));
                CU_ASSERT_EQUAL(c, t[i].want);
        }
}

static void test_classify_sockaddr(void)
{
        struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(443) };
        struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
        struct sockaddr_un un = { .sun_family = AF_UNIX };
        struct np_ip ip, zero = { 0 };
        uint16_t port = 0;

        CU_ASSERT_EQUAL(inet_pton(AF_INET, "169.254.169.254", &in.sin_addr), 1);
        CU_ASSERT_EQUAL(np_addr_classify_sockaddr((struct sockaddr *)&in, sizeof(in)), NP_ADDR_LINK_LOCAL);
        CU_ASSERT_EQUAL(np_ip_from_sockaddr((struct sockaddr *)&in, sizeof(in), &ip, &port), 0);
        CU_ASSERT_EQUAL(port, 443);
        CU_ASSERT_EQUAL(inet_pton(AF_INET6, "2606:4700::1111", &in6.sin6_addr), 1);
        CU_ASSERT_EQUAL(np_addr_classify_sockaddr((struct sockaddr *)&in6, sizeof(in6)), NP_ADDR_PUBLIC);
        /* fail closed: unknown family, short length, unknown np_ip family */
        CU_ASSERT_EQUAL(np_addr_classify_sockaddr((struct sockaddr *)&un, sizeof(un)), NP_ADDR_UNKNOWN);
        CU_ASSERT_EQUAL(np_addr_classify_sockaddr((struct sockaddr *)&in, sizeof(in) - 1), NP_ADDR_UNKNOWN);
        CU_ASSERT_EQUAL(np_ip_from_sockaddr((struct sockaddr *)&un, sizeof(un), &ip, NULL), -EAFNOSUPPORT);
        CU_ASSERT_EQUAL(np_addr_classify(&zero), NP_ADDR_UNKNOWN);
        for (int c = 0; c < NP_ADDR_CLASS_MAX; c++) {
                CU_ASSERT(strcmp(np_addr_class_name((enum np_addr_class)c), "unknown") != 0 ||
                          c == NP_ADDR_UNKNOWN);
                for (int d = 0; d < c; d++)
                        CU_ASSERT(strcmp(np_addr_class_name((enum np_addr_class)c),
                                         np_addr_class_name((enum np_addr_class)d)) != 0);
        }
}

static void test_ip_parse(void)
{
        static const char *const bad[] = {
                "", "127.1", "0x7f.0.0.1", "1.2.3.4.", " 1.2.3.4", "1.2.3.256", "fe80::1%eth0",
                "[::1", "::1]", "[1.2.3.4]", "::g", "1.2.3.04", "example.com",
        };
        struct np_ip ip;
        char text[64];

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (np_ip_parse(bad[i], strlen(bad[i]), &ip) != -EINVAL)
                        fprintf(stderr, "\n  np_ip_parse accepted \"%s\"", bad[i]);
                CU_ASSERT_EQUAL(np_ip_parse(bad[i], strlen(bad[i]), &ip), -EINVAL);
        }
        CU_ASSERT_EQUAL(np_ip_parse("[::1]", 5, &ip), 0);
        CU_ASSERT_EQUAL(ip.family, AF_INET6);
        CU_ASSERT_EQUAL(np_ip_to_string(&ip, text, sizeof(text)), 3);
        CU_ASSERT_EQUAL(np_ip_to_string(&ip, text, 3), -ENOBUFS);
        CU_ASSERT_EQUAL(np_ip_parse("10.0.0.1", 8, &ip), 0);
        CU_ASSERT(np_ip_in_prefix(&ip, &ip, 32));
}

static void test_resolve(void)
{
        static const struct { const char *in, *host; uint16_t port; const char *addr; } good[] = {
                { "example.com:443:127.0.0.1", "example.com", 443, "127.0.0.1" },
                { "example.com:127.0.0.1", "example.com", 0, "127.0.0.1" },
                { "example.com:443:[::1]", "example.com", 443, "::1" },
                { "example.com:[::1]", "example.com", 0, "::1" },
                { "Example.COM.:80:10.0.0.1", "example.com", 80, "10.0.0.1" },
                { "a:65535:1.2.3.4", "a", 65535, "1.2.3.4" },
        };
        static const char *const bad[] = {
                "example.com", "example.com:443", "example.com:0:1.2.3.4", "example.com:65536:1.2.3.4",
                "example.com:443:::1", "127.0.0.1:443:1.2.3.4", "[::1]:443:1.2.3.4", "example.com:443:127.1",
                ":443:1.2.3.4", "example.com:443:", "example.com:", "exa mple.com:1.2.3.4",
                "example.com:443:[::1", "example.com:44x:1.2.3.4", "example.com:443:1.2.3.4:5",
                "example.com:[::1]:443", "example.com:443:1.2.3.4,5.6.7.8", "*.example.com:1.2.3.4",
        };

        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                struct np_resolve r;
                char text[64] = "";
                const char *why = NULL;
                CU_ASSERT_EQUAL_FATAL(np_resolve_parse(good[i].in, &r, &why), 0);
                CU_ASSERT_STRING_EQUAL(r.host, good[i].host);
                CU_ASSERT_EQUAL(r.port, good[i].port);
                np_ip_to_string(&r.ip, text, sizeof(text));
                CU_ASSERT_STRING_EQUAL(text, good[i].addr);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct np_resolve r;
                const char *why = NULL;
                int rc = np_resolve_parse(bad[i], &r, &why);
                if (rc != -EINVAL)
                        fprintf(stderr, "\n  resolve accepted \"%s\"", bad[i]);
                CU_ASSERT_EQUAL(rc, -EINVAL);
                CU_ASSERT(why && strlen(why) > 10);
        }
}

static void test_ports(void)
{
        static const char *const bad[] = {
                "0", "65536", "", ",", "80,", ",80", "8100-8000", "-5", "5-", "a", "80 ", " 80",
                "1-2-3", "99999", "+80", "0x50",
        };
        struct np_ports p;
        const char *why = NULL;

        np_ports_clear(&p);
        CU_ASSERT_EQUAL(np_ports_add(&p, "443", &why), 0);
        CU_ASSERT(np_ports_has(&p, 443));
        CU_ASSERT(!np_ports_has(&p, 444));
        CU_ASSERT(!np_ports_has(&p, 442));
        CU_ASSERT_EQUAL(np_ports_add(&p, "80,8000-8100", &why), 0);
        CU_ASSERT(np_ports_has(&p, 80) && np_ports_has(&p, 8000) && np_ports_has(&p, 8100));
        CU_ASSERT(!np_ports_has(&p, 7999) && !np_ports_has(&p, 8101) && !np_ports_has(&p, 0));
        np_ports_clear(&p);
        CU_ASSERT(!np_ports_has(&p, 443));
        CU_ASSERT_EQUAL(np_ports_add(&p, "1-65535", &why), 0);
        CU_ASSERT(np_ports_has(&p, 1) && np_ports_has(&p, 65535) && !np_ports_has(&p, 0));
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                why = NULL;
                np_ports_clear(&p);
                if (np_ports_add(&p, bad[i], &why) != -EINVAL)
                        fprintf(stderr, "\n  ports accepted \"%s\"", bad[i]);
                CU_ASSERT_EQUAL(np_ports_add(&p, bad[i], &why), -EINVAL);
                CU_ASSERT_PTR_NOT_NULL(why);
        }
}

UNIT_SUITE(np_addr,
           UNIT_TEST(test_classify),
           UNIT_TEST(test_classify_sockaddr),
           UNIT_TEST(test_ip_parse),
           UNIT_TEST(test_resolve),
           UNIT_TEST(test_ports))
