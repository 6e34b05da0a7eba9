/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: address classes (IANA special-purpose registries, RFC 6890 and
 * its updates), resolve-map entries and port sets.  See np_addr.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "np_addr.h"
#include "np_match.h"

struct range {
        uint8_t bytes[16];
        unsigned prefix;
        enum np_addr_class cls;
};

#define V4(a, b, c, d) { a, b, c, d }

/* First match wins: specific ranges come before the ranges holding them. */
static const struct range v4_ranges[] = {
        { V4(0, 0, 0, 0), 8, NP_ADDR_UNSPECIFIED },
        { V4(10, 0, 0, 0), 8, NP_ADDR_PRIVATE },
        { V4(100, 64, 0, 0), 10, NP_ADDR_CGNAT },
        { V4(127, 0, 0, 0), 8, NP_ADDR_LOOPBACK },
        { V4(169, 254, 0, 0), 16, NP_ADDR_LINK_LOCAL },
        { V4(172, 16, 0, 0), 12, NP_ADDR_PRIVATE },
        { V4(192, 0, 0, 0), 24, NP_ADDR_PROTOCOL },
        { V4(192, 0, 2, 0), 24, NP_ADDR_DOCUMENTATION },
        { V4(192, 88, 99, 0), 24, NP_ADDR_RESERVED }, /* 6to4 relay anycast, deprecated (RFC 7526) */
        { V4(192, 168, 0, 0), 16, NP_ADDR_PRIVATE },
        { V4(198, 18, 0, 0), 15, NP_ADDR_BENCHMARK },
        { V4(198, 51, 100, 0), 24, NP_ADDR_DOCUMENTATION },
        { V4(203, 0, 113, 0), 24, NP_ADDR_DOCUMENTATION },
        { V4(224, 0, 0, 0), 4, NP_ADDR_MULTICAST },
        { V4(255, 255, 255, 255), 32, NP_ADDR_BROADCAST },
        { V4(240, 0, 0, 0), 4, NP_ADDR_RESERVED },
};

/* IPv6 ranges that do not embed an IPv4 address (those are handled first,
 * in embedded_v4()).  Anything outside 2000::/3 not listed is RESERVED. */
static const struct range v6_ranges[] = {
        { { 0 }, 128, NP_ADDR_UNSPECIFIED },
        { { [15] = 1 }, 128, NP_ADDR_LOOPBACK },
        { { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, NP_ADDR_PRIVATE }, /* local-use NAT64, RFC 8215 */
        { { 0x01, 0x00 }, 64, NP_ADDR_RESERVED },                        /* discard-only, RFC 6666 */
        { { 0x20, 0x01, 0x0d, 0xb8 }, 32, NP_ADDR_DOCUMENTATION },
        { { 0x20, 0x01, 0x00, 0x02 }, 48, NP_ADDR_BENCHMARK },
        { { 0x20, 0x01 }, 23, NP_ADDR_PROTOCOL },
        { { 0x3f, 0xff }, 20, NP_ADDR_DOCUMENTATION },                   /* RFC 9637 */
        { { 0xfc }, 7, NP_ADDR_UNIQUE_LOCAL },
        { { 0xfe, 0x80 }, 10, NP_ADDR_LINK_LOCAL },
        { { 0xfe, 0xc0 }, 10, NP_ADDR_SITE_LOCAL },
        { { 0xff }, 8, NP_ADDR_MULTICAST },
        { { 0x20 }, 3, NP_ADDR_PUBLIC },
};

static bool bytes_in_prefix(const uint8_t *a, const uint8_t *net, unsigned prefix)
{
        unsigned full = prefix / 8, rest = prefix % 8;

        if (memcmp(a, net, full) != 0)
                return false;
        if (rest == 0)
                return true;
        uint8_t mask = (uint8_t)(0xff << (8 - rest));
        return (a[full] & mask) == (net[full] & mask);
}

bool np_ip_in_prefix(const struct np_ip *ip, const struct np_ip *net, unsigned prefix)
{
        unsigned max = ip->family == AF_INET ? 32 : 128;

        if (ip->family != net->family || (ip->family != AF_INET && ip->family != AF_INET6) || prefix > max)
                return false;
        return bytes_in_prefix(ip->bytes, net->bytes, prefix);
}

static enum np_addr_class classify_v4(const uint8_t *b)
{
        for (size_t i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); i++)
                if (bytes_in_prefix(b, v4_ranges[i].bytes, v4_ranges[i].prefix))
                        return v4_ranges[i].cls;
        return NP_ADDR_PUBLIC;
}

/*
 * Where an IPv6 address carries an IPv4 one that the packet ends up at (or
 * that a dual-stack host treats as that IPv4 address), return a pointer to
 * those 4 bytes; else NULL.
 */
