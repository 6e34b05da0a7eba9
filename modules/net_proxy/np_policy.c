/* SPDX-License-Identifier: MIT */
/*
 * What net_proxy decides by itself: its egress hook (ports, the settings'
 * deny and allow lists, address literals) and, after a name resolved, which
 * addresses it may connect to (the DNS rebinding defence).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_internal.h"

static int load_ports(struct np_conf *c, const struct stk_host *host, struct stk_ctx *ctx)
{
        const char *const *list = host->arg_list(ctx, "ports");
        const char *why = NULL;

        np_ports_clear(&c->ports);
        if (!*list)
                return np_ports_add(&c->ports, "80,443", &why);
        for (; *list; list++)
                if (np_ports_add(&c->ports, *list, &why) < 0) {
                        host->log(ctx, STK_LOG_ERROR, "ports: \"%s\": %s", *list, why);
                        return -EINVAL;
                }
        return 0;
}

static int load_matcher(struct np_matcher **ret, const char *const *patterns, const char *what,
                        const struct stk_host *host, struct stk_ctx *ctx)
{
        const char *bad = NULL, *why = NULL;
        int r = np_matcher_new(patterns, ret, &bad, &why);

        if (r == -EINVAL)
                host->log(ctx, STK_LOG_ERROR, "%s: \"%s\": %s", what, bad ? bad : "?", why ? why : "invalid");
        else if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "%s: %s", what, strerror(-r));
        return r;
}

static int load_resolve(struct np_conf *c, const struct stk_host *host, struct stk_ctx *ctx)
{
        const char *const *list = host->arg_list(ctx, "resolve");
        size_t n = 0;

        while (list[n])
                n++;
        c->resolve = calloc(n + 1, sizeof(*c->resolve));
        if (!c->resolve)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *why = NULL;
                if (np_resolve_parse(list[i], &c->resolve[i], &why) < 0) {
                        host->log(ctx, STK_LOG_ERROR, "resolve: \"%s\": %s (expected host:port:addr or host:addr)",
                                  list[i], why ? why : "invalid");
                        return -EINVAL;
                }
        }
        c->n_resolve = n;
        return 0;
}

static int seconds_ms(const struct stk_host *host, struct stk_ctx *ctx, const char *name, long long dflt, int *ret)
{
        long long v = host->arg_int(ctx, name, dflt);

        if (v < 1 || v > 86400) {
                host->log(ctx, STK_LOG_ERROR, "%s: %lld is not 1..86400 seconds", name, v);
                return -EINVAL;
        }
        *ret = (int) v * 1000;
        return 0;
}

int np_conf_load(struct np_conf *c, const struct stk_host *host, struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);
        long long max = host->arg_int(ctx, "max_connections", 4096);
        long long port = host->arg_int(ctx, "listen_port", 0);
        int r;

        *c = (struct np_conf) { 0 };
        c->allow_missing_sni = host->arg_bool(ctx, "allow_missing_sni", 0);
        c->allow_ech = host->arg_bool(ctx, "allow_ech", 0);
        c->allow_opaque = host->arg_bool(ctx, "allow_opaque", 0);
        if (max < 1 || max > 1000000 || port < 0 || port > 65535) {
                host->log(ctx, STK_LOG_ERROR, "max_connections must be 1..1000000 and listen_port 0..65535");
                return -EINVAL;
        }
        c->max_conns = (int) max;
        c->listen_port = (int) port;
        r = load_ports(c, host, ctx);
        if (r >= 0)
                r = seconds_ms(host, ctx, "header_timeout", 10, &c->header_timeout_ms);
        if (r >= 0)
                r = seconds_ms(host, ctx, "idle_timeout", 600, &c->idle_timeout_ms);
        if (r >= 0)
                r = seconds_ms(host, ctx, "connect_timeout", 10, &c->connect_timeout_ms);
        if (r >= 0)
                r = load_matcher(&c->allow, s->net_allow, "network.allow", host, ctx);
        if (r >= 0)
                r = load_matcher(&c->deny, s->net_deny, "network.deny", host, ctx);
        if (r >= 0)
                r = load_matcher(&c->allow_private, host->arg_list(ctx, "allow_private"), "allow_private", host, ctx);
        if (r >= 0)
                r = load_resolve(c, host, ctx);
        return r;
}

void np_conf_done(struct np_conf *c)
{
        np_matcher_free(c->allow);
        np_matcher_free(c->deny);
        np_matcher_free(c->allow_private);
        free(c->resolve);
        *c = (struct np_conf) { 0 };
}

/* Deny wins; an address literal must be listed; a name nobody listed is a
 * question for the approval hooks (a DENY under `approval: never`). */
