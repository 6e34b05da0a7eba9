/* SPDX-License-Identifier: MIT */
/*
 * Connections: accept, the events of both sockets, timers, and the one audit
 * record each connection leaves when it closes.  No thread per connection:
 * everything runs in the supervisor's event loop, non-blocking.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_conn.h"

/* What a flood of connections makes the proxy say is bounded (np_quiet.h):
 * a token bucket for warnings and errors, another for info and debug (the
 * core drops those below its level, which a module cannot see, so they
 * must not use up the warnings' tokens). */
void np_log(struct np_proxy *p, struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
{
        int k = level <= STK_LOG_WARNING ? 0 : 1;
        uint64_t untold;
        char msg[600];
        va_list ap;

        if (!stk_bucket_take(&p->logs[k], stk_now_ms()))
                return;
        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap); /* truncation only shortens a log line */
        va_end(ap);
        untold = p->logs[k].dropped - p->logs_told[k];
        p->logs_told[k] = p->logs[k].dropped;
        ctx = ctx ? ctx : p->ctx;
        if (untold)
                p->host->log(ctx, level, "%s (%llu similar lines suppressed before this one)", msg,
                             (unsigned long long) untold);
        else
                p->host->log(ctx, level, "%s", msg);
}

void np_conn_log(struct np_conn *c, enum stk_log_level level, const char *fmt, ...)
{
        char msg[512];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap); /* truncation only shortens a log line */
        va_end(ap);
        np_log(c->p, NULL, level, "connection %llu: %s", (unsigned long long) c->id, msg);
}

static const char *kind_name(enum np_kind k)
{
        switch (k) {
        case NP_K_CONNECT: return "connect";
        case NP_K_HTTP: return "http";
        case NP_K_SOCKS: return "socks5";
        default: return "unknown";
        }
}

static void put_time(struct json_object *o, const char *key, const struct timespec *ts)
{
        char buf[STK_TIME_ISO_MAX];

        if (stk_time_iso(ts, buf, sizeof(buf)) > 0)
                json_object_object_add(o, key, json_object_new_string(buf));
}

/* Refusals folded by np_fold, as one record. */
static void audit_folded(void *userdata, const struct np_fold_entry *e)
{
        struct np_proxy *p = userdata;
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "protocol", json_object_new_string(e->protocol));
        json_object_object_add(o, "host", json_object_new_string(e->host));
        json_object_object_add(o, "port", json_object_new_int(e->port));
        json_object_object_add(o, "verdict", json_object_new_string("deny"));
        json_object_object_add(o, "count", json_object_new_int64((int64_t) e->count));
        put_time(o, "first", &e->first);
        put_time(o, "last", &e->last);
        json_object_object_add(o, "reason", json_object_new_string(e->reason));
        (void) p->host->audit(p->ctx, "egress-refused", json_object_to_json_string(o));
        json_object_put(o);
}

/* A refusal (or a connection that never made a request) that nothing went
 * through: the first of its destination is recorded in full, later ones
 * folded (np_quiet.h).  True: folded, nothing more to write. */
static bool fold_refusal(struct np_conn *c, const char *reason)
{
        struct timespec now;

        if ((!c->refused && c->verdict) || c->c2u.total || c->u2c.total)
                return false;
        (void) clock_gettime(CLOCK_REALTIME, &now);
        return !np_fold_refusal(&c->p->fold, c->host, c->host[0] ? c->port : 0, kind_name(c->kind), reason, stk_now_ms(),
                                &now, audit_folded, c->p);
}

void np_quiet_start(struct np_proxy *p)
{
        int64_t now = stk_now_ms();

        np_fold_init(&p->fold, now);
        stk_bucket_init(&p->logs[0], NP_LOG_RATE, NP_LOG_BURST, now);
        stk_bucket_init(&p->logs[1], NP_LOG_RATE, NP_LOG_BURST, now);
        p->logs_told[0] = p->logs_told[1] = 0;
}

void np_quiet_tick(struct np_proxy *p)
{
        np_fold_tick(&p->fold, stk_now_ms(), audit_folded, p);
}

