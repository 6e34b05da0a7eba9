/* SPDX-License-Identifier: MIT */
/* loop.h with epoll(7). */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"

struct core_loop {
        int epfd;
};

int loop_new(struct core_loop **ret)
{
        struct core_loop *l = malloc(sizeof(*l));

        if (!l)
                return -ENOMEM;
        l->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (l->epfd < 0) {
                int r = -errno;
                free(l);
                return r;
        }
        *ret = l;
        return 0;
}

void loop_free(struct core_loop *l)
{
        if (!l)
                return;
        (void) close(l->epfd);
        free(l);
}

int loop_set(struct core_loop *l, int fd, unsigned events)
{
        struct epoll_event ev = { .data.fd = fd };

        ev.events = (events & LOOP_IN ? EPOLLIN : 0) | (events & LOOP_OUT ? EPOLLOUT : 0);
        if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
                return 0;
        if (errno != ENOENT)
                return -errno;
        return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int loop_del(struct core_loop *l, int fd)
{
        return epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL) < 0 ? -errno : 0;
}

int loop_wait(struct core_loop *l, struct loop_event *out, int max, int timeout_ms)
{
        struct epoll_event evs[64];
        int n;

        if (max > 64)
                max = 64;
        n = epoll_wait(l->epfd, evs, max, timeout_ms);
        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        for (int i = 0; i < n; i++)
                out[i] = (struct loop_event) {
                        .fd = evs[i].data.fd,
                        .events = (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR) ? LOOP_IN : 0) |
                                  (evs[i].events & EPOLLOUT ? LOOP_OUT : 0),
                };
        return n;
}
