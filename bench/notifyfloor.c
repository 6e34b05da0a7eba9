/* SPDX-License-Identifier: MIT */
/* notifyfloor MODE DIR N: the floor of a seccomp user notification, for
 * bench/fsops.  A child creates N files in DIR (create, write 2 bytes,
 * close, as fsops --create) under a filter that sends every openat() with
 * O_CREAT to its parent, which answers CONTINUE at once:
 *   none   no filter (the creation alone);
 *   epoll  the parent waits in epoll_wait, polls, then RECV and SEND, as
 *          stockade's supervisor loop does (core/run/notify.c);
 *   recv   the parent blocks in the RECV ioctl itself, with
 *          SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6): the command's
 *          wake-up and the supervisor's on the same CPU.
 * Prints "us_per_create=X".  No work is done for the call: what is left
 * over the creation is what any supervisor that sees every creation pays. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

static double now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* openat with O_CREAT in its flags (args[2]): to the supervisor. */
static int install_filter(void)
{
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0)
                return -1;
        return (int) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int create_files(const char *dir, int n)
{
        char a[32];
        double t0;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

        if (dfd < 0)
                return 1;
        t0 = now_us();
        for (int i = 0; i < n; i++) {
                snprintf(a, sizeof(a), "f%d", i);
                fd = openat(dfd, a, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || write(fd, "x\n", 2) != 2 || close(fd) < 0)
                        return 1;
        }
        printf("us_per_create=%.2f\n", (now_us() - t0) / n);
        fflush(stdout);
        return 0;
}

static int answer_continue(int listener)
{
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;

        memset(&req, 0, sizeof(req));
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
                return errno == ENOENT || errno == EINTR ? 0 : -1;
        resp = (struct seccomp_notif_resp) { .id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
                return -1;
        return 0;
}

static void supervise_epoll(int listener)
{
        struct epoll_event ev = { .events = EPOLLIN }, out;
        int ep = epoll_create1(EPOLL_CLOEXEC);
        struct pollfd p = { .fd = listener, .events = POLLIN };

        if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev) < 0)
                return;
        for (;;) {
                if (epoll_wait(ep, &out, 1, -1) < 0 && errno != EINTR)
                        return;
                if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
                        return;
                if ((p.revents & POLLIN) && answer_continue(listener) < 0)
                        return;
        }
}

static void supervise_recv(int listener)
{
        struct pollfd p = { .fd = listener, .events = POLLIN };

        (void) ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
        for (;;) {
                /* RECV would block forever once the child is gone. */
                if (poll(&p, 1, -1) < 0 || (p.revents & (POLLHUP | POLLERR)))
                        return;
                if (answer_continue(listener) < 0)
                        return;
        }
}

/* The child's listener fd to the parent over a socketpair (SCM_RIGHTS). */
static int send_fd(int sock, int fd)
{
        char c = 0, buf[CMSG_SPACE(sizeof(int))] = { 0 };
        struct iovec iov = { &c, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf) };
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);

        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof(int));
        return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
        char c, buf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { &c, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf) };
        struct cmsghdr *h;
        int fd;

        if (recvmsg(sock, &m, 0) != 1 || !(h = CMSG_FIRSTHDR(&m)) || h->cmsg_type != SCM_RIGHTS)
                return -1;
        memcpy(&fd, CMSG_DATA(h), sizeof(int));
        return fd;
}

int main(int argc, char **argv)
{
        int sv[2], listener, status;
        pid_t pid;

        if (argc != 4 || atoi(argv[3]) < 1) {
                fprintf(stderr, "usage: notifyfloor none|epoll|recv DIR N\n");
                return 2;
        }
        if (strcmp(argv[1], "none") == 0)
                return create_files(argv[2], atoi(argv[3]));
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return 1;
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0) {
                close(sv[0]);
                listener = install_filter();
                if (listener < 0 || send_fd(sv[1], listener) < 0)
                        _exit(1);
                close(listener);
                _exit(create_files(argv[2], atoi(argv[3])));
        }
        close(sv[1]);
        listener = recv_fd(sv[0]);
        if (listener < 0)
                return 1;
        if (strcmp(argv[1], "recv") == 0)
                supervise_recv(listener);
        else
                supervise_epoll(listener);
        return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
