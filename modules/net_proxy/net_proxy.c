/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the egress gateway (docs/ARCHITECTURE.md, Phases and control flags: egress).  An HTTP
 * (CONNECT and absolute-URI) and SOCKS5 proxy in the supervisor, outside the
 * sandbox, deciding per destination through the egress phase.
 *
 * How the command reaches it without a relay: pre-exec listens on
 * 127.0.0.1:PORT in the supervisor's network namespace and publishes PORT.
 * In-sandbox, inside a fresh network namespace (bubblewrap), the same port
 * is free: the hook listens there and hands the listening socket to the
 * supervisor (a socket keeps the namespace it was made in), so the proxy
 * accepts the command's connections directly.  Without a namespace (the
 * Landlock stack) the bind fails with EADDRINUSE, because it is our own
 * listener: the command connects to it, and Landlock and seccomp allow no
 * other TCP destination.  In the namespace, loopback is the sandbox's own
 * and NO_PROXY names it (export_loopback_no_proxy); outside, NO_PROXY stays
 * empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "np_conn.h"

static const struct stk_host *host;

static const struct stk_arg_spec np_args[] = {
        { "ports", STK_ARG_LIST, STK_ARG_TRUSTED, "destination ports allowed: \"443\", \"8000-8100\" (default 80, 443)" },
        { "resolve", STK_ARG_LIST, STK_ARG_TRUSTED,
          "static name resolution, like curl --resolve: \"host:port:addr\" or \"host:addr\"" },
        { "allow_private", STK_ARG_LIST, STK_ARG_TRUSTED,
          "non-public addresses a name may resolve to: \"10.0.0.0/8\", \"192.168.1.5\"" },
        { "allow_missing_sni", STK_ARG_BOOL, STK_ARG_TRUSTED,
          "let a TLS tunnel to a name without SNI through (default false; one to an address never has one)" },
        { "allow_ech", STK_ARG_BOOL, STK_ARG_TRUSTED, "let an encrypted ClientHello through (default false)" },
        { "allow_opaque", STK_ARG_BOOL, STK_ARG_TRUSTED,
          "tunnels that are neither TLS nor HTTP; no tunnel is then checked at all (default false)" },
        { "header_timeout", STK_ARG_INT, 0, "seconds to receive a request head or a ClientHello (default 10)" },
        { "idle_timeout", STK_ARG_INT, 0, "seconds a tunnel may sit idle (default 600)" },
        { "connect_timeout", STK_ARG_INT, 0, "seconds to connect upstream (default 10)" },
        { "max_connections", STK_ARG_INT, 0, "connections open at once (default 4096)" },
        { "listen_port", STK_ARG_INT, STK_ARG_TRUSTED, "the loopback port to listen on (default 0: any free port)" },
        { NULL, 0, 0, NULL },
};

static bool proxy_mode(struct stk_ctx *ctx)
{
        return host->settings(ctx)->network == STK_NET_PROXY;
}

static bool host_has_abi_1_2(const struct stk_host *h)
{
        return STK_HAS(h, stk_host, egress_decide) && h->egress_decide &&
               h->plan_proxy;
}

static int np_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct np_proxy *p;
        int r;

        host = h;
        if (!host_has_abi_1_2(h)) {
                h->log(ctx, STK_LOG_ERROR, "needs a core with module ABI 1.2 or later (egress decisions)");
                return -ENOTSUP;
        }
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->host = h;
        p->ctx = ctx;
        p->listen_fd = p->ns_listen_fd = p->timer_fd = -1;
        np_quiet_start(p);
        r = np_conf_load(&p->conf, h, ctx);
        if (r < 0) {
                np_conf_done(&p->conf);
                free(p);
                return r;
        }
        *ret_data = p;
        return 0;
}

static void unwatch_close(struct np_proxy *p, int *fd)
{
        if (*fd < 0)
                return;
        (void) p->host->unwatch_fd(p->ctx, *fd);
        close(*fd);
        *fd = -1;
}

static void np_fini(void *data)
{
        struct np_proxy *p = data;

        if (!p)
                return;
        np_close_all(p);
        if (p->active)
                np_quiet_end(p);
        np_dns_free(p->dns);
        unwatch_close(p, &p->listen_fd);
        unwatch_close(p, &p->ns_listen_fd);
        unwatch_close(p, &p->timer_fd);
        np_conf_done(&p->conf);
        free(p);
}

/* Nothing to enforce: the namespaces, Landlock and seccomp keep the command
 * from going around the proxy.  Outside mode proxy the line is idle. */
static int np_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        *ret_covers = 0;
        return 0;
}

static void on_accept(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct np_proxy *p = userdata;
        int r = np_accept_on(p, fd);

        if (r < 0)
                np_log(p, NULL, STK_LOG_WARNING, "accept: %s", strerror(-r));
}

