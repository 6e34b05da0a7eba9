/* SPDX-License-Identifier: MIT */
/*
 * A request: parse it (HTTP or SOCKS5), decide (the egress phase of the
 * stack, with approvals), resolve (the static map, an allowed address
 * literal, or DNS on the resolver thread), keep only addresses the policy
 * allows (public ones, unless named), connect.  Every refusal answers the
 * client in its own protocol with the reason, and is logged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_conn.h"
#include "np_http.h"
#include "np_socks.h"

static void answer_http(struct np_conn *c, int status, const char *reason)
{
        int n = np_http_error_response(status, reason, c->cout, sizeof(c->cout));

        if (n < 0)
                n = np_http_error_response(400, reason, c->cout, sizeof(c->cout));
        c->cout_len = n > 0 ? (size_t) n : 0;
        c->cout_off = 0;
}

static void answer_socks(struct np_conn *c, int code)
{
        int n = np_socks_reply((uint8_t) code, NULL, 0, (uint8_t *) c->cout, sizeof(c->cout));

        c->cout_len = n > 0 ? (size_t) n : 0;
        c->cout_off = 0;
}

/* Answer, log, and go to CLOSING.  A SOCKS client still in its greeting
 * gets nothing: the protocol has no error for that moment. */
void np_refuse(struct np_conn *c, int http_status, int socks_code, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(c->reason, sizeof(c->reason), fmt, ap); /* truncation only shortens a message */
        va_end(ap);
        np_conn_log(c, STK_LOG_WARNING, "refused: %s", c->reason);
        c->refused = true;
        if (c->kind == NP_K_SOCKS && c->state != NP_S_SOCKS_HELLO)
                answer_socks(c, socks_code);
        else if (c->kind != NP_K_SOCKS)
                answer_http(c, http_status, c->reason);
        if (c->ufd >= 0) {
                if (c->u_events)
                        (void) c->p->host->unwatch_fd(c->p->ctx, c->ufd);
                c->u_events = 0;
                close(c->ufd);
                c->ufd = -1;
        }
        c->state = NP_S_CLOSING;
        c->deadline_ms = stk_now_ms() + 2000; /* drain what the client still sends, briefly */
        np_conn_update(c);
}

static void connect_next(struct np_conn *c);

/* The egress phase: the stack's egress lines, then approvals on ASK. */
static bool decide(struct np_conn *c, const char *scheme)
{
        struct stk_egress e = { .host = c->host, .port = c->port, .scheme = scheme };
        enum stk_verdict v = STK_DENY;
        const char *decider = "net_proxy";
        int r;

        c->p->last_why[0] = '\0';
        r = c->p->host->egress_decide(c->p->ctx, &e, &v, &decider);

        c->decider = decider;
        c->verdict = r >= 0 && v == STK_ALLOW ? "allow" : "deny";
        if (r < 0 || v != STK_ALLOW) {
                bool ours = strcmp(decider, "net_proxy") == 0 && c->p->last_why[0];
                np_refuse(c, 403, NP_SOCKS_NOT_ALLOWED, "%s:%u denied by policy (%s%s%s)", c->host, c->port, decider,
                          ours ? ": " : "", ours ? c->p->last_why : "");
                return false;
        }
        return true;
}

static void set_port(struct sockaddr_storage *a, uint16_t port)
{
        if (a->ss_family == AF_INET)
                ((struct sockaddr_in *) a)->sin_port = htons(port);
        else
                ((struct sockaddr_in6 *) a)->sin6_port = htons(port);
}

static int ip_sockaddr(const struct np_ip *ip, uint16_t port, struct sockaddr_storage *ret)
{
        memset(ret, 0, sizeof(*ret));
        if (ip->family == AF_INET) {
                struct sockaddr_in *a = (struct sockaddr_in *) ret;
                a->sin_family = AF_INET;
                memcpy(&a->sin_addr, ip->bytes, 4);
        } else if (ip->family == AF_INET6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) ret;
                a->sin6_family = AF_INET6;
                memcpy(&a->sin6_addr, ip->bytes, 16);
        } else
                return -EAFNOSUPPORT;
        set_port(ret, port);
        return 0;
}

static void addr_text(const struct sockaddr_storage *a, char *buf, size_t size)
{
        const void *src = a->ss_family == AF_INET ? (const void *) &((const struct sockaddr_in *) a)->sin_addr
                                                  : (const void *) &((const struct sockaddr_in6 *) a)->sin6_addr;

        if (!inet_ntop(a->ss_family, src, buf, (socklen_t) size))
                snprintf(buf, size, "?");
}