/* The end of the run: what was folded, and how much was held back. */
void np_quiet_end(struct np_proxy *p)
{
        struct json_object *o;
        uint64_t warnings = p->logs[0].dropped;

        np_fold_flush(&p->fold, audit_folded, p);
        if (!p->fold.refused && !warnings && !p->logs[1].dropped)
                return;
        o = json_object_new_object();
        json_object_object_add(o, "refused", json_object_new_int64((int64_t) p->fold.refused));
        json_object_object_add(o, "folded", json_object_new_int64((int64_t) p->fold.folded));
        json_object_object_add(o, "records", json_object_new_int64((int64_t) p->fold.records));
        json_object_object_add(o, "warnings_suppressed", json_object_new_int64((int64_t) warnings));
        /* info and debug lines the core may have dropped anyway */
        json_object_object_add(o, "info_suppressed", json_object_new_int64((int64_t) p->logs[1].dropped));
        (void) p->host->audit(p->ctx, "egress-summary", json_object_to_json_string(o));
        json_object_put(o);
        if (p->fold.folded || warnings)
                p->host->log(p->ctx, STK_LOG_WARNING,
                             "%llu refusals, %llu of them folded into %llu audit records; %llu warnings suppressed",
                             (unsigned long long) p->fold.refused, (unsigned long long) p->fold.folded,
                             (unsigned long long) p->fold.records, (unsigned long long) warnings);
}

static void audit_conn(struct np_conn *c, const char *reason)
{
        struct json_object *o;
        struct timespec now;
        double ms;

        if (fold_refusal(c, reason))
                return;
        o = json_object_new_object();
        (void) clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (double) (now.tv_sec - c->started.tv_sec) * 1e3 + (double) (now.tv_nsec - c->started.tv_nsec) / 1e6;
        json_object_object_add(o, "connection", json_object_new_int64((int64_t) c->id));
        json_object_object_add(o, "protocol", json_object_new_string(kind_name(c->kind)));
        json_object_object_add(o, "host", json_object_new_string(c->host));
        json_object_object_add(o, "port", json_object_new_int(c->port));
        json_object_object_add(o, "verdict", json_object_new_string(c->verdict ? c->verdict : "none"));
        json_object_object_add(o, "decider", json_object_new_string(c->decider ? c->decider : "net_proxy"));
        json_object_object_add(o, "address", json_object_new_string(c->peer));
        json_object_object_add(o, "bytes_out", json_object_new_int64((int64_t) c->c2u.total));
        json_object_object_add(o, "bytes_in", json_object_new_int64((int64_t) c->u2c.total));
        if (c->checked) /* each one judged on its own */
                json_object_object_add(o, "requests", json_object_new_int64((int64_t) c->reqs.n));
        json_object_object_add(o, "duration_ms", json_object_new_double(ms));
        json_object_object_add(o, "end", json_object_new_string(reason));
        (void) c->p->host->audit(c->p->ctx, "egress-connection", json_object_to_json_string(o));
        json_object_put(o);
}

static void set_watch(struct np_conn *c, int fd, unsigned *cur, unsigned want, stk_watch_cb cb)
{
        int r = 0;

        if (fd < 0 || *cur == want)
                return;
        /* Nothing wanted: unwatch, so a hang-up we do not care about yet
         * cannot spin the loop; the next read or write sees it. */
        if (want == 0)
                r = c->p->host->unwatch_fd(c->p->ctx, fd);
        else
                r = c->p->host->watch_fd(c->p->ctx, fd, want, cb, c);
        if (r < 0 && want != 0) {
                np_conn_log(c, STK_LOG_ERROR, "watching a socket: %s", strerror(-r));
                np_conn_close(c, "internal error");
                return;
        }
        *cur = want;
}

static void on_client(struct stk_ctx *ctx, int fd, unsigned events, void *userdata);
static void on_upstream(struct stk_ctx *ctx, int fd, unsigned events, void *userdata);

