/* SPDX-License-Identifier: MIT */
/*
 * guard_top and FIFOs: a named pipe beneath a writable root where Landlock
 * grants nothing (a root's top level, a directory made during the run)
 * is opened for writing by the supervisor, as a regular file is
 * (fs_guard_top.c), but an open for writing of a FIFO waits for a reader,
 * and the supervisor must not: every other call of the command would
 * wait behind it.
 *
 *   - O_WRONLY|O_NONBLOCK first: with a reader there, that is the open
 *     the command asked for (O_NONBLOCK taken off again unless it asked
 *     for it), handed over at once; asked with O_NONBLOCK, ENXIO is its
 *     answer as the kernel's would be.
 *   - no reader yet: the call is kept (STK_NOTIFY_LATER, ABI 1.8) and
 *     tried again on a timer, 1 ms after, doubling to 32 ms, until a
 *     reader comes, the open fails otherwise (its errno answers), or the
 *     caller is gone (NOTIF_ID_VALID fails: killed, or a signal broke the
 *     wait and the kernel restarts the call as a new one).
 *
 * O_RDWR would never wait, but a writer so opened never sees EPIPE and a
 * reader never sees the end of the data while the command holds it: not
 * the command's open, so not done.  The FIFO is kept as our O_PATH fd, the
 * inode that was checked; what its name means later does not matter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "fs_guard_internal.h"

#define FIRST_RETRY_US 1000
#define LAST_RETRY_US 32000

struct fg_fifo_wait {
        uint64_t id;
        int listener;
        int fifo;   /* O_PATH, ours */
        int flags;  /* the command's */
        unsigned retry_us;
        struct fg_fifo_wait *next;
};

/* The open the command asked for, of the FIFO we hold, without waiting:
 * an fd, -ENXIO while no reader is there, or -errno. */
static int open_fifo_now(int fifo, int flags)
{
        char link[64];
        int fd;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fifo);
        fd = open(link, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_TRUNC | O_CLOEXEC)) | O_NONBLOCK | O_NOCTTY |
                              O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* The kept call's answer: the fd put into the command (its open returns
 * the number), or its errno. */
static int answer(const struct fg_fifo_wait *w, int fd)
{
        struct seccomp_notif_resp resp = { .id = w->id };
        struct seccomp_notif req = { .id = w->id };
        long val = 0;
        int r = fd;

        if (fd >= 0)
                r = fg_hand_over(w->listener, &req, fd, w->flags, &val);
        resp.val = r < 0 ? 0 : val;
        resp.error = r < 0 ? r : 0;
        /* ENOENT: the caller went meanwhile; nobody to tell. */
        if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int fg_fifo_open(int listener, const struct seccomp_notif *req, int fifo, int flags, const struct fg_policy *pol,
                 long *ret_val)
{
        int fd;

        if ((flags & O_ACCMODE) == O_RDONLY)
                return FG_CONTINUE; /* waiting for a writer is the kernel's, and reading is granted */
        fd = open_fifo_now(fifo, flags);
        if (fd >= 0)
                return fg_hand_over(listener, req, fd, flags, ret_val);
        if (fd != -ENXIO || (flags & O_NONBLOCK) || !pol->fifo_wait)
                return fd;
        return pol->fifo_wait(pol->userdata, listener, req->id, fifo, flags);
}

int fg_fifo_keep(struct fg_fifo_wait **list, int listener, uint64_t id, int fifo, int flags)
{
        struct fg_fifo_wait *w = calloc(1, sizeof(*w));
        int copy = w ? fcntl(fifo, F_DUPFD_CLOEXEC, 3) : -1;

        if (copy < 0) {
                int r = w ? -errno : -ENOMEM;
                free(w);
                return r;
        }
        *w = (struct fg_fifo_wait) { .id = id, .listener = listener, .fifo = copy, .flags = flags,
                                     .retry_us = FIRST_RETRY_US, .next = *list };
        *list = w;
        return 0;
}

static void drop(struct fg_fifo_wait **at)
{
        struct fg_fifo_wait *w = *at;

        *at = w->next;
        close(w->fifo);
        free(w);
}

unsigned fg_fifo_retry(struct fg_fifo_wait **list, int *ret_error)
{
        unsigned next = 0;

        *ret_error = 0;
        for (struct fg_fifo_wait **at = list; *at;) {
                struct fg_fifo_wait *w = *at;
                int fd;

                if (seccomp_notify_id_valid(w->listener, w->id) < 0) {
                        drop(at);
                        continue;
                }
                fd = open_fifo_now(w->fifo, w->flags);
                if (fd != -ENXIO) {
                        int r = answer(w, fd);
                        if (r < 0)
                                *ret_error = r;
                        drop(at);
                        continue;
                }
                w->retry_us = w->retry_us * 2 > LAST_RETRY_US ? LAST_RETRY_US : w->retry_us * 2;
                next = next && next < w->retry_us ? next : w->retry_us;
                at = &w->next;
        }
        return next;
}

void fg_fifo_drop_all(struct fg_fifo_wait **list)
{
        while (*list)
                drop(list);
}

void fg_fifo_fail_all(struct fg_fifo_wait **list, int error)
{
        while (*list) {
                (void) answer(*list, error); /* failing already: nothing more to say */
                drop(list);
        }
}

int fg_timer_arm(int timer, unsigned us)
{
        struct itimerspec t = { .it_value = { .tv_sec = us / 1000000, .tv_nsec = (long) (us % 1000000) * 1000 } };

        return timerfd_settime(timer, 0, &t, NULL) < 0 ? -errno : 0;
}
