/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "os/os.h"
#include "status.h"
#include "util/util.h"
#include "stockade/module.h"

/* Not Linux: no MSG_NOSIGNAL (the child's SIGPIPE, default, then ends a
 * child whose supervisor is gone, as PDEATHSIG would), no
 * MSG_CMSG_CLOEXEC (set after the fact: the supervisor does not fork
 * meanwhile), no credentials. */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
#if OS_LINUX
#define RECV_FLAGS (MSG_DONTWAIT | MSG_CMSG_CLOEXEC)
#else
#define RECV_FLAGS MSG_DONTWAIT
#endif

/* All of it: on a stream (not Linux) a short send would leave the reader
 * out of step, a message boundary in the middle of the next one.  A
 * blocking send only comes back short when a signal interrupts it. */
static int send_whole(int fd, const void *buf, size_t len)
{
        size_t off = 0;

        while (off < len) {
                ssize_t n = send(fd, (const char *) buf + off, len - off, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                off += (size_t) n;
        }
        return 0;
}

void core_status_send(int fd, enum core_status_kind kind, int err, const char *fmt, ...)
{
        struct core_status_msg m = { .kind = kind, .err = err };
        va_list ap;

        if (fd < 0)
                return;
        va_start(ap, fmt);
        vsnprintf(m.text, sizeof(m.text), fmt, ap);
        va_end(ap);
        /* The kernel attaches our credentials (the supervisor set SO_PASSCRED).
         * A failed send means the supervisor is gone; PDEATHSIG ends us anyway. */
        (void) send_whole(fd, &m, sizeof(m));
}

int core_status_send_fd(int fd, int passed, const char *module)
{
        struct core_status_msg m = { .kind = CORE_STATUS_FD };
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } ctl = { 0 };
        struct iovec iov = { &m, sizeof(m) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

        if (fd < 0)
                return -EBADF;
        snprintf(m.text, sizeof(m.text), "%s", module);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &passed, sizeof(int));
        ssize_t n;
        do
                n = sendmsg(fd, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        /* the fd went with the first byte; the rest of the message follows */
        return (size_t) n == sizeof(m) ? 0 : send_whole(fd, (const char *) &m + n, sizeof(m) - (size_t) n);
}

/* Exactly size bytes from a stream (not Linux's SEQPACKET). */
static int read_exact(int fd, void *buf, size_t size)
{
        size_t got = 0;

        while (got < size) {
                ssize_t k = recv(fd, (char *) buf + got, size - got, MSG_WAITALL);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EPIPE;
                got += (size_t) k;
        }
        return 0;
}

int core_status_recv(int fd, struct core_status_msg *ret, pid_t *ret_pid, int *ret_fd)
{
        union {
                char buf[CMSG_SPACE(64) + CMSG_SPACE(sizeof(int))]; /* credentials, if any, and one fd */
                struct cmsghdr align;
        } ctl;
        struct iovec iov = { ret, sizeof(*ret) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
        ssize_t n;

        memset(ret, 0, sizeof(*ret));
        *ret_pid = 0;
        *ret_fd = -1;
        n = recvmsg(fd, &mh, RECV_FLAGS);
        if (n < 0)
                return errno == EAGAIN ? 0 : -errno;
        if (n == 0)
                return -ESHUTDOWN; /* every sender is gone: exec'd or exited */
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        /* One fd is all a message carries: any other is closed. */
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        for (size_t i = 0; i < k; i++) {
                                int got;
                                memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                                if (*ret_fd < 0) {
                                        *ret_fd = got;
                                        if (RECV_FLAGS == MSG_DONTWAIT)
                                                (void) fcntl(got, F_SETFD, FD_CLOEXEC); /* a valid fd */
                                } else
                                        (void) close(got);
                        }
                }
#ifdef SCM_CREDENTIALS
                else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                        struct ucred uc;
                        memcpy(&uc, CMSG_DATA(c), sizeof(uc));
                        *ret_pid = uc.pid;
                }
#endif
        /* A stream (os_status_socketpair, not Linux) may hand a message over
         * in two pieces; its sender wrote it whole, so the rest is there. */
        if (!OS_LINUX && n > 0 && (size_t) n < sizeof(*ret) &&
            read_exact(fd, (char *) ret + n, sizeof(*ret) - (size_t) n) >= 0)
                n = sizeof(*ret);
        /* Control data first: a passed fd must not leak with a bad message. */
        if (*ret_fd >= 0 && ((size_t) n != sizeof(*ret) || ret->kind != CORE_STATUS_FD)) {
                (void) close(*ret_fd); /* nobody asked for it */
                *ret_fd = -1;
        }
        if ((size_t) n != sizeof(*ret))
                return -EBADMSG;
        ret->text[sizeof(ret->text) - 1] = '\0';
        return 1;
}

struct handoff_head {
        int32_t kind;           /* CORE_STATUS_HANDOFF */
        int32_t ordinal;
        int32_t err;
        uint32_t len;
};

int core_status_send_handoff(int fd, int ordinal, int err, const void *data, size_t len)
{
        struct handoff_head h = { CORE_STATUS_HANDOFF, ordinal, err, (uint32_t) len };
        _cleanup_free_ char *buf = NULL;

        if (len > STK_HANDOFF_MAX)
                return -E2BIG;
        /* One buffer, one message on SEQPACKET; on a stream (not Linux) sent
         * whole, since the reader takes the head, then exactly len bytes. */
        buf = malloc(sizeof(h) + len);
        if (!buf)
                return -ENOMEM;
        memcpy(buf, &h, sizeof(h));
        if (len)
                memcpy(buf + sizeof(h), data, len);
        if (OS_LINUX) {
                ssize_t n;
                do
                        n = send(fd, buf, sizeof(h) + len, MSG_NOSIGNAL);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        return -errno;
                return (size_t) n == sizeof(h) + len ? 0 : -EIO;
        }
        return send_whole(fd, buf, sizeof(h) + len);
}


int core_status_recv_handoff(int fd, int *ret_ordinal, int *ret_err, void **ret_data, size_t *ret_len)
{
        struct handoff_head h;
        _cleanup_free_ void *data = malloc(STK_HANDOFF_MAX);
        size_t len;
        int r = 0;

        if (!data)
                return -ENOMEM;
        if (OS_LINUX) {
                struct iovec iov[2] = { { &h, sizeof(h) }, { data, STK_HANDOFF_MAX } };
                struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
                ssize_t n;

                do
                        n = recvmsg(fd, &mh, 0);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EPIPE; /* the supervisor is gone */
                if ((size_t) n < sizeof(h) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
                    (size_t) n != sizeof(h) + h.len)
                        return -EBADMSG;
        } else {
                r = read_exact(fd, &h, sizeof(h));
                if (r >= 0 && h.len > STK_HANDOFF_MAX)
                        r = -EBADMSG;
                if (r >= 0)
                        r = read_exact(fd, data, h.len);
                if (r < 0)
                        return r;
        }
        if (h.kind != CORE_STATUS_HANDOFF || h.ordinal < 0 || h.err < 0)
                return -EBADMSG;
        len = h.len;
        *ret_ordinal = h.ordinal;
        *ret_err = h.err;
        *ret_len = len;
        *ret_data = len ? TAKE_PTR(data) : NULL;
        return 0;
}
