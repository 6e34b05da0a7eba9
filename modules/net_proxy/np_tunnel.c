/* SPDX-License-Identifier: MIT */
/*
 * The tunnel.  Before it opens, the client's first bytes must name the host
 * that was allowed (domain fronting: a CONNECT to an allowed name carrying a
 * ClientHello for another): the SNI of a TLS ClientHello, read without
 * terminating TLS, or the target and Host of a plain HTTP request.  Then
 * bytes move by splice(2) through a pipe per direction, never copied
 * through user space, except client bytes that must be judged as they go
 * (np_stream.c): a plain-HTTP request body, framed (one request per
 * connection: what follows the body is not passed on), and every request
 * of a tunnel that carries HTTP.  After a ClientHello the rest of a TLS
 * stream is opaque: what it carries cannot be checked without decrypting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_conn.h"
#include "np_tls.h"

void np_pipe_close(struct np_pipe *pp)
{
        if (pp->r >= 0)
                close(pp->r);
        if (pp->w >= 0)
                close(pp->w);
        pp->r = pp->w = -1;
}

static int pipe_open(struct np_pipe *pp)
{
        int fds[2], cap;

        if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
                return -errno;
        pp->r = fds[0];
        pp->w = fds[1];
        /* A bigger pipe moves more per wake-up; the default is fine too. */
        (void) fcntl(pp->w, F_SETPIPE_SZ, NP_PIPE_SIZE);
        cap = fcntl(pp->w, F_GETPIPE_SZ);
        pp->cap = cap > 0 ? (size_t) cap : 65536;
        return 0;
}

/* Plain HTTP: the rewritten head is the first thing upstream gets; what
 * the client sent after its head is body, counted by the framing. */
int np_http_prepare_upstream(struct np_conn *c)
{
        const struct np_http_req *req = &c->http.req;
        size_t size = req->head_len + 512;
        int n;

        c->uout = malloc(size);
        if (!c->uout) {
                np_refuse(c, 500, 0, "out of memory");
                return -ENOMEM;
        }
        n = np_http_rewrite(&c->http, c->in, c->uout, size);
        if (n < 0) {
                np_refuse(c, 500, 0, "cannot rewrite the request head (%s)", strerror(-n));
                return n;
        }
        c->uout_len = (size_t) n;
        c->uout_off = 0;
        memmove(c->in, c->in + req->head_len, c->in_len - req->head_len);
        c->in_len -= req->head_len;
        np_stream_plain(c, req);
        return 0;
}

static void fail_check(struct np_conn *c, const char *why)
{
        snprintf(c->reason, sizeof(c->reason), "tunnel to %s:%u closed: %s", c->host, c->port, why);
        np_conn_log(c, STK_LOG_WARNING, "%s", c->reason);
        c->verdict = "deny";
        c->decider = "net_proxy";
        c->refused = true;
        np_conn_close(c, c->reason);
}

/* NULL when the ClientHello names the allowed host; else why not, or
 * "" when more bytes are needed.  A tunnel to an address has no name to
 * compare: its ClientHello must carry none (clients send no SNI for an
 * address; a name there would be one the policy never allowed). */
static const char *check_tls(struct np_conn *c, char *msg, size_t size)
{
        /* Parsed from the start at each read: the parser is big and the event
         * loop single-threaded, so one static instance serves every connection. */
        static struct np_tls_parser h;
        int r;

        np_tls_init(&h);
        r = np_tls_parse(&h, (const uint8_t *) c->in, c->in_len);
        if (r == NP_NEED_MORE)
                return c->in_len >= NP_HEAD_MAX ? "ClientHello too large" : "";
        if (r == NP_BAD) {
                snprintf(msg, size, "not a valid TLS ClientHello (%s)", h.why ? h.why : "malformed");
                return msg;
        }
        if (h.has_ech && !c->p->conf.allow_ech)
                return "encrypted ClientHello (ECH) hides the server name (allow_ech)";
        if (c->dest.kind != NP_HOST_NAME && !h.has_sni)
                return NULL;
        if (c->dest.kind != NP_HOST_NAME) {
                snprintf(msg, size, "ClientHello names \"%s\" in a tunnel to an address", h.sni);
                return msg;
        }
        if (!h.has_sni)
                return c->p->conf.allow_missing_sni ? NULL : "ClientHello without SNI (allow_missing_sni)";
        if (strcmp(h.sni, c->dest.text) == 0) /* both normalized by np_host_parse */
                return NULL;
        snprintf(msg, size, "ClientHello names \"%s\", not the allowed host", h.sni);
        return msg;
}

/* The same for the first HTTP request inside the tunnel, judged as every
 * later one will be (np_stream.c): its target and Host name the host. */
static const char *check_http(struct np_conn *c)
{
        int r;

        if (!c->checked)
                np_stream_tunnel(c);
        r = np_reqs_judge(&c->reqs, c->in, c->in_len);
        if (r == NP_BAD)
                return c->reqs.why;
        return c->reqs.n ? NULL : ""; /* the first head passed, or more bytes to come */
}