static const uint8_t *embedded_v4(const uint8_t *b)
{
        static const uint8_t zero[10];
        static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };

        if (memcmp(b, zero, 10) == 0 && b[10] == 0xff && b[11] == 0xff)
                return b + 12; /* ::ffff:a.b.c.d, mapped (RFC 4291) */
        if (memcmp(b, zero, 8) == 0 && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0)
                return b + 12; /* ::ffff:0:a.b.c.d, SIIT (RFC 2765) */
        if (memcmp(b, nat64, 12) == 0)
                return b + 12; /* 64:ff9b::a.b.c.d, NAT64 well-known prefix (RFC 6052) */
        if (b[0] == 0x20 && b[1] == 0x02)
                return b + 2;  /* 2002:aabb:ccdd::, 6to4 (RFC 3056) */
        if (memcmp(b, zero, 10) == 0 && b[10] == 0 && b[11] == 0) {
                static const uint8_t low[4] = { 0, 0, 0, 0 }, one[4] = { 0, 0, 0, 1 };
                /* ::a.b.c.d, IPv4-compatible (deprecated); :: and ::1 are themselves */
                if (memcmp(b + 12, low, 4) != 0 && memcmp(b + 12, one, 4) != 0)
                        return b + 12;
        }
        return NULL;
}

static enum np_addr_class classify_v6(const uint8_t *b)
{
        const uint8_t *v4 = embedded_v4(b);

        if (v4)
                return classify_v4(v4);
        for (size_t i = 0; i < sizeof(v6_ranges) / sizeof(v6_ranges[0]); i++)
                if (bytes_in_prefix(b, v6_ranges[i].bytes, v6_ranges[i].prefix))
                        return v6_ranges[i].cls;
        return NP_ADDR_RESERVED;
}

enum np_addr_class np_addr_classify(const struct np_ip *ip)
{
        if (ip->family == AF_INET)
                return classify_v4(ip->bytes);
        if (ip->family == AF_INET6)
                return classify_v6(ip->bytes);
        return NP_ADDR_UNKNOWN;
}

enum np_addr_class np_addr_classify_sockaddr(const struct sockaddr *sa, socklen_t salen)
{
        struct np_ip ip;

        if (np_ip_from_sockaddr(sa, salen, &ip, NULL) < 0)
                return NP_ADDR_UNKNOWN;
        return np_addr_classify(&ip);
}

const char *np_addr_class_name(enum np_addr_class c)
{
        static const char *const names[NP_ADDR_CLASS_MAX] = {
                [NP_ADDR_PUBLIC] = "public",
                [NP_ADDR_LOOPBACK] = "loopback",
                [NP_ADDR_PRIVATE] = "private",
                [NP_ADDR_CGNAT] = "shared (CGNAT)",
                [NP_ADDR_LINK_LOCAL] = "link-local",
                [NP_ADDR_UNIQUE_LOCAL] = "unique-local",
                [NP_ADDR_SITE_LOCAL] = "site-local",
                [NP_ADDR_MULTICAST] = "multicast",
                [NP_ADDR_UNSPECIFIED] = "unspecified",
                [NP_ADDR_BROADCAST] = "broadcast",
                [NP_ADDR_RESERVED] = "reserved",
                [NP_ADDR_BENCHMARK] = "benchmarking",
                [NP_ADDR_PROTOCOL] = "protocol-assignment",
                [NP_ADDR_DOCUMENTATION] = "documentation",
                [NP_ADDR_UNKNOWN] = "unknown",
        };

        if ((unsigned)c >= NP_ADDR_CLASS_MAX || !names[c])
                return "unknown";
        return names[c];
}

void np_ip_from_in(const struct in_addr *a, struct np_ip *ret)
{
        memset(ret, 0, sizeof(*ret));
        ret->family = AF_INET;
        memcpy(ret->bytes, &a->s_addr, 4);
}

void np_ip_from_in6(const struct in6_addr *a, struct np_ip *ret)
{
        memset(ret, 0, sizeof(*ret));
        ret->family = AF_INET6;
        memcpy(ret->bytes, a->s6_addr, 16);
}

int np_ip_from_sockaddr(const struct sockaddr *sa, socklen_t salen, struct np_ip *ret, uint16_t *ret_port)
{
        /* Copy out rather than cast: the caller's storage may be unaligned. */
        if (!sa || salen < (socklen_t)sizeof(sa_family_t))
                return -EINVAL;
        if (sa->sa_family == AF_INET) {
                struct sockaddr_in in;
                if (salen < (socklen_t)sizeof(in))
                        return -EINVAL;
                memcpy(&in, sa, sizeof(in));
                np_ip_from_in(&in.sin_addr, ret);
                if (ret_port)
                        *ret_port = ntohs(in.sin_port);
                return 0;
        }
        if (sa->sa_family == AF_INET6) {
                struct sockaddr_in6 in6;
                if (salen < (socklen_t)sizeof(in6))
                        return -EINVAL;
                memcpy(&in6, sa, sizeof(in6));
                np_ip_from_in6(&in6.sin6_addr, ret);
                if (ret_port)
                        *ret_port = ntohs(in6.sin6_port);
                return 0;
        }
        return -EAFNOSUPPORT;
}