static void on_tick(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        uint64_t n;

        (void) !read(fd, &n, sizeof(n)); /* EAGAIN: a spurious wake-up */
        np_tick(userdata);
        np_quiet_tick(userdata);
}

static int listen_loopback(int port, int *ret_fd)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

static int bound_port(int fd)
{
        struct sockaddr_in a;
        socklen_t len = sizeof(a);

        if (getsockname(fd, (struct sockaddr *) &a, &len) < 0)
                return -errno;
        return ntohs(a.sin_port);
}

/* curl, git, npm and pip read these; NO_PROXY empty so nothing goes around
 * the proxy (the user's own NO_PROXY, naming an intranet say, must not open a
 * way out).  In a namespace of the command's own, loopback is let around it:
 * export_loopback_no_proxy(). */
static int set_proxy_env(struct stk_ctx *ctx, int port)
{
        static const char *const http_vars[] = { "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy" };
        char http[64], socks[64];
        int r = 0;

        snprintf(http, sizeof(http), "http://127.0.0.1:%d", port);
        snprintf(socks, sizeof(socks), "socks5h://127.0.0.1:%d", port);
        for (size_t i = 0; r >= 0 && i < sizeof(http_vars) / sizeof(http_vars[0]); i++)
                r = host->plan_setenv(ctx, http_vars[i], http);
        if (r >= 0)
                r = host->plan_setenv(ctx, "ALL_PROXY", socks);
        if (r >= 0)
                r = host->plan_setenv(ctx, "all_proxy", socks);
        if (r >= 0)
                r = host->plan_setenv(ctx, "NO_PROXY", "");
        if (r >= 0)
                r = host->plan_setenv(ctx, "no_proxy", "");
        return r;
}

static int start_timer(struct np_proxy *p)
{
        struct itimerspec every = { .it_interval = { 0, 250000000 }, .it_value = { 0, 250000000 } };

        p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (p->timer_fd < 0)
                return -errno;
        if (timerfd_settime(p->timer_fd, 0, &every, NULL) < 0)
                return -errno;
        return host->watch_fd(p->ctx, p->timer_fd, STK_WATCH_IN, on_tick, p);
}

/* Each connection holds up to six fds (two sockets, two pipes): raise the
 * soft limit to the hard one so max_connections is reachable. */
static void raise_fd_limit(void)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl); /* best effort: the cap still applies */
        }
}

static int np_pre_exec(struct stk_ctx *ctx)
{
        struct np_proxy *p = host->data(ctx);
        int r;

        if (!proxy_mode(ctx) || p->active)
                return 0;
        p->ctx = ctx;
        r = listen_loopback(p->conf.listen_port, &p->listen_fd);
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "listening on 127.0.0.1:%d: %s", p->conf.listen_port, strerror(-r));
                return r;
        }
        p->port = bound_port(p->listen_fd);
        if (p->port < 0)
                return p->port;
        r = host->plan_proxy(ctx, p->port);
        if (r >= 0)
                r = set_proxy_env(ctx, p->port);
        if (r >= 0)
                r = host->watch_fd(ctx, p->listen_fd, STK_WATCH_IN, on_accept, p);
        if (r >= 0)
                r = start_timer(p);
        if (r >= 0)
                r = np_dns_new(p, &p->dns);
        if (r < 0)
                return r;
        raise_fd_limit();
        p->active = true;
        host->log(ctx, STK_LOG_INFO, "listening on 127.0.0.1:%d", p->port);
        return 0;
}

/* The port was free here, so this is not the supervisor's namespace but a
 * fresh one (bwrap --unshare-net), and its loopback is the sandbox's alone:
 * a dev server the command starts there is reachable without the proxy,
 * which refuses loopback, and nothing else is.  Exactly loopback, replacing
 * the plan's empty value: the user's own NO_PROXY never gets through.  Our
 * environment is the command's here (the inner helper execs it); under the
 * Landlock stack the bind above failed and loopback, the host's, stays
 * behind the proxy's refusal. */
static int export_loopback_no_proxy(struct stk_ctx *ctx)
{
        static const char loopback[] = "localhost,127.0.0.1,::1";

        if (setenv("NO_PROXY", loopback, 1) < 0 || setenv("no_proxy", loopback, 1) < 0) {
                int r = -errno;
                host->log(ctx, STK_LOG_ERROR, "setting NO_PROXY to loopback: %s", strerror(-r));
                return r;
        }
        return 0;
}

