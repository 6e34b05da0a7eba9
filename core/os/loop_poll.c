/* SPDX-License-Identifier: MIT */
/* loop.h with poll(2): the watched fds in one array, handed to poll as is. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "loop.h"

struct core_loop {
        struct pollfd *v;
        size_t n, cap;
        size_t next;    /* where the next wait starts reporting: no fd starves */
};

int loop_new(struct core_loop **ret)
{
        struct core_loop *l = calloc(1, sizeof(*l));

        if (!l)
                return -ENOMEM;
        *ret = l;
        return 0;
}

void loop_free(struct core_loop *l)
{
        if (!l)
                return;
        free(l->v);
        free(l);
}

static struct pollfd *find(struct core_loop *l, int fd)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].fd == fd)
                        return &l->v[i];
        return NULL;
}

int loop_set(struct core_loop *l, int fd, unsigned events)
{
        struct pollfd *p = find(l, fd);

        if (fd < 0)
                return -EBADF;
        if (!p)
                p = find(l, -1); /* the slot of an fd closed while watched */
        if (!p) {
                if (l->n == l->cap) {
                        size_t cap = l->cap ? 2 * l->cap : 16;
                        struct pollfd *v = realloc(l->v, cap * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        l->v = v;
                        l->cap = cap;
                }
                p = &l->v[l->n++];
        }
        p->fd = fd;
        p->events = (short) ((events & LOOP_IN ? POLLIN : 0) | (events & LOOP_OUT ? POLLOUT : 0));
        p->revents = 0;
        return 0;
}

int loop_del(struct core_loop *l, int fd)
{
        struct pollfd *p = find(l, fd);

        if (!p)
                return -ENOENT;
        *p = l->v[--l->n];
        return 0;
}

int loop_wait(struct core_loop *l, struct loop_event *out, int max, int timeout_ms)
{
        int n = poll(l->v, (nfds_t) l->n, timeout_ms), k = 0;

        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        for (size_t j = 0; j < l->n && k < max; j++) {
                size_t i = (l->next + j) % l->n;
                short re = l->v[i].revents;
                if (!re)
                        continue;
                if (re & POLLNVAL) {
                        /* Closed while watched: epoll forgets such an fd, and
                         * so do we, or every poll would report it. */
                        l->v[i].fd = -1; /* poll skips negative fds */
                        continue;
                }
                out[k++] = (struct loop_event) {
                        .fd = l->v[i].fd,
                        .events = (re & (POLLIN | POLLHUP | POLLERR) ? LOOP_IN : 0) | (re & POLLOUT ? LOOP_OUT : 0),
                };
        }
        if (l->n)
                l->next = (l->next + 1) % l->n;
        return k;
}
