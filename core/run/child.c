/* SPDX-License-Identifier: MIT */
/*
 * The forked child, between fork and exec.  On Linux it first becomes the
 * keeper (docs/ARCHITECTURE.md, Processes): the reaper of everything the
 * command starts, which outlives a supervisor killed with SIGKILL just long
 * enough to kill all of it; the command runs in its child.  Then, order
 * matters:
 *  1. default signal state, a new session (no controlling tty: TIOCSTI into
 *     the user's terminal is impossible), die with the keeper, and
 *  2. no_new_privs (setuid binaries cannot regain what the sandbox removed),
 *     both where the system has them (os_child_confine);
 *  3. only the plan's fds survive;
 *  4. either exec the wrapper, whose last argv runs the inner helper, or,
 *     with no wrapper, apply the in-sandbox modules here and exec the command.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "core.h"

#ifdef __WALL
#define WAIT_ANY_CHILD __WALL /* Linux: children that exit with another signal than SIGCHLD too */
#else
#define WAIT_ANY_CHILD 0
#endif
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

/* Kill every child we have (a subreaper's orphans among them), reap, and
 * again until none is left: a killed child's own children become ours. */
static void kill_all_children(void)
{
        for (;;) {
                pid_t pids[512];
                size_t n = os_list_leftovers(0, pids, ELEMENTSOF(pids));

                for (size_t i = 0; i < n; i++)
                        (void) kill(pids[i], SIGKILL); /* ESRCH: it died meanwhile */
                pid_t p = waitpid(-1, NULL, WAIT_ANY_CHILD);
                if (p < 0 && errno == ECHILD)
                        return;
        }
}

/* The command has ended: the keeper's exit status says how, as stockade
 * reports it (its code, or 128+N for signal N). */
static _Noreturn void keeper_exit(int status)
{
        kill_all_children();
        _exit(status);
}

/* The keeper's life: until the command ends (then kill what it left and
 * exit with its status), or until the status channel hangs up, which is
 * the supervisor gone, however it died (then kill everything).  It leads a
 * process group of its own, so the terminal's signals reach the supervisor
 * and not it; what the supervisor sends it before the command's READY (a
 * Ctrl-C during setup) it relays to the command. */
static _Noreturn void keep(pid_t command, int status_fd)
{
        int sigs[CORE_N_FORWARDED + 1], sigfd = -1, sig;
        sigset_t old;

        memcpy(sigs, core_forwarded_signals, sizeof(core_forwarded_signals));
        sigs[CORE_N_FORWARDED] = SIGCHLD;
        if (os_signals_open(sigs, ELEMENTSOF(sigs), &old, &sigfd) < 0)
                sigfd = -1; /* no signal fd: look at the child every 100 ms instead */
        for (;;) {
                struct pollfd p[2] = { { .fd = status_fd, .events = 0 }, { .fd = sigfd, .events = POLLIN } };
                siginfo_t si = { 0 };

                /* Before the first wait too: the command may have ended
                 * before SIGCHLD was blocked above, and that SIGCHLD is
                 * gone (found by review: the keeper slept on a zombie). */
                if (waitid(P_PID, (id_t) command, &si, WEXITED | WNOHANG) == 0 && si.si_pid == command)
                        keeper_exit(si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status);
                while (waitpid(-1, NULL, WAIT_ANY_CHILD | WNOHANG) > 0)
                        ; /* orphans of the command that ended on their own */
                if (poll(p, sigfd >= 0 ? 2 : 1, sigfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
                        break;
                if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
                        break;
                while (sigfd >= 0 && (sig = os_signal_next(sigfd)) > 0)
                        if (sig != SIGCHLD)
                                core_signal_group(command, sig);
        }
        kill_all_children();
        _exit(STK_EXIT_SETUP);
}

/* Linux: fork the command's process under us, and keep it.  Returns in the
 * command's process (with the keeper as its parent); 0 where there is no
 * keeper (portable: a subreaper does not exist). */
static int become_keeper(struct core_run *run, int status_fd, pid_t *parent)
{
        int r = os_keeper_setup();
        pid_t pid, self = getpid();

        if (r == -ENOSYS)
                return 0;
        if (r < 0)
                return r;
        /* A group of our own before the fork, so the terminal's signals do
         * not reach the command before its setsid either.  It cannot fail:
         * we are not a session leader. */
        (void) setpgid(0, 0);
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid > 0) {
                int keep_fds[1] = { status_fd };
                /* Nothing of the supervisor's stays open here but the channel
                 * whose hang-up says it is gone. */
                (void) close_fds_except(3, keep_fds, 1);
                keep(pid, status_fd);
        }
        *parent = self;
        return 0;
}

void core_child_main(struct core_run *run, pid_t supervisor, int status_fd, const sigset_t *oldmask)
{
        int r;

        run->in_child = true;
        r = become_keeper(run, status_fd, &supervisor);
        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "the keeper: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
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