/* Keep the addresses the policy allows; none left is a refusal that says why. */
static void use_addresses(struct np_conn *c, const struct sockaddr_storage *addrs, size_t n, bool explicit_dest)
{
        char first_bad[64] = "";

        const char *cls = "public";

        c->n_addrs = c->addr_i = 0;
        for (size_t i = 0; i < n && c->n_addrs < NP_MAX_ADDRS; i++) {
                if (np_policy_address_ok(&c->p->conf, &addrs[i], explicit_dest))
                        c->addrs[c->n_addrs++] = addrs[i];
                else if (!*first_bad) {
                        addr_text(&addrs[i], first_bad, sizeof(first_bad));
                        cls = np_addr_class_name(np_addr_classify_sockaddr((const struct sockaddr *) &addrs[i],
                                                                           sizeof(addrs[i])));
                }
        }
        if (c->n_addrs == 0) {
                np_refuse(c, 403, NP_SOCKS_NOT_ALLOWED, "%s resolves to %s, a %s address, which is not a public address (net_proxy allow_private)",
                          c->host, *first_bad ? first_bad : "nothing", cls);
                return;
        }
        connect_next(c);
}

void np_dns_done(struct np_proxy *p, uint64_t conn_id, int err, const struct sockaddr_storage *addrs, size_t n)
{
        struct np_conn *c = p->conns;

        while (c && c->id != conn_id)
                c = c->next;
        if (!c || c->state != NP_S_RESOLVING)
                return; /* closed meanwhile */
        if (err < 0) {
                np_refuse(c, 502, NP_SOCKS_HOST_UNREACHABLE, "%s: cannot resolve (%s)", c->host, strerror(-err));
                return;
        }
        use_addresses(c, addrs, n, false);
}

static void resolve(struct np_conn *c, const struct np_host *h)
{
        const struct np_resolve *map = np_policy_resolve(&c->p->conf, c->host, c->port);
        struct sockaddr_storage a;
        int r;

        if (map || h->kind != NP_HOST_NAME) {
                /* No lookup: the map's address, or the literal itself, used
                 * whatever its class only when the policy names it. */
                if (ip_sockaddr(map ? &map->ip : &h->ip, c->port, &a) < 0) {
                        np_refuse(c, 500, NP_SOCKS_FAILURE, "%s: unusable address", c->host);
                        return;
                }
                use_addresses(c, &a, 1, map || np_policy_listed_address(&c->p->conf, h));
                return;
        }
        c->state = NP_S_RESOLVING;
        np_conn_update(c);
        r = np_dns_lookup(c->p->dns, c->id, c->host, c->port);
        if (r < 0)
                np_refuse(c, 502, NP_SOCKS_HOST_UNREACHABLE, "%s: cannot resolve (%s)", c->host, strerror(-r));
}

/* Destination known: decide, then resolve and connect. */
static void go(struct np_conn *c, const struct np_host *h, uint16_t port, const char *scheme)
{
        snprintf(c->host, sizeof(c->host), "%s", h->text);
        c->port = port;
        c->dest = *h;
        if (decide(c, scheme))
                resolve(c, h);
}

static void connect_failed(struct np_conn *c, int err)
{
        if (c->u_events)
                (void) c->p->host->unwatch_fd(c->p->ctx, c->ufd);
        c->u_events = 0;
        close(c->ufd);
        c->ufd = -1;
        if (++c->addr_i < c->n_addrs) {
                connect_next(c);
                return;
        }
        np_refuse(c, 502, err == ECONNREFUSED ? NP_SOCKS_REFUSED : NP_SOCKS_HOST_UNREACHABLE, "%s:%u (%s): %s", c->host, c->port, c->peer, strerror(err));
}

static void connected(struct np_conn *c);

static void connect_next(struct np_conn *c)
{
        const struct sockaddr_storage *a = &c->addrs[c->addr_i];
        socklen_t len = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);

        addr_text(a, c->peer, sizeof(c->peer));
        c->ufd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->ufd < 0) {
                np_refuse(c, 502, NP_SOCKS_FAILURE, "socket: %s", strerror(errno));
                return;
        }
        if (connect(c->ufd, (const struct sockaddr *) a, len) == 0) {
                connected(c);
                return;
        }
        if (errno != EINPROGRESS) {
                connect_failed(c, errno);
                return;
        }
        c->state = NP_S_CONNECTING;
        c->deadline_ms = stk_now_ms() + c->p->conf.connect_timeout_ms;
        np_conn_update(c);
}

void np_upstream_ready(struct np_conn *c)
{
        int err = 0;
        socklen_t len = sizeof(err);

        if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                err = errno;
        if (err == 0)
                connected(c);
        else
                connect_failed(c, err);
}

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* Upstream is there.  CONNECT and SOCKS: tell the client, then check what
 * it sends first.  Plain HTTP: the rewritten head goes first, then the body. */
