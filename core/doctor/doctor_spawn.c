/* SPDX-License-Identifier: MIT */
/*
 * Children for `stockade doctor`, with a deadline.  doctor must never hang:
 * a probe that blocks (a bwrap waiting on something, a kernel that stalls
 * in unshare) is killed with its whole process group when the deadline
 * passes, and reported as timed out.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "common/stk_time.h"
#include "doctor_internal.h"
#include "util/util.h"

/* Read until EOF, a full buffer or the deadline; *ret_got is what arrived
 * either way.  Returns 0 at EOF, -ETIMEDOUT or -errno. */
static int read_until(int fd, char *buf, size_t size, long long deadline, size_t *ret_got)
{
        *ret_got = 0;
        for (;;) {
                long long left = deadline - stk_now_ms();
                struct pollfd p = { .fd = fd, .events = POLLIN };
                char scratch[256];
                if (left <= 0)
                        return -ETIMEDOUT;
                int n = poll(&p, 1, (int) left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -ETIMEDOUT;
                ssize_t k = *ret_got < size ? read(fd, buf + *ret_got, size - *ret_got) : read(fd, scratch, sizeof(scratch));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return 0;
                if (*ret_got < size)
                        *ret_got += (size_t) k; /* past a full buffer: drain, so the child never blocks */
        }
}

/* Wait for the child to exit, at most until the deadline, without reaping
 * it: while it is a zombie its pid (= its process group id) cannot be
 * reused, so killing the group afterwards hits only what it left behind. */
static int wait_exit(pid_t pid, long long deadline)
{
        for (;;) {
                siginfo_t si = { 0 };
                if (waitid(P_PID, (id_t) pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
                        return -errno;
                if (si.si_pid == pid)
                        return 0;
                if (stk_now_ms() >= deadline)
                        return -ETIMEDOUT;
                struct timespec nap = { 0, 5 * 1000 * 1000 };
                (void) nanosleep(&nap, NULL); /* an early wake-up only polls again */
        }
}

/* Nothing a probe started outlives it: kill its process group (grandchildren
 * a probe daemonised too), then reap the child. */
static int reap(pid_t pid, int *ret_status)
{
        (void) kill(-pid, SIGKILL); /* ESRCH: the group is already empty but for the zombie */
        (void) kill(pid, SIGKILL);
        while (waitpid(pid, ret_status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return 0;
}

int doctor_fork_call(doctor_child_fn fn, void *arg, int timeout_ms, void *buf, size_t size, int *ret_status)
{
        long long deadline = stk_now_ms() + timeout_ms;
        int p[2], status = 0, r, w;
        size_t got;
        pid_t pid;

        if (pipe(p) < 0)
                return -errno;
        if (fcntl(p[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(p[1], F_SETFD, FD_CLOEXEC) < 0) {
                r = -errno;
                (void) close(p[0]);
                (void) close(p[1]);
                return r;
        }
        fflush(NULL); /* nothing buffered may be written twice */
        pid = fork();
        if (pid < 0) {
                r = -errno;
                (void) close(p[0]);
                (void) close(p[1]);
                return r;
        }
        if (pid == 0) {
                (void) close(p[0]);
                (void) setpgid(0, 0); /* only so the parent can kill the group */
                _exit(fn(arg, p[1]) < 0 ? 1 : 0);
        }
        (void) setpgid(pid, pid); /* both sides set it: no race with an early kill(-pid) */
        (void) close(p[1]);
        r = read_until(p[0], buf, size, deadline, &got);
        (void) close(p[0]);
        w = wait_exit(pid, r == -ETIMEDOUT ? 0 : deadline);
        int q = reap(pid, &status);
        if (ret_status)
                *ret_status = status;
        if (r < 0)
                return r;
        if (w < 0)
                return w;
        return q < 0 ? q : (int) got;
}

static int exec_child(void *arg, int fd)
{
        char *const *argv = arg;
        static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

        if (null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                return -errno;
        execve(argv[0], argv, envp);
        dprintf(2, "execve %s: %s\n", argv[0], strerror(errno));
        _exit(127);
}

int doctor_exec_capture(const char *const *argv, int timeout_ms, char *out, size_t size, int *ret_status)
{
        int r;

        if (size == 0 || argv[0][0] != '/')
                return -EINVAL;
        memset(out, 0, size); /* what arrived before a timeout stays readable */
        r = doctor_fork_call(exec_child, (void *) argv, timeout_ms, out, size - 1, ret_status);
        return r;
}
