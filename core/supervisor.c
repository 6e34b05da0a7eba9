/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (DESIGN.md "The command's life"): fork the command into a
 * new session with no inherited fds, no_new_privs and a parent-death signal;
 * forward signals; run module watches; return the command's status; kill
 * whatever it left behind.
 *
 * A SOCK_SEQPACKET status channel tells the supervisor what happened on the
 * other side of the wrapper: the child (or the inner helper inside bwrap)
 * sends READY right before execve of the command, FAIL on a setup error.
 * SO_PASSCRED makes the kernel attach the sender's pid, translated into our
 * pid namespace, so signals reach the command itself, not the wrapper.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "core.h"
#include "status.h"
#include "util.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2 };

struct supervision {
        pid_t child;
        pid_t command;                  /* from READY; 0 until then */
        int pidfd, sigfd, status_fd;
        struct core_status_msg last;    /* last message from the child side */
        bool ready, exited;
        int wait_status;
};

static int watch_add(int epfd, int fd, uint32_t events)
{
        struct epoll_event ev = { .events = events, .data.fd = fd };
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Watches live in an array indexed by fd: a proxy with thousands of
 * connections dispatches each event in O(1). */
static int watch_slot(struct core_run *run, int fd, struct core_watch **ret)
{
        if (fd < 0)
                return -EBADF;
        if ((size_t) fd >= run->n_watches) {
                size_t n = run->n_watches ? run->n_watches : 64;
                struct core_watch *nw;

                while (n <= (size_t) fd)
                        n *= 2;
                nw = realloc(run->watches, n * sizeof(*nw));
                if (!nw)
                        return -ENOMEM;
                memset(nw + run->n_watches, 0, (n - run->n_watches) * sizeof(*nw));
                run->watches = nw;
                run->n_watches = n;
        }
        *ret = &run->watches[fd];
        return 0;
}

/* Watching an fd that is already watched changes its events and callback. */
int core_watch_fd(struct stk_ctx *ctx, int fd, unsigned events, stk_watch_cb cb, void *userdata)
{
        struct core_run *run = ctx->run;
        struct epoll_event ev = { .data.fd = fd };
        struct core_watch *w;
        int r;

        ev.events = (events & STK_WATCH_IN ? EPOLLIN : 0) | (events & STK_WATCH_OUT ? EPOLLOUT : 0);
        if (run->in_child || run->epoll_fd < 0)
                return -EPERM;
        if (!cb)
                return -EINVAL;
        r = watch_slot(run, fd, &w);
        if (r < 0)
                return r;
        if (epoll_ctl(run->epoll_fd, w->cb ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) < 0)
                return -errno;
        *w = (struct core_watch) { fd, cb, userdata, ctx };
        return 0;
}

int core_unwatch_fd(struct stk_ctx *ctx, int fd)
{
        struct core_run *run = ctx->run;

        if (fd < 0 || (size_t) fd >= run->n_watches || !run->watches[fd].cb)
                return -ENOENT;
        run->watches[fd] = (struct core_watch) { 0 };
        return epoll_ctl(run->epoll_fd, EPOLL_CTL_DEL, fd, NULL) < 0 ? -errno : 0;
}

int core_supervisor_prepare(struct core_run *run)
{
        if (run->epoll_fd >= 0)
                return 0;
        run->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        return run->epoll_fd < 0 ? -errno : 0;
}

static int block_signals(sigset_t *ret_old, int *ret_sigfd)
{
        sigset_t set;

        sigemptyset(&set);
        for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
                sigaddset(&set, forwarded[i]);
        sigaddset(&set, SIGCHLD);
        sigaddset(&set, SIGPIPE); /* a module's socket write must not kill the supervisor */
        if (sigprocmask(SIG_BLOCK, &set, ret_old) < 0)
                return -errno;
        sigdelset(&set, SIGPIPE);
        *ret_sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        return *ret_sigfd < 0 ? -errno : 0;
}

static void forward_signal(struct supervision *s, int sig)
{
        pid_t target = s->command ? s->command : s->child;

        /* The command leads its own process group (setsid in the child, or
         * bwrap --new-session): signal the group, as a terminal would. */
        if (kill(-target, sig) < 0 && kill(target, sig) < 0 && errno != ESRCH)
                core_log(STK_LOG_WARNING, "forwarding signal %d to %d: %s", sig, (int) target, strerror(errno));
}

static void read_signals(struct supervision *s)
{
        struct signalfd_siginfo si;

        while (read(s->sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si))
                if (si.ssi_signo != SIGCHLD)
                        forward_signal(s, (int) si.ssi_signo);
}

/* An fd an in-sandbox line sent: to the supervise_fd hook of the first
 * line of that module that has one.  Nobody to take it, or a failing hook:
 * the fd is closed, and a seccomp listener closed makes the filtered calls
 * fail (ENOSYS) rather than pass. */
static void hand_fd(struct core_run *run, const char *module, int fd)
{
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                struct stk_ctx *ctx = &run->ctxs[i];
                int r;

                if (!ctx->mod || !streq(ctx->mod->name, module) || !MODULE_HAS(ctx->mod->desc, supervise_fd))
                        continue;
                r = ctx->mod->desc->supervise_fd(ctx, fd);
                if (r >= 0)
                        return;
                core_log(STK_LOG_ERROR, "%s: taking over its fd failed: %s", module, strerror(-r));
                break;
        }
        (void) close(fd); /* see above: closing fails the calls closed */
}

