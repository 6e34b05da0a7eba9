/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: host normalization, address-literal detection and the
 * allow/deny matcher.  The rules are documented in np_match.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "np_addr.h"
#include "np_match.h"

#define LABEL_MAX 63

static bool is_name_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int np_host_normalize_n(const char *in, size_t len, char *out, size_t outsz)
{
        char tmp[NP_HOST_MAX + 1];
        size_t label = 0;

        if (len > 0 && in[len - 1] == '.')
                len--; /* the root label: `example.com.` is `example.com` */
        if (len == 0 || len > NP_HOST_MAX)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                char c = np_lower(in[i]);
                if (c == '.') {
                        if (label == 0 || tmp[i - 1] == '-')
                                return -EINVAL; /* empty label, or one ending in '-' */
                        label = 0;
                } else if (!is_name_char(c) || (c == '-' && label == 0) || ++label > LABEL_MAX) {
                        return -EINVAL;
                }
                tmp[i] = c;
        }
        if (label == 0 || tmp[len - 1] == '-')
                return -EINVAL;
        if (len >= outsz)
                return -ENOBUFS;
        memcpy(out, tmp, len);
        out[len] = '\0';
        return (int)len;
}

int np_host_normalize(const char *in, char *out, size_t outsz)
{
        return np_host_normalize_n(in, strlen(in), out, outsz);
}

/* WHATWG URL "ends in a number": the last label (one trailing dot aside)
 * is all decimal digits, or 0x followed by hex digits. */
static bool last_label_numeric(const char *host)
{
        size_t len = strlen(host), start;

        if (len > 0 && host[len - 1] == '.')
                len--;
        start = len;
        while (start > 0 && host[start - 1] != '.')
                start--;
        if (start == len)
                return false;
        if (len - start >= 2 && host[start] == '0' && (host[start + 1] == 'x' || host[start + 1] == 'X')) {
                for (size_t i = start + 2; i < len; i++)
                        if (!strchr("0123456789abcdefABCDEF", host[i]))
                                return false;
                return true;
        }
        for (size_t i = start; i < len; i++)
                if (host[i] < '0' || host[i] > '9')
                        return false;
        return true;
}

/* Only characters inet_aton's numeric forms use.  glibc's inet_aton also
 * accepts trailing whitespace and whatever follows it ("1.2.3.4 x"): this
 * keeps such strings away from it. */
static bool aton_charset(const char *s)
{
        return s[strspn(s, "0123456789abcdefABCDEFxX.")] == '\0';
}

int np_host_is_ip(const char *host, struct np_ip *ret)
{
        struct in_addr a;
        struct np_ip ip;

        if (host[0] == '[' || strchr(host, ':')) {
                if (np_ip_parse(host, strlen(host), &ip) < 0 || ip.family != AF_INET6)
                        return -EINVAL;
                if (ret)
                        *ret = ip;
                return 1;
        }
        if (aton_charset(host) && inet_aton(host, &a) == 1) {
                if (ret)
                        np_ip_from_in(&a, ret);
                return 1;
        }
        return last_label_numeric(host) ? -EINVAL : 0;
}

static int host_from_ip(const struct np_ip *ip, struct np_host *ret)
{
        int n = np_ip_to_string(ip, ret->text, sizeof(ret->text));

        if (n < 0)
                return n;
        ret->kind = ip->family == AF_INET ? NP_HOST_IPV4 : NP_HOST_IPV6;
        ret->ip = *ip;
        ret->len = (size_t)n;
        return 0;
}

int np_host_parse(const char *in, size_t len, struct np_host *ret)
{
        struct np_host h = { .kind = NP_HOST_NAME };
        struct np_ip ip;
        int r;

        if (len == 0)
                return -EINVAL;
        if (in[0] == '[' || memchr(in, ':', len)) {
                if (np_ip_parse(in, len, &ip) < 0 || ip.family != AF_INET6)
                        return -EINVAL;
                r = host_from_ip(&ip, &h);
        } else {
                r = np_host_normalize_n(in, len, h.text, sizeof(h.text));
                if (r < 0)
                        return -EINVAL;
                h.len = (size_t)r;
                r = np_host_is_ip(h.text, &ip);
                if (r < 0)
                        return -EINVAL;
                r = r == 1 ? host_from_ip(&ip, &h) : 0;
        }
        if (r < 0)
                return -EINVAL;
        *ret = h;
        return 0;
}

/* ---- the matcher ------------------------------------------------------- */

enum entry_kind {
        E_EXACT = 1,  /* example.com */
        E_SUFFIX = 2, /* *.example.com, keyed by "example.com" */
};

struct entry {
        char *pattern; /* canonical pattern text; NULL: empty slot */
        const char *key;
        size_t keylen;
        uint64_t hash;
        enum entry_kind kind;
};

struct prefix {
        struct np_ip net;
        unsigned len;
        char *pattern;
};

