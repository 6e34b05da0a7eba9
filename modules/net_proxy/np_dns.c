/* SPDX-License-Identifier: MIT */
/*
 * Name resolution off the event loop.  getaddrinfo blocks, and a slow DNS
 * server must not stall every other connection, so one worker thread takes
 * lookups from a queue and posts results back; an eventfd wakes the loop.
 * The thread starts with the first lookup, after the command was forked:
 * the fork never happens in a multi-threaded supervisor.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "np_internal.h"

struct np_lookup {
        struct np_lookup *next;
        uint64_t conn_id;
        char host[256];
        uint16_t port;
        int err;                        /* 0, or EAI_* mapped to -errno */
        struct sockaddr_storage addrs[NP_MAX_ADDRS];
        size_t n;
};

struct np_dns {
        struct np_proxy *p;
        pthread_t thread;
        bool started, stopping;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        struct np_lookup *todo, *done; /* both LIFO: order does not matter */
        int event_fd;
};

static int gai_errno(int e)
{
        switch (e) {
        case EAI_NONAME:
        case EAI_NODATA:
                return -ENOENT;
        case EAI_AGAIN:
                return -EAGAIN;
        case EAI_MEMORY:
                return -ENOMEM;
        default:
                return -EHOSTUNREACH;
        }
}

static void resolve_one(struct np_lookup *l)
{
        struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                                  .ai_flags = AI_ADDRCONFIG }, *res = NULL;
        int e = getaddrinfo(l->host, NULL, &hints, &res);

        if (e != 0) {
                l->err = gai_errno(e);
                return;
        }
        for (struct addrinfo *a = res; a && l->n < NP_MAX_ADDRS; a = a->ai_next) {
                if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) || a->ai_addrlen > sizeof(l->addrs[0]))
                        continue;
                memcpy(&l->addrs[l->n], a->ai_addr, a->ai_addrlen);
                if (a->ai_family == AF_INET)
                        ((struct sockaddr_in *) &l->addrs[l->n])->sin_port = htons(l->port);
                else
                        ((struct sockaddr_in6 *) &l->addrs[l->n])->sin6_port = htons(l->port);
                l->n++;
        }
        freeaddrinfo(res);
        l->err = l->n ? 0 : -ENOENT;
}

static void *worker(void *arg)
{
        struct np_dns *d = arg;

        pthread_mutex_lock(&d->lock);
        for (;;) {
                struct np_lookup *l;
                uint64_t one = 1;

                while (!d->todo && !d->stopping)
                        pthread_cond_wait(&d->wake, &d->lock);
                if (d->stopping)
                        break;
                l = d->todo;
                d->todo = l->next;
                pthread_mutex_unlock(&d->lock);
                resolve_one(l);
                pthread_mutex_lock(&d->lock);
                l->next = d->done;
                d->done = l;
                /* A full counter (never here) only delays the wake-up. */
                (void) !write(d->event_fd, &one, sizeof(one));
        }
        pthread_mutex_unlock(&d->lock);
        return NULL;
}

static void on_results(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct np_dns *d = userdata;
        struct np_lookup *l;
        uint64_t n;

        (void) !read(fd, &n, sizeof(n)); /* EAGAIN: a spurious wake-up */
        pthread_mutex_lock(&d->lock);
        l = d->done;
        d->done = NULL;
        pthread_mutex_unlock(&d->lock);
        while (l) {
                struct np_lookup *next = l->next;
                np_dns_done(d->p, l->conn_id, l->err, l->addrs, l->n);
                free(l);
                l = next;
        }
}

int np_dns_new(struct np_proxy *p, struct np_dns **ret)
{
        struct np_dns *d = calloc(1, sizeof(*d));
        int r;

        if (!d)
                return -ENOMEM;
        d->p = p;
        pthread_mutex_init(&d->lock, NULL);
        pthread_cond_init(&d->wake, NULL);
        d->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (d->event_fd < 0) {
                r = -errno;
                np_dns_free(d);
                return r;
        }
        r = p->host->watch_fd(p->ctx, d->event_fd, STK_WATCH_IN, on_results, d);
        if (r < 0) {
                np_dns_free(d);
                return r;
        }
        *ret = d;
        return 0;
}

static int start_worker(struct np_dns *d)
{
        sigset_t all, old;
        int e;

        /* The worker takes no signals: the supervisor reads them from a signalfd. */
        sigfillset(&all);
        if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
                return -EINVAL;
        e = pthread_create(&d->thread, NULL, worker, d);
        (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0)
                return -e;
        d->started = true;
        return 0;
}

int np_dns_lookup(struct np_dns *d, uint64_t conn_id, const char *host, uint16_t port)
{
        struct np_lookup *l = calloc(1, sizeof(*l));
        int r;

        if (!l)
                return -ENOMEM;
        if (strlen(host) >= sizeof(l->host)) {
                free(l);
                return -ENAMETOOLONG;
        }
        if (!d->started) {
                r = start_worker(d);
                if (r < 0) {
                        free(l);
                        return r;
                }
        }
        l->conn_id = conn_id;
        l->port = port;
        strcpy(l->host, host);
        pthread_mutex_lock(&d->lock);
        l->next = d->todo;
        d->todo = l;
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->lock);
        return 0;
}

static void free_list(struct np_lookup *l)
{
        while (l) {
                struct np_lookup *next = l->next;
                free(l);
                l = next;
        }
}

void np_dns_free(struct np_dns *d)
{
        if (!d)
                return;
        if (d->started) {
                /* A getaddrinfo in progress finishes first (it has its own
                 * timeouts); the run is over, so waiting is bounded by it. */
                pthread_mutex_lock(&d->lock);
                d->stopping = true;
                pthread_cond_signal(&d->wake);
                pthread_mutex_unlock(&d->lock);
                pthread_join(d->thread, NULL);
        }
        free_list(d->todo);
        free_list(d->done);
        if (d->event_fd >= 0) {
                (void) d->p->host->unwatch_fd(d->p->ctx, d->event_fd);
                close(d->event_fd);
        }
        pthread_mutex_destroy(&d->lock);
        pthread_cond_destroy(&d->wake);
        free(d);
}