/* In the sandbox, before the command: see the head comment. */
static int np_in_sandbox(struct stk_ctx *ctx)
{
        int port = host->settings(ctx)->proxy_port, fd = -1, r;

        if (!proxy_mode(ctx))
                return 0;
        if (port <= 0) {
                host->log(ctx, STK_LOG_ERROR, "no proxy port: list net_proxy in the pre-exec phase too");
                return -EINVAL;
        }
        r = listen_loopback(port, &fd);
        if (r == -EADDRINUSE)
                return 0; /* the supervisor's own namespace: its listener is the way */
        if (r >= 0)
                r = export_loopback_no_proxy(ctx);
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "listening on 127.0.0.1:%d in the sandbox: %s", port, strerror(-r));
                return r;
        }
        r = host->send_fd(ctx, fd);
        close(fd);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "handing the listener to the supervisor: %s", strerror(-r));
        return r;
}

/* The sandbox-side listener.  The supervisor-side one has no more use:
 * nothing in the sandbox can reach it, so it is closed. */
static int np_supervise_fd(struct stk_ctx *ctx, int fd)
{
        struct np_proxy *p = host->data(ctx);
        int r;

        if (!p || !p->active || p->ns_listen_fd >= 0)
                return -EBUSY;
        if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        r = host->watch_fd(p->ctx, fd, STK_WATCH_IN, on_accept, p);
        if (r < 0)
                return r;
        p->ns_listen_fd = fd;
        unwatch_close(p, &p->listen_fd);
        host->log(ctx, STK_LOG_INFO, "accepting in the sandbox's network namespace");
        return 0;
}

static int np_egress(struct stk_ctx *ctx, const struct stk_egress *req, enum stk_verdict *ret_verdict)
{
        struct np_proxy *p = host->data(ctx);
        struct np_host h;
        char why[160];

        if (!req->host || np_host_parse(req->host, strlen(req->host), &h) < 0) {
                np_log(p, ctx, STK_LOG_INFO, "\"%s\": not a valid host", req->host ? req->host : "");
                snprintf(p->last_why, sizeof(p->last_why), "not a valid host name");
                *ret_verdict = STK_DENY;
                return 0;
        }
        *ret_verdict = np_policy_decide(&p->conf, &h, req->port, why, sizeof(why));
        snprintf(p->last_why, sizeof(p->last_why), "%s", why);
        np_log(p, ctx, STK_LOG_INFO, "%s:%u (%s): %s", h.text, req->port, req->scheme ? req->scheme : "?", why);
        return 0;
}

static int np_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct np_proxy *p = host->data(ctx);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return -ENOMEM;
        if (!proxy_mode(ctx))
                fprintf(f, "idle: the network mode is not proxy\n");
        else {
                fprintf(f, "HTTP (CONNECT, absolute URI) and SOCKS5 proxy in the supervisor on 127.0.0.1:%s%d\n",
                        p->conf.listen_port ? "" : "any free port, e.g. ", p->conf.listen_port);
                fprintf(f, "reached in a network namespace through a listener made there and handed over; "
                        "otherwise at that loopback port (the only TCP destination Landlock/seccomp allow)\n");
                fprintf(f, "env: HTTP_PROXY HTTPS_PROXY ALL_PROXY (and lower case) set; NO_PROXY empty, or "
                        "localhost,127.0.0.1,::1 in a network namespace of the sandbox's own\n");
                fprintf(f, "decisions: network.deny (%zu patterns) wins, then network.allow (%zu); "
                        "others ask (deny under approval: never); unlisted addresses denied\n",
                        np_matcher_count(p->conf.deny), np_matcher_count(p->conf.allow));
                fprintf(f, "tunnels: TLS SNI, or every HTTP request's target and Host, must name the CONNECT host; "
                        "missing SNI %s, ECH %s, other protocols %s\n", p->conf.allow_missing_sni ? "allowed" : "denied",
                        p->conf.allow_ech ? "allowed" : "denied", p->conf.allow_opaque ? "allowed" : "denied");
                fprintf(f, "addresses: public only; resolve map entries %zu, allow_private %zu patterns\n",
                        p->conf.n_resolve, np_matcher_count(p->conf.allow_private));
                fprintf(f, "audit: repeated refusals of a destination folded into egress-refused records; "
                        "log lines about traffic rate-limited\n");
                fprintf(f, "limits: header %d s, connect %d s, idle %d s, %d connections\n",
                        p->conf.header_timeout_ms / 1000, p->conf.connect_timeout_ms / 1000,
                        p->conf.idle_timeout_ms / 1000, p->conf.max_conns);
        }
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret_text = text;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("net_proxy"),
        .summary = "egress proxy (HTTP CONNECT, plain HTTP, SOCKS5) in the supervisor, deciding per destination",
        .args = np_args,
        .covers = 0,
        .init = np_init,
        .fini = np_fini,
        .probe = np_probe,
        .pre_exec = np_pre_exec,
        .in_sandbox = np_in_sandbox,
        .egress = np_egress,
        .explain = np_explain,
        .supervise_fd = np_supervise_fd,
};