static unsigned client_events(const struct np_conn *c)
{
        switch (c->state) {
        case NP_S_FIRST:
        case NP_S_HTTP_HEAD:
        case NP_S_SOCKS_HELLO:
        case NP_S_SOCKS_REQUEST:
        case NP_S_PEEK:
                return STK_WATCH_IN | (c->cout_off < c->cout_len ? STK_WATCH_OUT : 0);
        case NP_S_RESOLVING:
        case NP_S_CONNECTING:
                return 0;
        case NP_S_TUNNEL:
                return np_tunnel_client_events(c);
        case NP_S_CLOSING:
                return c->cout_off < c->cout_len ? STK_WATCH_OUT : STK_WATCH_IN;
        }
        return 0;
}

static unsigned upstream_events(const struct np_conn *c)
{
        if (c->state == NP_S_CONNECTING)
                return STK_WATCH_OUT;
        if (c->state == NP_S_TUNNEL)
                return np_tunnel_upstream_events(c);
        return 0;
}

void np_conn_update(struct np_conn *c)
{
        set_watch(c, c->cfd, &c->c_events, client_events(c), on_client);
        set_watch(c, c->ufd, &c->u_events, upstream_events(c), on_upstream);
}

void np_conn_close(struct np_conn *c, const char *reason)
{
        struct np_proxy *p = c->p;

        audit_conn(c, reason);
        if (c->cfd >= 0) {
                if (c->c_events)
                        (void) p->host->unwatch_fd(p->ctx, c->cfd);
                close(c->cfd);
        }
        if (c->ufd >= 0) {
                if (c->u_events)
                        (void) p->host->unwatch_fd(p->ctx, c->ufd);
                close(c->ufd);
        }
        np_pipe_close(&c->c2u);
        np_pipe_close(&c->u2c);
        if (c->prev)
                c->prev->next = c->next;
        else
                p->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        p->n_conns--;
        free(c->uout);
        free(c->in);
        free(c);
}

/* Our own short answer (a SOCKS reply, "200 Connection established")
 * before the state that reads. */
static bool flush_cout(struct np_conn *c)
{
        while (c->cout_off < c->cout_len) {
                ssize_t n = send(c->cfd, c->cout + c->cout_off, c->cout_len - c->cout_off, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0 && errno == EAGAIN)
                        return true;
                if (n <= 0) {
                        np_conn_close(c, c->state == NP_S_CLOSING ? c->reason : "client went away");
                        return false;
                }
                c->cout_off += (size_t) n;
        }
        c->cout_off = c->cout_len = 0;
        return true;
}

/* Our answer is out: stop writing, read until the client closes (or the
 * drain deadline), so closing does not reset the connection under it. */
static void closing_step(struct np_conn *c)
{
        if (!flush_cout(c) || c->cout_off < c->cout_len)
                return; /* closed, or the rest when the socket drains */
        if (!c->client_shut) {
                (void) shutdown(c->cfd, SHUT_WR); /* ENOTCONN: gone already, which the read below sees */
                c->client_shut = true;
        }
        for (;;) {
                char sink[4096];
                ssize_t n = recv(c->cfd, sink, sizeof(sink), MSG_DONTWAIT);
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n <= 0) {
                        np_conn_close(c, c->reason);
                        return;
                }
        }
        np_conn_update(c);
}

