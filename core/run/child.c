/* SPDX-License-Identifier: MIT */
/*
 * The forked child, between fork and exec.  Order matters:
 *  1. default signal state, a new session (no controlling tty: TIOCSTI into
 *     the user's terminal is impossible), die with the supervisor, and
 *  2. no_new_privs (setuid binaries cannot regain what the sandbox removed),
 *     both where the system has them (os_child_confine);
 *  3. only the plan's fds survive;
 *  4. either exec the wrapper, whose last argv runs the inner helper, or,
 *     with no wrapper, apply the in-sandbox modules here and exec the command.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>

#include "core.h"
#include "os/os.h"
#include "status.h"
#include "util/util.h"

static int become_session(pid_t supervisor)
{
        if (setsid() < 0)
                return -errno;
        return os_child_confine(supervisor);
}

static int keep_fd(int fd, int *keep, size_t *n)
{
        int flags = fcntl(fd, F_GETFD);

        if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                return -errno;
        keep[(*n)++] = fd;
        return 0;
}

/* Everything above 2 is closed but the plan's fds and `extra`. */
static int close_inherited(struct core_run *run, const int *extra, size_t n_extra, int status_fd)
{
        int keep[64];
        size_t n = 0;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < run->plan.n_pass_fds; i++)
                r = keep_fd(run->plan.pass_fds[i], keep, &n);
        for (size_t i = 0; r >= 0 && i < n_extra && n < ELEMENTSOF(keep) - 2; i++)
                r = keep_fd(extra[i], keep, &n);
        if (r < 0)
                return r;
        keep[n++] = status_fd;          /* stays close-on-exec unless extra names it */
        if (run->plan.exec_fd >= 0)
                keep[n++] = run->plan.exec_fd;
        return close_fds_except(3, keep, n);
}

static _Noreturn void exec_wrapper(struct core_run *run, int status_fd)
{
        _cleanup_strv_ char **argv = NULL, **inner = NULL;
        int extra[40];
        size_t n_extra = 0;
        int r;

        r = core_inner_argv(run, status_fd, &inner, extra, &n_extra, ELEMENTSOF(extra));
        if (r >= 0)
                r = core_plan_final_argv(&run->plan, inner, &argv);
        if (r >= 0)
                r = close_inherited(run, extra, n_extra, status_fd);
        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "preparing the wrapper: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
        if (run->plan.exec_fd >= 0)
                r = os_exec_fd(run->plan.exec_fd, argv, run->plan.envp);
        else {
                execve(argv[0], argv, run->plan.envp);
                r = -errno;
        }
        core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "executing %s: %s", argv[0], strerror(-r));
        _exit(STK_EXIT_SETUP);
}

extern char **environ;

/* Shared by the no-wrapper child and the inner helper: apply the in-sandbox
 * modules, check coverage, say READY, exec.  envp NULL means the process
 * environment as the in-sandbox hooks left it (they may setenv TMPDIR).
 * Never returns. */
void core_exec_command(struct core_run *run, int status_fd, char *const *argv, char *const *envp)
{
        int r;

        run->status_fd = status_fd; /* for host->send_fd */
        r = core_in_sandbox_apply(run);

        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "in-sandbox phase failed: %s", strerror(-r));
                _exit(r == -EKEYREJECTED ? STK_EXIT_INTEGRITY : STK_EXIT_SETUP);
        }
        core_status_send(status_fd, CORE_STATUS_READY, 0, "exec");
        r = -os_execvpe(argv[0], argv, envp ? envp : environ);
        core_status_send(status_fd, CORE_STATUS_FAIL_EXEC, r, "%s: %s", argv[0], strerror(r));
        _exit(r == ENOENT ? 127 : 126);
}

void core_child_main(struct core_run *run, pid_t supervisor, int status_fd, const sigset_t *oldmask)
{
        int r;

        run->in_child = true;
        os_signals_reset(oldmask);
        r = become_session(supervisor);
        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "new session / no_new_privs: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
        if (run->plan.prefix[0])
                exec_wrapper(run, status_fd);
        r = close_inherited(run, NULL, 0, status_fd);
        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "closing inherited fds: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
        /* A sandbox at all (full-access asks for none): no capabilities. */
        if (core_required_covers(&run->settings.pub) && (r = os_drop_capabilities()) < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "dropping capabilities: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
        core_exec_command(run, status_fd, run->plan.argv, run->plan.envp);
}
