/* SPDX-License-Identifier: MIT */
/*
 * stockade compare: its children.  The escape suite and explain run with
 * stdout and stderr on pipes (stdout is the JSON, stderr carries the
 * suite's progress lines and its complaints); the benchmark times single
 * runs with their output thrown away.  Every child is exec'd by absolute
 * path, never through PATH.
 *
 * A child leads its own process group, so that an interrupted or stuck
 * compare can end it and whatever it started: SIGTERM first (the suite's
 * trap then removes its fixtures and ends its listeners), SIGKILL to the
 * group if it is still there after a grace period.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "common/stk_buf.h"
#include "common/stk_time.h"
#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

#define SPAWN_TIMEOUT_MS (30LL * 60 * 1000) /* one stack's suite: a minute is normal */
#define GRACE_MS (10LL * 1000)
#define MAX_STDOUT (16u << 20)
#define MAX_STDERR (1u << 20)

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
        interrupted = sig;
}

/* No SA_RESTART: a blocking poll or waitpid returns EINTR, and the loop
 * that called it ends the child and gives up. */
int compare_catch_signals(void)
{
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction sa = { .sa_handler = on_signal };

        if (sigemptyset(&sa.sa_mask) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
                if (sigaction(sigs[i], &sa, NULL) < 0)
                        return -errno;
        return 0;
}

bool compare_interrupted(void)
{
        return interrupted != 0;
}

const char *compare_status_text(int status, char *buf, size_t size)
{
        if (WIFEXITED(status))
                snprintf(buf, size, "exit %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
                snprintf(buf, size, "signal %d", WTERMSIG(status));
        else
                snprintf(buf, size, "wait status 0x%x", (unsigned) status);
        return buf;
}

/* Output is collected in struct stk_buf (lib/common/stk_buf.h), bounded by
 * its max: what goes beyond is dropped while the pipe keeps draining, and
 * the run reports it (-EFBIG). */
static int buf_add(struct stk_buf *b, const char *s, size_t n)
{
        stk_buf_add(b, s, n);
        return b->err;
}

/* ---- the child ---------------------------------------------------------- */

_Noreturn static void exec_child(char *const *argv, char *const *envp, const char *cwd, int out, int err)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);

        (void) setpgid(0, 0); /* also done by the parent: no race with an early kill */
        if (null < 0 || dup2(null, 0) < 0 || dup2(out < 0 ? null : out, 1) < 0 || dup2(err < 0 ? null : err, 2) < 0)
                _exit(127);
        if (cwd && chdir(cwd) < 0) {
                dprintf(2, "stockade compare: chdir %s: %s\n", cwd, strerror(errno));
                _exit(127);
        }
        execve(argv[0], argv, envp);
        dprintf(2, "stockade compare: execve %s: %s\n", argv[0], strerror(errno));
        _exit(127);
}

static pid_t fork_child(char *const *argv, char *const *envp, const char *cwd, int out, int err)
{
        pid_t pid;

        fflush(NULL); /* nothing buffered may be written twice */
        pid = fork();
        if (pid == 0)
                exec_child(argv, envp, cwd, out, err);
        if (pid > 0)
                (void) setpgid(pid, pid); /* EACCES once it exec'd: it did it itself */
        return pid;
}

/* ---- reading both pipes ---------------------------------------------------- */

struct reader {
        struct stk_buf out, err, line;
        compare_line_fn on_line;
        void *userdata;
};

/* Complete stderr lines go to on_line; those it does not take, to err. */
static int take_lines(struct reader *rd, bool at_eof)
{
        char *start = rd->line.s, *nl;
        int r = 0;

        while (start && r >= 0 && (nl = memchr(start, '\n', rd->line.len - (size_t) (start - rd->line.s)))) {
                *nl = '\0';
                if (!rd->on_line || !rd->on_line(start, rd->userdata))
                        r = buf_add(&rd->err, start, (size_t) (nl - start)) < 0 ? -ENOMEM : buf_add(&rd->err, "\n", 1);
                start = nl + 1;
        }
        if (start && r >= 0) {
                size_t left = rd->line.len - (size_t) (start - rd->line.s);
                if (at_eof && left)
                        r = buf_add(&rd->err, start, left);
                else
                        memmove(rd->line.s, start, left);
                stk_buf_truncate(&rd->line, at_eof ? 0 : left);
        }
        return r;
}

/* One read from fd: 1 data, 0 EOF, -errno. */
static int read_some(struct reader *rd, int fd, bool is_out)
{
        char chunk[16384];
        ssize_t k = read(fd, chunk, sizeof(chunk));

        if (k < 0)
                return errno == EINTR || errno == EAGAIN ? 1 : -errno;
        if (k == 0)
                return is_out ? 0 : (take_lines(rd, true) < 0 ? -ENOMEM : 0);
        if (is_out)
                return buf_add(&rd->out, chunk, (size_t) k) < 0 ? -ENOMEM : 1;
        if (buf_add(&rd->line, chunk, (size_t) k) < 0)
                return -ENOMEM;
        return take_lines(rd, false) < 0 ? -ENOMEM : 1;
}

