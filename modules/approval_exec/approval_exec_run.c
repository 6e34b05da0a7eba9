/* SPDX-License-Identifier: MIT */
/*
 * approval_exec_run.c - run the approver once: fork, execve by absolute
 * path with a minimal environment, the question on stdin, the answer from
 * stdout, everything with one deadline.  The supervisor is single-threaded
 * and waits here, so nothing may block past the deadline: the pipes are
 * non-blocking and driven by poll(2), and the approver (with whatever it
 * started in its process group) is killed when time is up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/stk_time.h"
#include "common/stk_trust.h"
#include "approval_exec_internal.h"

/* How often a running approver is checked for having exited while a
 * process it started still holds its stdout open. */
#define TICK_MS 20

/* The approver's whole environment: nothing of stockade's own (tokens,
 * proxies, agent variables) leaks to it; it gets its settings from `args`. */
static char *const approver_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", NULL };

int aexec_check_program(const char *path, const char **ret_why)
{
        struct stat st;

        if (!path || path[0] != '/') {
                *ret_why = "not an absolute path (approvers never run through PATH)";
                return -EINVAL;
        }
        if (stat(path, &st) < 0) {
                *ret_why = "cannot stat it";
                return -errno;
        }
        /* Whoever can rewrite it decides every question, outside the sandbox. */
        return stk_trust_stat(&st, geteuid(), STK_TRUST_EXECUTABLE, ret_why);
}

static void close_quietly(int *fd)
{
        if (*fd >= 0) {
                (void) close(*fd); /* pipe ends: nothing to flush, nothing to report */
                *fd = -1;
        }
}

/* A pipe whose ends are both above 2, close-on-exec: with stdin or stdout
 * closed in the supervisor, pipe(2) could hand out 0 or 1, and the child's
 * dup2 onto 0 and 1 would then clobber one end with the other. */
static int pipe_above_2(int p[2])
{
        int raw[2];

        if (pipe(raw) < 0)
                return -errno;
        for (int i = 0; i < 2; i++) {
                p[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 3);
                if (p[i] < 0) {
                        int r = -errno;
                        (void) close(raw[0]); /* fresh pipe: nothing to flush */
                        (void) close(raw[1]);
                        if (i == 1)
                                close_quietly(&p[0]);
                        return r;
                }
        }
        (void) close(raw[0]); /* the copies above 2 are the ones kept */
        (void) close(raw[1]);
        return 0;
}

static void close_fds_from_3(void)
{
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
                return;
#endif
        for (long fd = 3, max = sysconf(_SC_OPEN_MAX); fd < (max > 0 ? max : 65536); fd++)
                (void) close((int) fd); /* most are not open: EBADF is expected */
}

/* In the child, after fork: only async-signal-safe calls, then exec. */
static void approver_child(int in_fd, int out_fd, const char *program, char *const *argv)
{
        static const char failed[] = "stockade: approval_exec: cannot execute the approver\n";
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        sigset_t none;

        /* Its own process group, so that a timeout kills what it started. */
        (void) setpgid(0, 0); /* the parent does it too; one of them wins */
        if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
                _exit(127);
        close_fds_from_3();
        /* The supervisor blocks and redirects signals (signalfd); the
         * approver must start with the defaults, or SIGTERM would not end it. */
        sigemptyset(&none);
        for (int sig = 1; sig < NSIG; sig++)
                (void) sigaction(sig, &dfl, NULL); /* EINVAL for SIGKILL, SIGSTOP, RT internals */
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        execve(program, argv, approver_env);
        (void) !write(STDERR_FILENO, failed, sizeof(failed) - 1);
        _exit(127);
}

static char **build_argv(const struct aexec_spec *spec)
{
        size_t n = 0;
        char **argv;

        while (spec->args[n])
                n++;
        argv = calloc(n + 2, sizeof(char *));
        if (!argv)
                return NULL;
        argv[0] = (char *) spec->program;
        for (size_t i = 0; i < n; i++)
                argv[i + 1] = (char *) spec->args[i];
        return argv;
}

struct job {
        pid_t pid;
        int in_fd, out_fd;          /* our ends: write the question, read the answer */
        size_t written;
        bool out_eof, exited;
};

static int spawn(const struct aexec_spec *spec, struct job *j)
{
        int in[2], out[2], r;
        char **argv = build_argv(spec);

        if (!argv)
                return -ENOMEM;
        r = pipe_above_2(in);
        if (r < 0)
                return free(argv), r;
        r = pipe_above_2(out);
        if (r < 0) {
                close_quietly(&in[0]);
                close_quietly(&in[1]);
                return free(argv), r;
        }
        j->pid = fork();
        if (j->pid == 0)
                approver_child(in[0], out[1], spec->program, argv); /* never returns */
        r = j->pid < 0 ? -errno : 0;
        free(argv);
        if (r >= 0)
                (void) setpgid(j->pid, j->pid); /* EACCES once it exec'd: it did it itself */
        close_quietly(&in[0]);
        close_quietly(&out[1]);
        j->in_fd = in[1];
        j->out_fd = out[0];
        if (r >= 0 && (fcntl(j->in_fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(j->out_fd, F_SETFL, O_NONBLOCK) < 0))
                r = -errno; /* the caller kills and reaps */
        return r;
}

/* Write what the pipe takes.  An approver that exits or closes stdin
 * without reading all of it is not an error: its answer still counts. */
static int feed(const struct aexec_spec *spec, struct job *j)
{
        while (j->written < spec->input_len) {
                ssize_t n = write(j->in_fd, spec->input + j->written, spec->input_len - j->written);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n < 0 && errno != EPIPE)
                        return -errno;
                if (n < 0)
                        break;
                j->written += (size_t) n;
        }
        close_quietly(&j->in_fd); /* EOF tells the approver the question is complete */
        return 0;
}

