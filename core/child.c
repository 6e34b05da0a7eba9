/* SPDX-License-Identifier: MIT */
/*
 * The forked child, between fork and exec.  Order matters:
 *  1. default signal state, a new session (no controlling tty: TIOCSTI into
 *     the user's terminal is impossible), die with the supervisor;
 *  2. no_new_privs (setuid binaries cannot regain what the sandbox removed);
 *  3. only the plan's fds survive;
 *  4. either exec the wrapper, whose last argv runs the inner helper, or,
 *     with no wrapper, apply the in-sandbox modules here and exec the command.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/keyctl.h>

#include "core.h"
#include "status.h"
#include "util.h"

static void reset_signals(const sigset_t *oldmask)
{
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL); /* EINVAL for the RT signals libc reserves */
        (void) sigprocmask(SIG_SETMASK, oldmask, NULL); /* cannot fail with a valid set */
}

/* A fresh, empty session keyring: the one inherited from the supervisor is
 * possessed by the command otherwise, and whatever keys the user's login put
 * there (Kerberos tickets, ecryptfs, tokens) would be readable. */
static int new_session_keyring(void)
{
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
                return errno == ENOSYS ? 0 : -errno; /* no key support: nothing to hide */
        return 0;
}

static int become_session(pid_t supervisor)
{
        int r;

        if (setsid() < 0)
                return -errno;
        r = new_session_keyring();
        if (r < 0)
                return r;
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return -errno;
        /* The supervisor may have died before PDEATHSIG was armed. */
        if (getppid() != supervisor)
                return -ESRCH;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        return 0;
}

static int last_cap(void)
{
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        int n = -1;

        if (f) {
                if (fscanf(f, "%d", &n) != 1)
                        n = -1;
                fclose(f);
        }
        return n >= 0 && n < 64 ? n : 63;
}

/* With no wrapper there is no user namespace to take root's capabilities
 * away: a root command would keep CAP_SYS_PTRACE, CAP_DAC_OVERRIDE & co.
 * (the escape suite read the supervisor's environment that way).  Empty the
 * bounding set, so exec grants nothing back, then every set. */
static int drop_capabilities(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2] = { { 0 } };
        int last = geteuid() == 0 ? last_cap() : -1; /* read once, not per capability */

        for (int c = 0; c <= last; c++)
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                        return -errno;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        if (syscall(SYS_capset, &h, none) < 0)
                return -errno;
        return 0;
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
                fexecve(run->plan.exec_fd, argv, run->plan.envp);
        else
                execve(argv[0], argv, run->plan.envp);
        core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, errno, "executing %s: %s", argv[0], strerror(errno));
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
        execvpe(argv[0], argv, envp ? envp : environ);
        r = errno;
        core_status_send(status_fd, CORE_STATUS_FAIL_EXEC, r, "%s: %s", argv[0], strerror(r));
        _exit(r == ENOENT ? 127 : 126);
}

void core_child_main(struct core_run *run, int status_fd, const sigset_t *oldmask)
{
        pid_t supervisor = getppid();
        int r;

        run->in_child = true;
        reset_signals(oldmask);
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
        if (core_required_covers(&run->settings.pub) && (r = drop_capabilities()) < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "dropping capabilities: %s", strerror(-r));
                _exit(STK_EXIT_SETUP);
        }
        core_exec_command(run, status_fd, run->plan.argv, run->plan.envp);
}
