/* SPDX-License-Identifier: MIT */
/* One proxied connection: its state machine is spread over np_conn.c
 * (life cycle, events, timers), np_request.c (request, decision, upstream
 * connect) and np_tunnel.c (the content check and the spliced tunnel). */
#pragma once

#include <time.h>

#include "common/stk_time.h"
#include "np_body.h"
#include "np_http.h"
#include "np_internal.h"
#include "np_reqs.h"
#include "np_socks.h"

enum np_state {
        NP_S_FIRST,             /* nothing read yet: SOCKS5 starts with 0x05 */
        NP_S_HTTP_HEAD,         /* reading an HTTP request head */
        NP_S_SOCKS_HELLO,
        NP_S_SOCKS_REQUEST,
        NP_S_RESOLVING,
        NP_S_CONNECTING,
        NP_S_PEEK,              /* tunnel open: the client's first bytes must name the same host */
        NP_S_TUNNEL,
        NP_S_CLOSING,           /* writing a last answer, then draining what the client still sends */
};

enum np_kind { NP_K_NONE, NP_K_CONNECT, NP_K_HTTP, NP_K_SOCKS };

struct np_pipe {
        int r, w;
        size_t len;             /* bytes in the pipe */
        size_t cap;             /* what the pipe holds */
        uint64_t total;         /* bytes moved through it */
        bool src_eof;           /* the source said EOF */
        bool done;              /* src_eof and drained: the sink got SHUT_WR */
};

struct np_conn {
        struct np_conn *prev, *next;
        struct np_proxy *p;
        uint64_t id;
        enum np_state state;
        enum np_kind kind;
        int cfd, ufd;
        unsigned c_events, u_events;    /* what is watched now */
        bool client_shut;               /* CLOSING: our answer is out, SHUT_WR sent */
        bool refused;                   /* the proxy said no (np_refuse, a failed check) */

        char *in;                       /* NP_HEAD_MAX: client bytes not yet passed on */
        size_t in_len;
        char cout[512];                 /* our own answer to the client */
        size_t cout_len, cout_off;
        char *uout;                     /* bytes for upstream before the tunnel (a rewritten head) */
        size_t uout_len, uout_off;

        struct np_http_parser http;
        struct np_pipe c2u, u2c;
        /* Client bytes go upstream through np_stream.c, judged by np_reqs,
         * rather than spliced: a plain-HTTP request's body, or every request
         * of a tunnel that carries HTTP. */
        bool checked;
        bool stopped;                   /* a refused request ended what goes upstream */
        struct np_reqs reqs;

        char host[256];
        uint16_t port;
        struct np_host dest;            /* the destination allowed, as parsed */
        struct sockaddr_storage addrs[NP_MAX_ADDRS];
        size_t n_addrs, addr_i;
        char peer[64];                  /* the address connected to, for the audit */

        const char *verdict, *decider;
        char reason[640];               /* room for a host name and a why */
        struct timespec started;
        int64_t deadline_ms;            /* CLOCK_MONOTONIC: header, connect or drain deadline */
        int64_t last_active_ms;
};

void np_conn_close(struct np_conn *c, const char *reason);
void np_conn_update(struct np_conn *c);         /* re-arm watches for the state */
void np_conn_log(struct np_conn *c, enum stk_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* np_request.c */
void np_request_step(struct np_conn *c);        /* parse what is in c->in */
void np_upstream_ready(struct np_conn *c);      /* CONNECTING: connect finished or failed */
void np_refuse(struct np_conn *c, int http_status, int socks_code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* np_tunnel.c */
int np_http_prepare_upstream(struct np_conn *c);
void np_peek_step(struct np_conn *c);
int np_tunnel_start(struct np_conn *c);
void np_tunnel_pump(struct np_conn *c);

/* np_stream.c: client bytes, judged before they go */
void np_stream_tunnel(struct np_conn *c);       /* every request, checked against c->dest */
void np_stream_plain(struct np_conn *c, const struct np_http_req *req); /* one body, then nothing */
int np_stream_move(struct np_conn *c, bool *progress);
bool np_stream_wants_client(const struct np_conn *c);
unsigned np_tunnel_client_events(const struct np_conn *c);
unsigned np_tunnel_upstream_events(const struct np_conn *c);
void np_pipe_close(struct np_pipe *pp);