static void read_status(struct core_run *run, struct supervision *s)
{
        struct core_status_msg msg;
        pid_t pid;
        int n, fd;

        if (s->status_fd < 0)
                return;
        while ((n = core_status_recv(s->status_fd, &msg, &pid, &fd)) > 0) {
                if (msg.kind == CORE_STATUS_FD) {
                        if (fd >= 0)
                                hand_fd(run, msg.text, fd);
                } else if (msg.kind == CORE_STATUS_READY) {
                        s->ready = true;
                        s->command = pid > 0 ? pid : s->child;
                } else
                        s->last = msg;
        }
        if (n < 0) {
                /* Closed (the command exec'd) or broken: stop watching, or
                 * epoll would report the hang-up forever. */
                (void) epoll_ctl(run->epoll_fd, EPOLL_CTL_DEL, s->status_fd, NULL);
                closep(&s->status_fd);
        }
}

static void dispatch_watch(struct core_run *run, int fd, uint32_t events)
{
        struct core_watch w;

        if (fd < 0 || (size_t) fd >= run->n_watches || !run->watches[fd].cb)
                return; /* unwatched by an earlier callback of this round */
        w = run->watches[fd];
        w.cb(w.ctx, fd, (events & (EPOLLIN | EPOLLHUP | EPOLLERR) ? STK_WATCH_IN : 0) |
                        (events & EPOLLOUT ? STK_WATCH_OUT : 0), w.userdata);
}

static int reap_child(struct supervision *s)
{
        siginfo_t si = { 0 };

        if (waitid(P_PIDFD, (id_t) s->pidfd, &si, WEXITED | WNOHANG) < 0)
                return -errno;
        if (si.si_pid == 0)
                return 0;
        s->exited = true;
        s->wait_status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
        return 1;
}

static int event_loop(struct core_run *run, struct supervision *s)
{
        struct epoll_event evs[64];

        while (!s->exited) {
                int n = epoll_wait(run->epoll_fd, evs, ELEMENTSOF(evs), -1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                for (int i = 0; i < n; i++) {
                        int fd = evs[i].data.fd;
                        if (fd == s->sigfd)
                                read_signals(s);
                        else if (fd == s->status_fd)
                                read_status(run, s);
                        else if (fd == s->pidfd) {
                                int r = reap_child(s);
                                if (r < 0)
                                        return r;
                        } else
                                dispatch_watch(run, fd, evs[i].events);
                }
        }
        read_status(run, s); /* a FAIL written just before exit */
        return 0;
}

/* Our children now, as /proc lists them; 0 when there are none. */
static size_t list_children(pid_t *pids, size_t max)
{
        char path[64], buf[4096];
        size_t n = 0, len;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int) syscall(SYS_gettid));
        f = fopen(path, "re");
        if (!f)
                return 0;
        len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        for (char *p = buf, *end; *p && n < max; p = end) {
                long pid = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (pid > 0)
                        pids[n++] = (pid_t) pid;
        }
        return n;
}

/* Reap every child that has ended; true when none is left at all. */
static bool reap_exited(void)
{
        pid_t p;

        while ((p = waitpid(-1, NULL, __WALL | WNOHANG)) > 0)
                ;
        return p < 0 && errno == ECHILD;
}

/* Wait until a child may have ended: SIGCHLD on the signalfd, at most
 * `ms`.  The signalfd is drained: the command is gone, nothing is left to
 * forward a signal to. */
static void wait_sigchld(int sigfd, int ms)
{
        struct pollfd p = { .fd = sigfd, .events = POLLIN };
        struct signalfd_siginfo si;

        if (sigfd < 0) {
                const struct timespec tick = { 0, (long) ms * 1000000 };
                (void) nanosleep(&tick, NULL); /* EINTR only shortens it */
                return;
        }
        (void) poll(&p, 1, ms); /* a timeout or EINTR: the caller looks again */
        while (read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si))
                ;
}