enum stk_verdict np_policy_decide(const struct np_conf *c, const struct np_host *h, uint16_t port, char *why,
                                  size_t why_size)
{
        const char *pattern;

        if (!np_ports_has(&c->ports, port)) {
                snprintf(why, why_size, "port %u is not in net_proxy's ports", port);
                return STK_DENY;
        }
        pattern = np_matcher_find(c->deny, h, NULL);
        if (pattern) {
                snprintf(why, why_size, "network.deny has \"%s\"", pattern);
                return STK_DENY;
        }
        if (h->kind != NP_HOST_NAME) {
                /* A name pattern, `*` included, never admits an address:
                 * "*" means every name, not 127.0.0.1 or the metadata service. */
                pattern = np_matcher_find_address(c->allow, h);
                if (pattern) {
                        snprintf(why, why_size, "network.allow has \"%s\"", pattern);
                        return STK_ALLOW;
                }
                snprintf(why, why_size, "an address literal not listed in network.allow (by an address or prefix)");
                return STK_DENY;
        }
        pattern = np_matcher_find(c->allow, h, NULL);
        if (pattern) {
                snprintf(why, why_size, "network.allow has \"%s\"", pattern);
                return STK_ALLOW;
        }
        snprintf(why, why_size, "not in network.allow");
        return STK_ASK;
}

/* Whether the policy itself names this address destination: an address
 * or prefix entry of network.allow.  Only then is a literal connected to
 * whatever its class; a literal some other egress line allowed is held to
 * the same rule as a resolved address. */
bool np_policy_listed_address(const struct np_conf *c, const struct np_host *h)
{
        return h->kind != NP_HOST_NAME && np_matcher_find_address(c->allow, h) != NULL &&
               !np_matcher_match(c->deny, h);
}

/* Connect only to public addresses, unless the policy named this one: the
 * resolve map or an address literal it listed, or allow_private. */
bool np_policy_address_ok(const struct np_conf *c, const struct sockaddr_storage *a, bool explicit_dest)
{
        struct np_host h = { 0 };

        if (np_addr_classify_sockaddr((const struct sockaddr *) a, sizeof(*a)) == NP_ADDR_PUBLIC || explicit_dest)
                return true;
        if (np_ip_from_sockaddr((const struct sockaddr *) a, sizeof(*a), &h.ip, NULL) < 0)
                return false;
        h.kind = h.ip.family == AF_INET ? NP_HOST_IPV4 : NP_HOST_IPV6;
        if (np_ip_to_string(&h.ip, h.text, sizeof(h.text)) < 0)
                return false;
        h.len = strlen(h.text);
        return np_matcher_match(c->allow_private, &h);
}

/* The resolve map: an entry for this port wins over one for any port. */
const struct np_resolve *np_policy_resolve(const struct np_conf *c, const char *host, uint16_t port)
{
        const struct np_resolve *any = NULL;

        for (size_t i = 0; i < c->n_resolve; i++) {
                if (strcmp(c->resolve[i].host, host) != 0)
                        continue;
                if (c->resolve[i].port == port)
                        return &c->resolve[i];
                if (c->resolve[i].port == 0 && !any)
                        any = &c->resolve[i];
        }
        return any;
}