/* Read what is there; more than STK_VERDICT_MAX bytes stops the reading. */
static int drain(struct job *j, struct aexec_result *res)
{
        for (;;) {
                size_t room = STK_VERDICT_MAX + 1 - res->out_len;
                ssize_t n;

                if (room == 0) {
                        res->oversize = true;
                        return 0;
                }
                n = read(j->out_fd, res->out + res->out_len, room);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                if (n == 0) {
                        j->out_eof = true;
                        return 0;
                }
                res->out_len += (size_t) n;
        }
}

/* The approver exited (left a zombie, WNOWAIT): its pid and process group
 * cannot be reused yet, so whatever it left in its group is killed now,
 * and any pipe end such a process held is closed with it. */
static void notice_exit(struct job *j)
{
        siginfo_t si = { 0 };

        if (j->exited || waitid(P_PID, (id_t) j->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
                return;
        j->exited = true;
        (void) kill(-j->pid, SIGKILL); /* ESRCH: nothing was left in the group */
}

static int pump(const struct aexec_spec *spec, struct job *j, struct aexec_result *res, long long deadline)
{
        int r = 0;

        while (r >= 0 && !res->oversize && !(j->out_eof && j->exited)) {
                struct pollfd fds[2];
                long long left = deadline - stk_now_ms();
                nfds_t n = 0;

                if (left <= 0) {
                        res->timed_out = true;
                        break;
                }
                if (j->in_fd >= 0)
                        fds[n++] = (struct pollfd) { .fd = j->in_fd, .events = POLLOUT };
                if (!j->out_eof)
                        fds[n++] = (struct pollfd) { .fd = j->out_fd, .events = POLLIN };
                if (poll(fds, n, (int) (left < TICK_MS ? left : TICK_MS)) < 0 && errno != EINTR)
                        return -errno;
                if (j->in_fd >= 0)
                        r = feed(spec, j);
                if (r >= 0 && !j->out_eof)
                        r = drain(j, res);
                notice_exit(j);
        }
        return r;
}

/* Kill (if still running) and reap.  SIGKILL cannot be caught, so the
 * blocking wait ends as soon as the kernel has torn the process down. */
static int finish(struct job *j, struct aexec_result *res)
{
        int status;

        if (!j->exited) {
                (void) kill(-j->pid, SIGKILL); /* ESRCH before its setpgid: the next line */
                (void) kill(j->pid, SIGKILL);
        }
        while (waitpid(j->pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        res->status = status;
        return 0;
}

/* SIGPIPE is blocked while we write (the permission phase runs before the
 * supervisor blocks it); one raised by our write is taken back out, so
 * that it is neither delivered later nor left pending. */
static void sigpipe_block(sigset_t *old, bool *was_pending)
{
        sigset_t set, pending;

        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        (void) sigprocmask(SIG_BLOCK, &set, old); /* valid set: cannot fail */
        *was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
}

static void sigpipe_restore(const sigset_t *old, bool was_pending)
{
        const struct timespec zero = { 0, 0 };
        sigset_t set, pending;

        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        if (!was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1)
                (void) sigtimedwait(&set, NULL, &zero); /* it is pending: this takes it */
        (void) sigprocmask(SIG_SETMASK, old, NULL);
}

int aexec_run(const struct aexec_spec *spec, struct aexec_result *ret)
{
        struct job j = { .pid = -1, .in_fd = -1, .out_fd = -1 };
        struct aexec_result res = { 0 };
        long long deadline = stk_now_ms() + spec->timeout_ms;
        bool was_pending;
        sigset_t old;
        int r, q;

        res.out = malloc(STK_VERDICT_MAX + 1);
        if (!res.out)
                return -ENOMEM;
        sigpipe_block(&old, &was_pending);
        r = spawn(spec, &j);
        if (r >= 0)
                r = pump(spec, &j, &res, deadline);
        close_quietly(&j.in_fd);
        close_quietly(&j.out_fd);
        q = j.pid > 0 ? finish(&j, &res) : 0;
        sigpipe_restore(&old, was_pending);
        if (r >= 0)
                r = q;
        if (r < 0) {
                free(res.out);
                return r;
        }
        res.pid = j.pid;
        *ret = res;
        return 0;
}

void aexec_result_done(struct aexec_result *r)
{
        free(r->out);
        *r = (struct aexec_result) { 0 };
}