/* Head states: read what the client sent, then let the parser look. */
static void read_head(struct np_conn *c)
{
        ssize_t n;

        if (c->in_len == NP_HEAD_MAX) {
                np_refuse(c, 431, NP_SOCKS_FAILURE, "request head larger than %d bytes", NP_HEAD_MAX);
                return;
        }
        n = recv(c->cfd, c->in + c->in_len, NP_HEAD_MAX - c->in_len, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        if (n <= 0) {
                np_conn_close(c, n == 0 ? "client closed before a request" : "client error");
                return;
        }
        c->in_len += (size_t) n;
        c->last_active_ms = stk_now_ms();
        if (c->state == NP_S_PEEK)
                np_peek_step(c);
        else
                np_request_step(c);
}

static void on_client(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct np_conn *c = userdata;

        switch (c->state) {
        case NP_S_CLOSING:
                closing_step(c);
                return;
        case NP_S_TUNNEL:
                np_tunnel_pump(c);
                return;
        case NP_S_RESOLVING:
        case NP_S_CONNECTING:
                return; /* a stale wake-up */
        default:
                if ((events & STK_WATCH_OUT) && !flush_cout(c))
                        return;
                if (events & STK_WATCH_IN)
                        read_head(c);
                else
                        np_conn_update(c);
        }
}

static void on_upstream(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct np_conn *c = userdata;

        if (c->state == NP_S_CONNECTING)
                np_upstream_ready(c);
        else if (c->state == NP_S_TUNNEL)
                np_tunnel_pump(c);
}

static int new_conn(struct np_proxy *p, int fd)
{
        struct np_conn *c = calloc(1, sizeof(*c));

        if (!c || !(c->in = malloc(NP_HEAD_MAX))) {
                free(c);
                return -ENOMEM;
        }
        c->p = p;
        c->id = ++p->next_id;
        c->cfd = fd;
        c->ufd = -1;
        c->c2u = c->u2c = (struct np_pipe) { .r = -1, .w = -1 };
        (void) clock_gettime(CLOCK_MONOTONIC, &c->started);
        c->last_active_ms = stk_now_ms();
        c->deadline_ms = c->last_active_ms + p->conf.header_timeout_ms;
        c->next = p->conns;
        if (p->conns)
                p->conns->prev = c;
        p->conns = c;
        p->n_conns++;
        np_conn_update(c);
        return 0;
}

/* Accept what is waiting.  Over the cap, a connection is closed at once
 * (and logged): the proxy keeps serving the ones it has. */
int np_accept_on(struct np_proxy *p, int listen_fd)
{
        for (int i = 0; i < 64; i++) {
                int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0)
                        return errno == EAGAIN || errno == ECONNABORTED || errno == EINTR ? 0 : -errno;
                if (p->n_conns >= (size_t) p->conf.max_conns) {
                        np_log(p, NULL, STK_LOG_WARNING, "%zu connections open (max_connections): refusing one", p->n_conns);
                        close(fd);
                        continue;
                }
                if (new_conn(p, fd) < 0) {
                        close(fd);
                        return -ENOMEM;
                }
        }
        return 0;
}

static void expire(struct np_conn *c, int64_t now)
{
        switch (c->state) {
        case NP_S_FIRST:
        case NP_S_HTTP_HEAD:
        case NP_S_SOCKS_HELLO:
        case NP_S_SOCKS_REQUEST:
                if (now >= c->deadline_ms)
                        np_refuse(c, 408, NP_SOCKS_FAILURE, "no complete request within %d ms", c->p->conf.header_timeout_ms);
                return;
        case NP_S_PEEK:
                if (now >= c->deadline_ms) {
                        snprintf(c->reason, sizeof(c->reason), "tunnel: the client sent nothing to check");
                        np_conn_log(c, STK_LOG_WARNING, "%s:%u: %s", c->host, c->port, c->reason);
                        np_conn_close(c, c->reason);
                }
                return;
        case NP_S_RESOLVING:
                return; /* the resolver has its own timeouts */
        case NP_S_CONNECTING:
                if (now >= c->deadline_ms)
                        np_refuse(c, 504, NP_SOCKS_HOST_UNREACHABLE, "%s:%u: connect timed out", c->host, c->port);
                return;
        case NP_S_TUNNEL:
                if (now - c->last_active_ms >= c->p->conf.idle_timeout_ms)
                        np_conn_close(c, "idle timeout");
                return;
        case NP_S_CLOSING:
                if (now >= c->deadline_ms)
                        np_conn_close(c, c->reason);
                return;
        }
}

void np_tick(struct np_proxy *p)
{
        int64_t now = stk_now_ms();

        for (struct np_conn *c = p->conns, *next; c; c = next) {
                next = c->next;
                expire(c, now);
        }
}

void np_close_all(struct np_proxy *p)
{
        while (p->conns)
                np_conn_close(p->conns, "the command ended");
}

