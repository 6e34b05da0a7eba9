/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "os.h"
#include "status.h"

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
        (void) send(fd, &m, sizeof(m), MSG_NOSIGNAL);
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
        return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t) sizeof(m) ? 0 : -errno;
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
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) {
                        memcpy(ret_fd, CMSG_DATA(c), sizeof(int));
                        if (RECV_FLAGS == MSG_DONTWAIT)
                                (void) fcntl(*ret_fd, F_SETFD, FD_CLOEXEC); /* a valid fd: cannot fail */
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
        while (!OS_LINUX && n > 0 && (size_t) n < sizeof(*ret)) {
                ssize_t k = recv(fd, (char *) ret + n, sizeof(*ret) - (size_t) n, MSG_WAITALL);
                if (k <= 0)
                        break;
                n += k;
        }
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
