/* SPDX-License-Identifier: MIT */
/*
 * The client's side of a checked connection: client bytes go upstream only
 * once np_reqs has judged them (every request of a tunnel that carries
 * HTTP, or the body of a plain-HTTP request).  The first reqs.ok bytes of
 * c->in are judged and wait for the upstream socket; what follows them is
 * not judged yet and is never sent before it is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "np_conn.h"

void np_stream_tunnel(struct np_conn *c)
{
        np_reqs_init_tunnel(&c->reqs, &c->dest, c->port, NULL); /* max_head is NP_HEAD_MAX, c->in's size */
        c->checked = true;
}

void np_stream_plain(struct np_conn *c, const struct np_http_req *req)
{
        np_reqs_init_body(&c->reqs, req);
        c->checked = true;
}

/* Nothing more goes upstream: what is judged still does, the rest never. */
static void end_requests(struct np_conn *c)
{
        c->in_len = c->reqs.ok;
        c->c2u.src_eof = true;
}

/* A request refused inside a tunnel: the ones before it were passed and
 * may still be answered, so the upstream side ends (half-closed once the
 * judged bytes are out) and their answers drain; nothing of it is sent. */
static void refuse(struct np_conn *c)
{
        snprintf(c->reason, sizeof(c->reason), "tunnel to %s:%u: %s (after %u requests)", c->host, c->port,
                 c->reqs.why, c->reqs.n);
        np_conn_log(c, STK_LOG_WARNING, "%s", c->reason);
        c->verdict = "deny";
        c->decider = "net_proxy";
        c->stopped = c->refused = true;
        end_requests(c);
}

/* The judged bytes to upstream: 1 when all are out, 0 when the socket is
 * full, -errno. */
static int send_judged(struct np_conn *c)
{
        while (c->reqs.ok) {
                ssize_t n = send(c->ufd, c->in, c->reqs.ok, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                memmove(c->in, c->in + n, c->in_len - (size_t) n);
                c->in_len -= (size_t) n;
                np_reqs_sent(&c->reqs, (size_t) n);
                c->c2u.total += (uint64_t) n;
        }
        return 1;
}

/* More client bytes: 1 with some (or at EOF), 0 for none yet, -errno.  At
 * EOF a tunnel's upstream side ends (a half-close passes on); a plain
 * request whose body was cut short is an error, as it was before. */
static int receive(struct np_conn *c)
{
        ssize_t n;

        if (c->in_len == NP_HEAD_MAX)
                return 0; /* not reached: a full buffer is a refused head, or judged body */
        n = recv(c->cfd, c->in + c->in_len, NP_HEAD_MAX - c->in_len, MSG_DONTWAIT);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        if (n == 0 && !c->reqs.tunnel)
                return -ECONNRESET;
        if (n == 0)
                end_requests(c);
        c->in_len += (size_t) n;
        return 1;
}

/* Everything judged is out and no more will come. */
static void finish(struct np_conn *c)
{
        c->in_len = 0;
        if (c->c2u.done)
                return;
        if (c->reqs.tunnel) /* plain HTTP: the origin closes after its answer (Connection: close) */
                (void) shutdown(c->ufd, SHUT_WR); /* ENOTCONN: gone already, which the next read sees */
        c->c2u.done = true;
}

/* Client to upstream for a checked connection: 0, or -errno when it broke. */
int np_stream_move(struct np_conn *c, bool *progress)
{
        for (int rounds = 0;; rounds++) {
                int r = send_judged(c);
                if (r <= 0)
                        return r;
                if (c->c2u.src_eof) {
                        finish(c);
                        return 0;
                }
                r = np_reqs_judge(&c->reqs, c->in, c->in_len);
                if (r == NP_BAD && !c->reqs.tunnel)
                        return -EPROTO;
                if (r == NP_BAD)
                        refuse(c);
                else if (r == NP_DONE)
                        end_requests(c); /* what follows a plain request's body is not passed on */
                if (r != NP_NEED_MORE || c->reqs.ok > 0)
                        continue;
                /* All of c->in is judged and out but an unfinished head: a
                 * bounded number of reads per wake-up, the rest next time. */
                if (rounds >= 64)
                        return 0;
                r = receive(c);
                if (r <= 0)
                        return r;
                *progress = true;
        }
}

bool np_stream_wants_client(const struct np_conn *c)
{
        return !c->c2u.src_eof && !c->uout_len && c->in_len < NP_HEAD_MAX;
}