struct np_matcher {
        uint64_t seed;
        struct entry *slots;
        size_t cap; /* a power of two, at least twice the entries */
        size_t n_names;
        struct prefix *prefixes;
        size_t n_prefixes;
        bool all;
};

/* FNV-1a over the key with a random start, then a 64-bit finalizer
 * (MurmurHash3 fmix64) so the low bits used as index depend on every byte.
 * Not cryptographic: the seed only keeps collisions from being computed
 * in advance by whoever writes a (project) policy file. */
static uint64_t hash_key(uint64_t seed, enum entry_kind kind, const char *key, size_t len)
{
        uint64_t h = seed ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull);

        for (size_t i = 0; i < len; i++) {
                h ^= (unsigned char)key[i];
                h *= 0x100000001b3ull;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 33;
        return h;
}

/* The slot holding (kind, key), or the empty slot where it would go. */
static struct entry *lookup(const struct np_matcher *m, enum entry_kind kind, const char *key, size_t len,
                            size_t *probes)
{
        uint64_t h = hash_key(m->seed, kind, key, len);
        size_t i = (size_t)h & (m->cap - 1);

        for (;; i = (i + 1) & (m->cap - 1)) {
                struct entry *e = &m->slots[i];
                (*probes)++;
                if (!e->pattern)
                        return e;
                if (e->hash == h && e->kind == kind && e->keylen == len && memcmp(e->key, key, len) == 0)
                        return e;
        }
}

static int add_name(struct np_matcher *m, enum entry_kind kind, const char *name, size_t len)
{
        size_t probes = 0, skip = kind == E_SUFFIX ? 2 : 0;
        struct entry *e = lookup(m, kind, name, len, &probes);

        if (e->pattern)
                return 0; /* a duplicate */
        e->pattern = malloc(len + skip + 1);
        if (!e->pattern)
                return -ENOMEM;
        memcpy(e->pattern, "*.", skip);
        memcpy(e->pattern + skip, name, len + 1);
        e->key = e->pattern + skip;
        e->keylen = len;
        e->hash = hash_key(m->seed, kind, name, len);
        e->kind = kind;
        m->n_names++;
        return 0;
}

static bool host_bits_zero(const struct np_ip *net, unsigned len)
{
        unsigned bits = net->family == AF_INET ? 32 : 128;

        for (unsigned b = len; b < bits; b++)
                if (net->bytes[b / 8] & (0x80 >> (b % 8)))
                        return false;
        return true;
}

static int add_prefix(struct np_matcher *m, const struct np_ip *net, unsigned len)
{
        char text[INET6_ADDRSTRLEN + 8];
        struct prefix *p = &m->prefixes[m->n_prefixes];

        if (np_ip_to_string(net, text, INET6_ADDRSTRLEN) < 0)
                return -EINVAL;
        if ((net->family == AF_INET && len != 32) || (net->family == AF_INET6 && len != 128))
                snprintf(text + strlen(text), 8, "/%u", len);
        p->pattern = strdup(text);
        if (!p->pattern)
                return -ENOMEM;
        p->net = *net;
        p->len = len;
        m->n_prefixes++;
        return 0;
}

/* "addr/len": -EINVAL with *why, or the prefix added. */
static int compile_prefix(struct np_matcher *m, const char *pat, const char *slash, const char **why)
{
        struct np_ip net;
        unsigned long len = 0;
        const char *d = slash + 1;

        if (np_ip_parse(pat, (size_t)(slash - pat), &net) < 0) {
                *why = "the address of a prefix must be a dotted-quad IPv4 or an IPv6 address";
                return -EINVAL;
        }
        if (*d == '\0' || strlen(d) > 3 || d[strspn(d, "0123456789")] != '\0') {
                *why = "a prefix length must be a decimal number";
                return -EINVAL;
        }
        len = strtoul(d, NULL, 10);
        if (len > (net.family == AF_INET ? 32u : 128u)) {
                *why = "the prefix length is too long for the address family";
                return -EINVAL;
        }
        if (!host_bits_zero(&net, (unsigned)len)) {
                *why = "the address has bits set beyond the prefix length (a typo?)";
                return -EINVAL;
        }
        return add_prefix(m, &net, (unsigned)len);
}

static int compile_one(struct np_matcher *m, const char *pat, const char **why)
{
        char name[NP_HOST_MAX + 1];
        const char *slash = strchr(pat, '/');
        struct np_ip ip;
        int n;

        if (strcmp(pat, "*") == 0) {
                m->all = true;
                return 0;
        }
        if (slash)
                return compile_prefix(m, pat, slash, why);
        if (np_ip_parse(pat, strlen(pat), &ip) == 0)
                return add_prefix(m, &ip, ip.family == AF_INET ? 32 : 128);
        bool wild = strncmp(pat, "*.", 2) == 0;
        if (strchr(pat + (wild ? 2 : 0), '*')) {
                *why = "a wildcard must be the whole first label (*.example.com) or the whole pattern (*)";
                return -EINVAL;
        }
        n = np_host_normalize(pat + (wild ? 2 : 0), name, sizeof(name));
        if (n < 0) {
                *why = strchr(pat, ':') ? "not a host name or an address (a port or a URL?)"
                                        : "not a valid host name";
                return -EINVAL;
        }
        if (np_host_is_ip(name, NULL) != 0) {
                *why = wild ? "a wildcard cannot cover an address"
                            : "an IPv4 address must be written as a dotted quad (127.0.0.1)";
                return -EINVAL;
        }
        return add_name(m, wild ? E_SUFFIX : E_EXACT, name, (size_t)n);
}