int np_ip_to_string(const struct np_ip *ip, char *buf, size_t size)
{
        char tmp[INET6_ADDRSTRLEN];
        size_t n;

        if (ip->family != AF_INET && ip->family != AF_INET6)
                return -EAFNOSUPPORT;
        if (!inet_ntop(ip->family, ip->bytes, tmp, sizeof(tmp)))
                return -errno;
        n = strlen(tmp);
        if (n >= size)
                return -ENOBUFS;
        memcpy(buf, tmp, n + 1);
        return (int)n;
}

int np_ip_parse(const char *s, size_t len, struct np_ip *ret)
{
        char tmp[INET6_ADDRSTRLEN + 2];
        struct np_ip ip = { 0 };

        if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
                s++;
                len -= 2;
                ip.family = AF_INET6;
        }
        if (len == 0 || len >= sizeof(tmp) || memchr(s, '\0', len))
                return -EINVAL;
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        if (!ip.family)
                ip.family = memchr(s, ':', len) ? AF_INET6 : AF_INET;
        /* inet_pton never accepts zone ids ("fe80::1%eth0"): they name a
         * host interface, which is nothing a policy should depend on. */
        if (inet_pton(ip.family, tmp, ip.bytes) != 1)
                return -EINVAL;
        *ret = ip;
        return 0;
}

/* Decimal 1..65535 from exactly the `len` bytes at s; -1 if not. */
static long parse_port(const char *s, size_t len)
{
        long v = 0;

        if (len == 0 || len > 5)
                return -1;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        return v >= 1 && v <= 65535 ? v : -1;
}

static int why(const char **ret_why, const char *text)
{
        if (ret_why)
                *ret_why = text;
        return -EINVAL;
}

/* The address part of a resolve entry: dotted quad, or IPv6 in brackets. */
static int parse_resolve_addr(const char *s, struct np_ip *ret, const char **ret_why)
{
        size_t len = strlen(s);

        if (len && s[0] != '[' && memchr(s, ':', len))
                return why(ret_why, "an IPv6 address must be in brackets: host:port:[addr]");
        if (np_ip_parse(s, len, ret) < 0)
                return why(ret_why, "the address is not a dotted-quad IPv4 or bracketed IPv6 address");
        return 0;
}

int np_resolve_parse(const char *text, struct np_resolve *ret, const char **ret_why)
{
        struct np_resolve r = { .port = 0 };
        const char *colon = strchr(text, ':'), *rest;
        struct np_host h;

        if (!colon)
                return why(ret_why, "expected host:port:addr or host:addr");
        if (np_host_parse(text, (size_t)(colon - text), &h) < 0 || h.kind != NP_HOST_NAME)
                return why(ret_why, "the host is not a valid host name");
        memcpy(r.host, h.text, h.len + 1);
        rest = colon + 1;
        colon = rest[0] == '[' ? NULL : strchr(rest, ':');
        if (colon) {
                long port = parse_port(rest, (size_t)(colon - rest));
                if (port < 0)
                        return why(ret_why, "the port is not a number in 1..65535");
                r.port = (uint16_t)port;
                rest = colon + 1;
        }
        if (parse_resolve_addr(rest, &r.ip, ret_why) < 0)
                return -EINVAL;
        *ret = r;
        return 0;
}

void np_ports_clear(struct np_ports *p)
{
        memset(p, 0, sizeof(*p));
}

static void ports_set(struct np_ports *p, unsigned lo, unsigned hi)
{
        for (unsigned port = lo; port <= hi; port++)
                p->bits[port / 64] |= (uint64_t)1 << (port % 64);
}

/* One list item: "N" or "N-M" in exactly `len` bytes. */
static int ports_item(struct np_ports *p, const char *s, size_t len, const char **ret_why)
{
        const char *dash = memchr(s, '-', len);
        long lo, hi;

        if (!dash) {
                lo = hi = parse_port(s, len);
        } else {
                lo = parse_port(s, (size_t)(dash - s));
                hi = parse_port(dash + 1, len - (size_t)(dash - s) - 1);
        }
        if (lo < 0 || hi < 0)
                return why(ret_why, "a port is not a number in 1..65535");
        if (lo > hi)
                return why(ret_why, "a port range runs backwards");
        ports_set(p, (unsigned)lo, (unsigned)hi);
        return 0;
}

int np_ports_add(struct np_ports *p, const char *text, const char **ret_why)
{
        const char *s = text;

        for (;;) {
                const char *comma = strchr(s, ',');
                size_t len = comma ? (size_t)(comma - s) : strlen(s);
                if (ports_item(p, s, len, ret_why) < 0)
                        return -EINVAL;
                if (!comma)
                        return 0;
                s = comma + 1;
        }
}

bool np_ports_has(const struct np_ports *p, uint16_t port)
{
        return port != 0 && (p->bits[port / 64] >> (port % 64)) & 1;
}
