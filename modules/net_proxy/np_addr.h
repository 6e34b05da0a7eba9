/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: what kind of address a destination is, and the small text
 * formats that name addresses and ports in a policy.
 *
 * The proxy resolves names itself, so a public name that resolves to
 * 127.0.0.1 or 169.254.169.254 (DNS rebinding, a metadata service) would
 * reach the supervisor's own network unless every address is classified
 * before connect().  np_addr_classify says PUBLIC only when no special
 * range applies; IPv6 forms that carry an IPv4 address (mapped,
 * compatible, SIIT, NAT64, 6to4) are classified by that IPv4 address, and
 * IPv6 outside 2000::/3 (global unicast) is never PUBLIC.
 */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_parse.h"

enum np_addr_class {
        NP_ADDR_PUBLIC = 0,   /* none of the below */
        NP_ADDR_LOOPBACK,     /* 127/8, ::1 */
        NP_ADDR_PRIVATE,      /* 10/8, 172.16/12, 192.168/16, 64:ff9b:1::/48 */
        NP_ADDR_CGNAT,        /* 100.64/10 (RFC 6598) */
        NP_ADDR_LINK_LOCAL,   /* 169.254/16 (cloud metadata 169.254.169.254), fe80::/10 */
        NP_ADDR_UNIQUE_LOCAL, /* fc00::/7 */
        NP_ADDR_SITE_LOCAL,   /* fec0::/10 (deprecated, still routed by some stacks) */
        NP_ADDR_MULTICAST,    /* 224/4, ff00::/8 */
        NP_ADDR_UNSPECIFIED,  /* 0/8 ("this network": 0.0.0.0 reaches the local host), :: */
        NP_ADDR_BROADCAST,    /* 255.255.255.255 */
        NP_ADDR_RESERVED,     /* 240/4, 192.88.99/24, 100::/64, IPv6 outside 2000::/3 */
        NP_ADDR_BENCHMARK,    /* 198.18/15, 2001:2::/48 */
        NP_ADDR_PROTOCOL,     /* 192.0.0/24, 2001::/23 (IETF protocol assignments, Teredo) */
        NP_ADDR_DOCUMENTATION,/* 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20 */
        NP_ADDR_UNKNOWN,      /* not an IPv4 or IPv6 address */
        NP_ADDR_CLASS_MAX
};

/* The class of an address (see enum np_addr_class); NP_ADDR_UNKNOWN for a
 * family other than AF_INET/AF_INET6. */
enum np_addr_class np_addr_classify(const struct np_ip *ip);

/* The same for a socket address (the result of getaddrinfo, say). */
enum np_addr_class np_addr_classify_sockaddr(const struct sockaddr *sa, socklen_t salen);

/* A short lowercase name for a class ("loopback", "link-local", ...), for
 * log and error messages; never NULL. */
const char *np_addr_class_name(enum np_addr_class c);

/* Fill *ret from an in_addr / in6_addr / socket address.  The sockaddr
 * form returns -EAFNOSUPPORT for other families and -EINVAL when salen is
 * too short; *ret_port (may be NULL) gets the port in host order. */
void np_ip_from_in(const struct in_addr *a, struct np_ip *ret);
void np_ip_from_in6(const struct in6_addr *a, struct np_ip *ret);
int np_ip_from_sockaddr(const struct sockaddr *sa, socklen_t salen, struct np_ip *ret, uint16_t *ret_port);

/* The address as inet_ntop writes it (no brackets).  Returns the length,
 * -ENOBUFS if it does not fit, -EAFNOSUPPORT for an unknown family. */
int np_ip_to_string(const struct np_ip *ip, char *buf, size_t size);

/* Parse exactly one address in its standard text form, as inet_pton does:
 * dotted-quad IPv4 (never inet_aton's `127.1` or `0x7f.1`), or IPv6 with
 * or without brackets and without a zone id.  0 or -EINVAL. */
int np_ip_parse(const char *s, size_t len, struct np_ip *ret);

/* Whether `ip` lies in `net`/`prefix` (same family; prefix 0..32 or 0..128). */
bool np_ip_in_prefix(const struct np_ip *ip, const struct np_ip *net, unsigned prefix);

/*
 * A resolve map entry: a name the proxy must not look up in DNS but
 * connect to at a fixed address (tests, split-horizon hosts).  Text forms,
 * as curl --resolve:
 *      host:port:addr          only for that port (1..65535)
 *      host:addr               for any port (port 0 below)
 * addr is dotted-quad IPv4 or bracketed IPv6 (`host:443:[::1]`); host is a
 * name (normalized as np_host_normalize does), never an address literal.
 * One address per entry.
 */
struct np_resolve {
        char host[NP_HOST_MAX + 1];
        uint16_t port; /* 0: any port */
        struct np_ip ip;
};

/* 0, or -EINVAL with *ret_why (may be NULL) saying what is wrong. */
int np_resolve_parse(const char *text, struct np_resolve *ret, const char **ret_why);

/*
 * A set of TCP ports, filled from policy text: one port ("443"), a range
 * ("8000-8100", both ends included), or a comma-separated list of those
 * ("80,443,8000-8100").  Port 0 and ports over 65535 are errors.
 */
struct np_ports {
        uint64_t bits[65536 / 64];
};

void np_ports_clear(struct np_ports *p);
/* Add what `text` names; 0 or -EINVAL with *ret_why.  On error *p may hold
 * the items before the bad one: the caller discards it (fail closed). */
int np_ports_add(struct np_ports *p, const char *text, const char **ret_why);
bool np_ports_has(const struct np_ports *p, uint16_t port);
