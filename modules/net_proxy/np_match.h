/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: host names, address literals, and the allow/deny matcher.
 *
 * Every destination the proxy sees (HTTP target, CONNECT authority, SOCKS5
 * domain, TLS SNI, policy pattern) goes through np_host_parse, so a name is
 * compared in one canonical form and an address is never looked up in DNS
 * as if it were a name.
 *
 * Name rules (np_host_normalize):
 *  - ASCII only: any byte >= 0x80 is invalid.  IDNA is not applied: a
 *    punycode label (`xn--bcher-kva`) is plain ASCII and compares as given,
 *    so a policy must list the `xn--` form.
 *  - Lowercased; ONE trailing dot stripped (`example.com.` is
 *    `example.com`); no empty labels (`a..b`, `.a`, `..`).
 *  - Labels of 1..63 characters from [a-z0-9-_], not starting or ending
 *    with `-`; the whole name 1..253 characters.  `_` is accepted: DNS
 *    allows it, real hosts use it (`_acme-challenge`, some CDN and bucket
 *    names), and since matching is exact on the normalized text it cannot
 *    make two different names compare equal.
 *
 * Address literals (np_host_is_ip): anything inet_aton accepts (`127.1`,
 * `0x7f.1`, `017700000001`, `2130706433`) is an IPv4 literal, and so is any
 * name whose last label is numeric (all digits, or `0x` and hex digits, as
 * the WHATWG URL parser decides): `1.2.3.999` is then an invalid address,
 * never a name to resolve.  IPv6 only in brackets in URLs and Host headers
 * (bare where the protocol has no port separator: SOCKS5 domains, patterns),
 * never with a zone id.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "np_parse.h"

enum np_host_kind {
        NP_HOST_NAME = 1,
        NP_HOST_IPV4,
        NP_HOST_IPV6,
};

/* A destination host in canonical form. */
struct np_host {
        enum np_host_kind kind;
        struct np_ip ip;               /* for NP_HOST_IPV4 / NP_HOST_IPV6 */
        size_t len;                    /* strlen(text) */
        char text[NP_HOST_MAX + 1];    /* the normalized name, or the address as
                                        * inet_ntop writes it (no brackets) */
};

/*
 * Normalize the host name `in` (NUL-terminated) into out[outsz].  Returns
 * the length written (without the NUL), -EINVAL if it is not a valid name,
 * -ENOBUFS if out is too small.  It checks syntax only: `127.0.0.1` is a
 * valid name here; np_host_parse tells names from address literals.
 */
int np_host_normalize(const char *in, char *out, size_t outsz);
/* The same for exactly `len` bytes (an embedded NUL is invalid). */
int np_host_normalize_n(const char *in, size_t len, char *out, size_t outsz);

/*
 * Is `host` (NUL-terminated; a normalized name, or an IPv6 literal with or
 * without brackets) an address literal?  1 with *ret filled (may be NULL),
 * 0 for a name, -EINVAL when it looks numeric but is no valid address.
 */
int np_host_is_ip(const char *host, struct np_ip *ret);

/*
 * Parse a destination host of `len` bytes: `[v6]`, a bare IPv6 literal, an
 * IPv4 literal in any form np_host_is_ip accepts, or a name.  0 with *ret
 * filled, or -EINVAL (invalid name, numeric but invalid address, zone id,
 * empty).
 */
int np_host_parse(const char *in, size_t len, struct np_host *ret);

/*
 * The matcher: a set of patterns compiled once per policy, consulted for
 * every connection.
 *
 * Patterns:
 *   example.com        that name exactly (after normalization)
 *   *.example.com      every name below example.com, at any depth, but not
 *                      example.com itself (list both to have both)
 *   *                  every destination, names and addresses, for
 *                      np_matcher_find (a deny list); np_matcher_find_address
 *                      ignores it (an allow list: a name pattern, `*`
 *                      included, never admits an address)
 *   10.1.2.3, ::1      that address (also `[::1]`)
 *   10.0.0.0/8, fc00::/7   the addresses in that prefix; host bits must be 0
 * Anything else is an error naming the pattern: other wildcards (`a*.com`,
 * `*.*.com`, `a.*.com`), ports (`host:443`), URLs, non-canonical IPv4
 * (`127.1`: write 127.0.0.1), names that fail np_host_normalize.
 * Address patterns match address destinations only and name patterns names
 * only: the proxy does not match a name by what it resolves to (that is
 * np_addr's job).  An IPv4-mapped IPv6 destination (::ffff:a.b.c.d) also
 * matches IPv4 patterns.
 *
 * Names are kept in a hash table (exact names and wildcard suffixes), so a
 * lookup costs one probe sequence per label of the host, whatever the
 * number of patterns; the table's hash is seeded from getrandom() so a
 * policy file cannot be written to collide.  Prefixes are a short list.
 */
struct np_matcher;

/* Compile `patterns` (NULL-terminated; may be empty).  0 with *ret, or
 * -EINVAL with *ret_bad = the offending pattern (as given) and *ret_why a
 * reason, or -ENOMEM / -errno from getrandom. */
int np_matcher_new(const char *const *patterns, struct np_matcher **ret, const char **ret_bad,
                   const char **ret_why);

/* Free; accepts NULL, returns NULL. */
struct np_matcher *np_matcher_free(struct np_matcher *m);

/* The pattern (canonical text, e.g. "*.example.com") that matches h, or
 * NULL.  *ret_probes (may be NULL) gets how many table slots and prefix
 * entries were examined: the cost of the lookup, for tests. */
const char *np_matcher_find(const struct np_matcher *m, const struct np_host *h, size_t *ret_probes);

/* The address or prefix pattern that lists h, an address destination;
 * NULL for a name, or when only `*` would match: what an allow list must
 * hold for the proxy to connect to an address it was given. */
const char *np_matcher_find_address(const struct np_matcher *m, const struct np_host *h);

/* np_matcher_find(m, h, NULL) != NULL. */
bool np_matcher_match(const struct np_matcher *m, const struct np_host *h);

/* How many distinct patterns were compiled. */
size_t np_matcher_count(const struct np_matcher *m);