void np_peek_step(struct np_conn *c)
{
        char msg[300];
        const char *why;
        unsigned char b0;

        if (c->in_len == 0)
                return;
        b0 = (unsigned char) c->in[0];
        if (b0 == 0x16)
                why = check_tls(c, msg, sizeof(msg));
        else if (np_is_tchar(b0))
                why = check_http(c);
        else
                why = "neither TLS nor HTTP (allow_opaque)";
        if (why && !*why)
                return; /* more bytes to come */
        if (why)
                fail_check(c, why);
        else if (np_tunnel_start(c) < 0)
                fail_check(c, strerror(errno));
}

int np_tunnel_start(struct np_conn *c)
{
        int r = pipe_open(&c->c2u);

        if (r >= 0)
                r = pipe_open(&c->u2c);
        if (r < 0) {
                errno = -r;
                return -1;
        }
        if (!c->checked && c->in_len) {
                /* What the client already sent goes first. */
                c->uout = malloc(c->in_len);
                if (!c->uout) {
                        errno = ENOMEM;
                        return -1;
                }
                memcpy(c->uout, c->in, c->in_len);
                c->uout_len = c->in_len;
                c->uout_off = 0;
                c->in_len = 0;
        }
        if (!c->checked) {
                free(c->in);
                c->in = NULL;
        }
        c->state = NP_S_TUNNEL;
        c->last_active_ms = stk_now_ms();
        np_tunnel_pump(c);
        return 0;
}

/* Our own bytes for upstream: 1, all written; 0, not yet; < 0, an error. */
static int flush_uout(struct np_conn *c)
{
        while (c->uout_off < c->uout_len) {
                ssize_t n = send(c->ufd, c->uout + c->uout_off, c->uout_len - c->uout_off, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                c->uout_off += (size_t) n;
                c->c2u.total += (uint64_t) n;
        }
        free(c->uout);
        c->uout = NULL;
        c->uout_off = c->uout_len = 0;
        return 1;
}

/* One direction through its pipe.  0, or -errno when the connection broke. */
static int move(int from, struct np_pipe *pp, int to, bool *progress)
{
        for (int round = 0; round < 16; round++) {
                bool moved = false;
                ssize_t n;

                if (!pp->src_eof && pp->len < pp->cap) {
                        n = splice(from, NULL, pp->w, NULL, pp->cap - pp->len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                        if (n > 0)
                                pp->len += (size_t) n;
                        else if (n == 0)
                                pp->src_eof = true;
                        else if (errno != EAGAIN)
                                return -errno;
                        moved |= n >= 0;
                }
                if (pp->len > 0) {
                        n = splice(pp->r, NULL, to, NULL, pp->len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                        if (n > 0) {
                                pp->len -= (size_t) n;
                                pp->total += (uint64_t) n;
                                moved = true;
                        } else if (n < 0 && errno != EAGAIN)
                                return -errno;
                }
                if (pp->src_eof && pp->len == 0 && !pp->done) {
                        (void) shutdown(to, SHUT_WR); /* ENOTCONN: the peer is gone, which the next call sees */
                        pp->done = true;
                }
                *progress |= moved;
                if (!moved)
                        break;
        }
        return 0;
}

unsigned np_tunnel_client_events(const struct np_conn *c)
{
        unsigned ev = c->u2c.len > 0 ? STK_WATCH_OUT : 0;

        if (c->checked ? np_stream_wants_client(c) : !c->c2u.src_eof && !c->uout_len && c->c2u.len < c->c2u.cap)
                ev |= STK_WATCH_IN;
        return ev;
}

unsigned np_tunnel_upstream_events(const struct np_conn *c)
{
        unsigned ev = !c->u2c.src_eof && c->u2c.len < c->u2c.cap ? STK_WATCH_IN : 0;

        if (c->c2u.len > 0 || c->uout_len || (c->checked && c->reqs.ok))
                ev |= STK_WATCH_OUT;
        return ev;
}

void np_tunnel_pump(struct np_conn *c)
{
        bool progress = false;
        int r = flush_uout(c);

        if (r > 0 && c->checked && !c->c2u.done)
                r = np_stream_move(c, &progress);
        else if (r > 0 && !c->checked)
                r = move(c->cfd, &c->c2u, c->ufd, &progress);
        if (r >= 0)
                r = move(c->ufd, &c->u2c, c->cfd, &progress);
        if (r < 0) {
                np_conn_close(c, r == -EPROTO ? "malformed request body" : "connection reset");
                return;
        }
        if (progress)
                c->last_active_ms = stk_now_ms();
        if (c->c2u.done && c->u2c.done) {
                np_conn_close(c, c->stopped ? c->reason : "done");
                return;
        }
        np_conn_update(c);
}