/* We are a subreaper: whatever the command left (daemons, double forks) is
 * re-parented to us.  Kill our children, reap, and go on until none is
 * left: a killed child's own children become ours, so each round looks
 * again.  Between rounds we wait for SIGCHLD rather than a fixed tick,
 * which cost a millisecond or two on every run (bwrap's pid 1 is still
 * dying when bwrap itself has been reaped).  Bounded by time, not rounds
 * (a tree that keeps forking wakes us early): a child stuck in
 * uninterruptible sleep ends the wait after 10 s. */
static void kill_leftovers(int sigfd)
{
        struct timespec now, end;

        (void) clock_gettime(CLOCK_MONOTONIC, &end); /* cannot fail with a valid clock */
        end.tv_sec += 10;
        do {
                pid_t pids[512];
                size_t n = list_children(pids, ELEMENTSOF(pids));

                for (size_t i = 0; i < n; i++)
                        (void) kill(pids[i], SIGKILL); /* ESRCH: it died meanwhile */
                if (reap_exited())
                        return;
                wait_sigchld(sigfd, 10);
                (void) clock_gettime(CLOCK_MONOTONIC, &now);
        } while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
        core_log(STK_LOG_WARNING, "processes left by the command would not die");
}

static int exit_status_of(const struct supervision *s)
{
        if (s->last.kind == CORE_STATUS_FAIL_SETUP) {
                core_log(STK_LOG_ERROR, "sandbox setup failed: %s", s->last.text);
                return s->last.err == EKEYREJECTED ? STK_EXIT_INTEGRITY : STK_EXIT_SETUP;
        }
        if (s->last.kind == CORE_STATUS_FAIL_EXEC) {
                core_log(STK_LOG_ERROR, "%s", s->last.text);
                return s->last.err == ENOENT ? 127 : 126;
        }
        if (!s->ready) {
                core_log(STK_LOG_ERROR, "the sandbox wrapper exited with status %d before the command started",
                         s->wait_status);
                return STK_EXIT_SETUP;
        }
        return s->wait_status;
}

static int start_child(struct core_run *run, struct supervision *s, const sigset_t *oldmask)
{
        int sp[2];
        int one = 1;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
                return -errno;
        if (setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
                int r = -errno;
                close(sp[0]);
                close(sp[1]);
                return r;
        }
        fflush(NULL); /* nothing buffered twice */
        s->child = fork();
        if (s->child < 0) {
                int r = -errno;
                close(sp[0]);
                close(sp[1]);
                return r;
        }
        if (s->child == 0) {
                close(sp[0]);
                core_child_main(run, sp[1], oldmask); /* never returns */
        }
        close(sp[1]);
        s->status_fd = sp[0];
        s->pidfd = (int) syscall(SYS_pidfd_open, s->child, 0);
        if (s->pidfd < 0)
                return -errno;
        return 0;
}

/* The command runs as our user: without this it could read our
 * /proc/PID/environ (the agent's tokens) and memory wherever no pid
 * namespace hides us (the Landlock stack).  LeakSanitizer stops the world
 * with ptrace from a child, which a non-dumpable process refuses: the
 * sanitizer build keeps the default. */
static int not_dumpable(void)
{
#if defined(__SANITIZE_ADDRESS__)
        return 0;
#else
        return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ? -errno : 0;
#endif
}

int core_supervise(struct core_run *run, int *ret_status)
{
        struct supervision s = { .pidfd = -1, .sigfd = -1, .status_fd = -1 };
        sigset_t oldmask;
        int r;

        r = core_supervisor_prepare(run);
        if (r >= 0 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                r = -errno;
        if (r >= 0)
                r = not_dumpable();
        if (r >= 0)
                r = block_signals(&oldmask, &s.sigfd);
        if (r >= 0)
                r = start_child(run, &s, &oldmask);
        if (r >= 0)
                r = watch_add(run->epoll_fd, s.sigfd, EPOLLIN);
        if (r >= 0)
                r = watch_add(run->epoll_fd, s.status_fd, EPOLLIN);
        if (r >= 0)
                r = watch_add(run->epoll_fd, s.pidfd, EPOLLIN);
        if (r >= 0)
                r = event_loop(run, &s);
        if (r < 0 && s.child > 0 && !s.exited)
                (void) kill(s.child, SIGKILL); /* the supervisor failed: take the command down */
        kill_leftovers(s.sigfd);
        if (r >= 0)
                *ret_status = exit_status_of(&s);
        closep(&s.pidfd);
        closep(&s.sigfd);
        closep(&s.status_fd);
        return r;
}