static void connected(struct np_conn *c)
{
        c->last_active_ms = stk_now_ms();
        c->deadline_ms = c->last_active_ms + c->p->conf.header_timeout_ms;
        if (c->kind == NP_K_CONNECT) {
                memcpy(c->cout, established, sizeof(established) - 1);
                c->cout_len = sizeof(established) - 1;
                c->cout_off = 0;
        } else if (c->kind == NP_K_SOCKS) {
                int n = np_socks_reply(NP_SOCKS_OK, NULL, 0, (uint8_t *) c->cout, sizeof(c->cout));
                c->cout_len = n > 0 ? (size_t) n : 0;
                c->cout_off = 0;
        }
        if (c->kind == NP_K_HTTP || c->p->conf.allow_opaque) {
                if (np_tunnel_start(c) < 0)
                        np_refuse(c, 500, NP_SOCKS_FAILURE, "setting up the tunnel: %s", strerror(errno));
                return;
        }
        c->state = NP_S_PEEK;
        np_conn_update(c);
        if (c->in_len > 0)
                np_peek_step(c); /* the client did not wait for our answer */
}

static void drop_head(struct np_conn *c, size_t n)
{
        memmove(c->in, c->in + n, c->in_len - n);
        c->in_len -= n;
}

static void http_step(struct np_conn *c)
{
        struct np_http_parser *hp = &c->http;
        const struct np_http_req *req = &hp->req;
        int r = np_http_parse(hp, c->in, c->in_len);

        if (r == NP_NEED_MORE)
                return;
        if (r == NP_BAD) {
                np_refuse(c, hp->status, 0, "bad request: %s", hp->why);
                return;
        }
        c->kind = req->is_connect ? NP_K_CONNECT : NP_K_HTTP;
        if (c->kind == NP_K_HTTP) {
                /* Domain fronting over plain HTTP: the Host header must name the allowed host. */
                if (req->has_host_header &&
                    (strcmp(req->host_header.text, req->host.text) != 0 ||
                     (req->host_header_port ? req->host_header_port : 80) != req->port)) {
                        snprintf(c->host, sizeof(c->host), "%s", req->host.text);
                        c->port = req->port;
                        np_refuse(c, 403, 0, "Host header \"%s\" names another host than the request (%s)",
                                  req->host_header.text, req->host.text);
                        return;
                }
                if (np_http_prepare_upstream(c) < 0)
                        return;
        } else
                drop_head(c, req->head_len);
        go(c, &req->host, req->port, c->kind == NP_K_CONNECT ? "connect" : "http");
}

static void socks_hello_step(struct np_conn *c)
{
        uint8_t reply[2];
        size_t used = 0, reply_len = 0;
        const char *why = NULL;
        int r = np_socks_greeting((const uint8_t *) c->in, c->in_len, &used, reply, &reply_len, &why);

        if (r == NP_NEED_MORE)
                return;
        memcpy(c->cout, reply, reply_len);
        c->cout_len = reply_len;
        c->cout_off = 0;
        if (r == NP_BAD) {
                /* "No acceptable method" is the only answer a greeting has. */
                snprintf(c->reason, sizeof(c->reason), "bad SOCKS5 greeting: %s", why ? why : "malformed");
                np_conn_log(c, STK_LOG_WARNING, "refused: %s", c->reason);
                c->refused = true;
                c->state = NP_S_CLOSING;
                c->deadline_ms = stk_now_ms() + 2000;
                np_conn_update(c);
                return;
        }
        drop_head(c, used);
        c->state = NP_S_SOCKS_REQUEST;
        np_conn_update(c);
        if (c->in_len)
                np_request_step(c);
}

static void socks_request_step(struct np_conn *c)
{
        struct np_socks_request req;
        size_t used = 0;
        uint8_t rep = NP_SOCKS_FAILURE;
        const char *why = NULL;
        int r = np_socks_request_parse((const uint8_t *) c->in, c->in_len, &req, &used, &rep, &why);

        if (r == NP_NEED_MORE)
                return;
        if (r == NP_BAD) {
                np_refuse(c, 0, rep, "bad SOCKS5 request: %s", why ? why : "malformed");
                return;
        }
        drop_head(c, used);
        go(c, &req.host, req.port, "socks5");
}

void np_request_step(struct np_conn *c)
{
        switch (c->state) {
        case NP_S_FIRST:
                if (c->in_len == 0)
                        return;
                if ((unsigned char) c->in[0] == 0x05) {
                        c->kind = NP_K_SOCKS;
                        c->state = NP_S_SOCKS_HELLO;
                } else {
                        c->state = NP_S_HTTP_HEAD;
                        np_http_parser_init(&c->http, NULL);
                }
                np_request_step(c);
                return;
        case NP_S_HTTP_HEAD:
                http_step(c);
                return;
        case NP_S_SOCKS_HELLO:
                socks_hello_step(c);
                return;
        case NP_S_SOCKS_REQUEST:
                socks_request_step(c);
                return;
        default:
                return;
        }
}