/* Ends the child's group: SIGTERM at the first call, SIGKILL at the second. */
static void stop_child(pid_t pid, int *stage, long long *deadline)
{
        (void) kill(-pid, *stage == 0 ? SIGTERM : SIGKILL); /* ESRCH: already gone */
        *stage += 1;
        *deadline = stk_now_ms() + GRACE_MS;
}

/* Reads until both pipes are at EOF; returns 0, -EINTR, -ETIMEDOUT or -errno. */
static int read_both(pid_t pid, int fds[2], struct reader *rd)
{
        struct pollfd p[2] = { { .fd = fds[0], .events = POLLIN }, { .fd = fds[1], .events = POLLIN } };
        long long deadline = stk_now_ms() + SPAWN_TIMEOUT_MS;
        int stage = 0, result = 0;

        while ((p[0].fd >= 0 || p[1].fd >= 0) && stage < 3) {
                if (interrupted && stage == 0) {
                        result = -EINTR;
                        stop_child(pid, &stage, &deadline);
                }
                long long left = deadline - stk_now_ms();
                int n = left > 0 ? poll(p, 2, (int) left) : 0;
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0) {
                        result = result ? result : -ETIMEDOUT;
                        stop_child(pid, &stage, &deadline); /* a third expiry gives up reading */
                        continue;
                }
                for (int i = 0; i < 2; i++) {
                        if (p[i].fd < 0 || !p[i].revents)
                                continue;
                        int r = read_some(rd, p[i].fd, i == 0);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                p[i].fd = -1;
                }
        }
        return result;
}

static int reap(pid_t pid, int *ret_status)
{
        while (waitpid(pid, ret_status, 0) < 0) {
                if (errno != EINTR)
                        return -errno;
                (void) kill(-pid, SIGTERM); /* interrupted while waiting: hurry it */
        }
        return 0;
}

int compare_spawn(char *const *argv, char *const *envp, const char *cwd, compare_line_fn on_line,
                  void *userdata, struct compare_output *ret)
{
        struct reader rd = { .out.max = MAX_STDOUT, .err.max = MAX_STDERR, .line.max = MAX_STDERR,
                             .on_line = on_line, .userdata = userdata };
        int out[2] = { -1, -1 }, err[2] = { -1, -1 }, fds[2], status = 0, r;
        pid_t pid;

        if (argv[0][0] != '/')
                return -EINVAL;
        if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
                r = -errno;
                closep(&out[0]), closep(&out[1]), closep(&err[0]);
                return r;
        }
        pid = fork_child(argv, envp, cwd, out[1], err[1]);
        r = pid < 0 ? -errno : 0;
        closep(&out[1]);
        closep(&err[1]);
        fds[0] = out[0], fds[1] = err[0];
        if (r >= 0) {
                r = read_both(pid, fds, &rd);
                if (r < 0 && r != -EINTR && r != -ETIMEDOUT)
                        (void) kill(-pid, SIGKILL); /* we cannot read it any more: end it */
                int q = reap(pid, &status);
                r = r < 0 ? r : q;
        }
        closep(&out[0]);
        closep(&err[0]);
        if (r >= 0 && (rd.out.truncated || rd.err.truncated || rd.line.truncated))
                r = -EFBIG;
        stk_buf_done(&rd.line);
        if (r < 0) {
                stk_buf_done(&rd.out);
                stk_buf_done(&rd.err);
                return r;
        }
        size_t n_out = rd.out.len;
        *ret = (struct compare_output) { .out = stk_buf_take(&rd.out), .n_out = n_out, .err = stk_buf_take(&rd.err),
                                         .status = status };
        if (!ret->out || !ret->err) {
                compare_output_done(ret);
                return -ENOMEM;
        }
        return 0;
}

void compare_output_done(struct compare_output *o)
{
        free(o->out);
        free(o->err);
        *o = (struct compare_output) { 0 };
}

/* ---- a timed run -------------------------------------------------------------- */

int compare_time_run(char *const *argv, char *const *envp, const char *cwd, double *ret_us, int *ret_status)
{
        struct timespec t0, t1;
        int status = 0, r;
        pid_t pid;

        if (clock_gettime(CLOCK_MONOTONIC, &t0) < 0)
                return -errno;
        pid = fork_child(argv, envp, cwd, -1, -1);
        if (pid < 0)
                return -errno;
        r = reap(pid, &status);
        if (r < 0)
                return r;
        if (clock_gettime(CLOCK_MONOTONIC, &t1) < 0)
                return -errno;
        *ret_status = status;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return 1;
        *ret_us = (double) (t1.tv_sec - t0.tv_sec) * 1e6 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e3;
        return 0;
}
