/* SPDX-License-Identifier: MIT */
/* net_proxy: the egress proxy that runs in the supervisor.  Internal types
 * shared by the module glue (net_proxy.c), the connection engine
 * (np_conn.c, np_tunnel.c) and the resolver thread (np_dns.c). */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "stockade/module.h"

#include "np_addr.h"
#include "np_match.h"
#include "np_quiet.h"

#define NP_MAX_ADDRS 8
#define NP_HEAD_MAX (32 * 1024)       /* request head, SOCKS frames, a ClientHello */
#define NP_PIPE_SIZE (256 * 1024)

struct np_conf {
        struct np_ports ports;          /* destination ports allowed */
        struct np_matcher *allow, *deny;
        struct np_resolve *resolve;     /* static name -> address map (trusted) */
        size_t n_resolve;
        struct np_matcher *allow_private; /* non-public addresses the policy allows */
        bool allow_missing_sni;
        bool allow_ech;                 /* an encrypted ClientHello hides the real SNI */
        bool allow_opaque;              /* tunnels that are neither TLS nor HTTP */
        int header_timeout_ms, idle_timeout_ms, connect_timeout_ms;
        int max_conns;
        int listen_port;                /* 0: an ephemeral port */
};

struct np_conn;
struct np_dns;

struct np_proxy {
        const struct stk_host *host;
        struct stk_ctx *ctx;            /* for watches, logs, decisions, audit */
        struct np_conf conf;
        int listen_fd;                  /* 127.0.0.1:port in the supervisor's namespace */
        int ns_listen_fd;               /* the same port in the sandbox's namespace */
        int port;
        int timer_fd;
        struct np_conn *conns;          /* doubly linked */
        size_t n_conns;
        uint64_t next_id;
        struct np_dns *dns;
        bool active;
        char last_why[160];             /* the egress hook's reason for its last verdict */
        struct np_fold fold;            /* repeated refusals, folded in the audit */
        struct stk_bucket logs[2];       /* connection log lines: warnings and errors; info and debug */
        uint64_t logs_told[2];          /* of the lines each bucket dropped, how many a line mentioned */
};

/* np_quiet glue (np_conn.c): a log line the traffic causes, rate-limited;
 * through ctx (NULL: the proxy's own line). */
void np_log(struct np_proxy *p, struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
void np_quiet_start(struct np_proxy *p);
void np_quiet_tick(struct np_proxy *p);
void np_quiet_end(struct np_proxy *p);

/* np_conn.c */
int np_accept_on(struct np_proxy *p, int listen_fd);
void np_tick(struct np_proxy *p);
void np_close_all(struct np_proxy *p);
void np_dns_done(struct np_proxy *p, uint64_t conn_id, int err, const struct sockaddr_storage *addrs, size_t n);

/* np_dns.c: getaddrinfo on a worker thread, results back through an eventfd. */
int np_dns_new(struct np_proxy *p, struct np_dns **ret);
int np_dns_lookup(struct np_dns *d, uint64_t conn_id, const char *host, uint16_t port);
void np_dns_free(struct np_dns *d);

/* np_policy.c: the egress hook's decision, and what a resolved address may be. */
enum stk_verdict np_policy_decide(const struct np_conf *c, const struct np_host *h, uint16_t port, char *why,
                                  size_t why_size);
const struct np_resolve *np_policy_resolve(const struct np_conf *c, const char *host, uint16_t port);
bool np_policy_listed_address(const struct np_conf *c, const struct np_host *h);
bool np_policy_address_ok(const struct np_conf *c, const struct sockaddr_storage *a, bool explicit_dest);
int np_conf_load(struct np_conf *c, const struct stk_host *host, struct stk_ctx *ctx);
void np_conf_done(struct np_conf *c);