static int matcher_alloc(size_t n_patterns, struct np_matcher **ret)
{
        struct np_matcher *m = calloc(1, sizeof(*m));
        size_t cap = 16;

        if (!m)
                return -ENOMEM;
        while (cap < 2 * n_patterns)
                cap *= 2;
        m->cap = cap;
        m->slots = calloc(cap, sizeof(*m->slots));
        m->prefixes = calloc(n_patterns ? n_patterns : 1, sizeof(*m->prefixes));
        if (!m->slots || !m->prefixes) {
                np_matcher_free(m);
                return -ENOMEM;
        }
        if (getrandom(&m->seed, sizeof(m->seed), 0) != (ssize_t)sizeof(m->seed)) {
                int r = errno ? -errno : -EIO;
                np_matcher_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

int np_matcher_new(const char *const *patterns, struct np_matcher **ret, const char **ret_bad,
                   const char **ret_why)
{
        struct np_matcher *m = NULL;
        size_t n = 0;
        int r;

        while (patterns[n])
                n++;
        r = matcher_alloc(n, &m);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const char *why = "invalid pattern";
                r = compile_one(m, patterns[i], &why);
                if (r < 0) {
                        if (ret_bad)
                                *ret_bad = patterns[i];
                        if (ret_why)
                                *ret_why = r == -EINVAL ? why : "out of memory";
                        np_matcher_free(m);
                        return r;
                }
        }
        *ret = m;
        return 0;
}

struct np_matcher *np_matcher_free(struct np_matcher *m)
{
        if (!m)
                return NULL;
        for (size_t i = 0; m->slots && i < m->cap; i++)
                free(m->slots[i].pattern);
        for (size_t i = 0; i < m->n_prefixes; i++)
                free(m->prefixes[i].pattern);
        free(m->slots);
        free(m->prefixes);
        free(m);
        return NULL;
}

/* The exact name, then each proper suffix from the longest: O(labels)
 * table lookups. */
static const char *find_name(const struct np_matcher *m, const struct np_host *h, size_t *probes)
{
        const struct entry *e = lookup(m, E_EXACT, h->text, h->len, probes);

        if (e->pattern)
                return e->pattern;
        for (size_t i = 0; i < h->len; i++) {
                if (h->text[i] != '.')
                        continue;
                e = lookup(m, E_SUFFIX, h->text + i + 1, h->len - i - 1, probes);
                if (e->pattern)
                        return e->pattern;
        }
        return NULL;
}

static const char *find_ip(const struct np_matcher *m, const struct np_ip *ip, size_t *probes)
{
        static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
        struct np_ip v4 = { .family = AF_INET };
        bool is_mapped = ip->family == AF_INET6 && memcmp(ip->bytes, mapped, 12) == 0;

        if (is_mapped)
                memcpy(v4.bytes, ip->bytes + 12, 4);
        for (size_t i = 0; i < m->n_prefixes; i++) {
                const struct prefix *p = &m->prefixes[i];
                (*probes)++;
                if (np_ip_in_prefix(ip, &p->net, p->len) || (is_mapped && np_ip_in_prefix(&v4, &p->net, p->len)))
                        return p->pattern;
        }
        return NULL;
}

const char *np_matcher_find(const struct np_matcher *m, const struct np_host *h, size_t *ret_probes)
{
        size_t probes = 0;
        const char *hit = NULL;

        if (m->all)
                hit = "*";
        else if (h->kind == NP_HOST_NAME)
                hit = find_name(m, h, &probes);
        else if (h->kind == NP_HOST_IPV4 || h->kind == NP_HOST_IPV6)
                hit = find_ip(m, &h->ip, &probes);
        if (ret_probes)
                *ret_probes = probes;
        return hit;
}

const char *np_matcher_find_address(const struct np_matcher *m, const struct np_host *h)
{
        size_t probes = 0;

        if (h->kind != NP_HOST_IPV4 && h->kind != NP_HOST_IPV6)
                return NULL;
        return find_ip(m, &h->ip, &probes);
}

bool np_matcher_match(const struct np_matcher *m, const struct np_host *h)
{
        return np_matcher_find(m, h, NULL) != NULL;
}

size_t np_matcher_count(const struct np_matcher *m)
{
        return m->n_names + m->n_prefixes + (m->all ? 1 : 0);
}
