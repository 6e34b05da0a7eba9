/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's event loop: which fds it waits on, and for what.  Two
 * implementations of the one interface: loop_epoll.c (Linux: O(1) per
 * event, for a proxy with thousands of connections) and loop_poll.c
 * (poll(2), everywhere else and in `make PORTABLE=1` builds; O(n) per wait,
 * fine for the handful of fds a supervisor without net_proxy has).
 */
#pragma once

#include <stdbool.h>

enum {
        LOOP_IN = 1 << 0,       /* readable, or hung up / in error */
        LOOP_OUT = 1 << 1,      /* writable */
};

struct core_loop;

struct loop_event {
        int fd;
        unsigned events;        /* LOOP_IN | LOOP_OUT */
};

int loop_new(struct core_loop **ret);
void loop_free(struct core_loop *l);
/* Watch fd for events: added, or changed if it is watched already. */
int loop_set(struct core_loop *l, int fd, unsigned events);
int loop_del(struct core_loop *l, int fd);
/* Up to max events, waiting at most timeout_ms (-1: no limit).  The count,
 * 0 on timeout, -errno (never -EINTR: a signal only ends the wait early
 * with 0 events). */
int loop_wait(struct core_loop *l, struct loop_event *ev, int max, int timeout_ms);
