/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (docs/ARCHITECTURE.md, Processes): fork the command into a
 * new session with no inherited fds, no_new_privs and a parent-death signal;
 * forward signals; run module watches; return the command's status; kill
 * whatever it left behind.
 *
 * A status channel tells the supervisor what happened on the other side of
 * the wrapper: the child (or the inner helper inside bwrap) sends READY
 * right before execve of the command, FAIL on a setup error.  On Linux the
 * kernel attaches the sender's pid, translated into our pid namespace, so
 * signals reach the command itself, not the wrapper (os_status_socketpair).
 *
 * What differs between systems is behind os.h and loop.h.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "core.h"
#include "os/loop.h"
#include "os/os.h"
#include "status.h"
#include "common/stk_time.h"
#include "util/util.h"

const int core_forwarded_signals[CORE_N_FORWARDED] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2 };

struct supervision {
        pid_t child;
        pid_t command;                  /* from READY; 0 until then */
        int sigfd, status_fd;
        struct core_status_msg last;    /* last message from the child side */
        bool ready, exited;
        int wait_status;
};

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
        struct core_watch *w;
        int r;

        if (run->in_child || !run->loop)
                return -EPERM;
        if (!cb)
                return -EINVAL;
        r = watch_slot(run, fd, &w);
        if (r < 0)
                return r;
        r = loop_set(run->loop, fd, (events & STK_WATCH_IN ? LOOP_IN : 0) | (events & STK_WATCH_OUT ? LOOP_OUT : 0));
        if (r < 0)
                return r;
        *w = (struct core_watch) { fd, cb, userdata, ctx };
        return 0;
}

int core_unwatch_fd(struct stk_ctx *ctx, int fd)
{
        struct core_run *run = ctx->run;

        if (fd < 0 || (size_t) fd >= run->n_watches || !run->watches[fd].cb)
                return -ENOENT;
        run->watches[fd] = (struct core_watch) { 0 };
        return loop_del(run->loop, fd);
}

int core_supervisor_prepare(struct core_run *run)
{
        return run->loop ? 0 : loop_new(&run->loop);
}

/* Signal the process group of `pid`, as a terminal would: the command's
 * own (setsid in the child), or under bwrap the group of the sandbox's
 * pid 1, where --new-session ran setsid and the command lives (found by
 * review: SIGINT reached sh alone, and its foreground child ran on). */
void core_signal_group(pid_t pid, int sig)
{
        pid_t g;

        if (kill(-pid, sig) == 0)
                return;
        g = getpgid(pid);
        /* never our own group: we would get it back, and forward it again */
        if ((g <= 0 || g == getpgrp() || kill(-g, sig) < 0) && kill(pid, sig) < 0 && errno != ESRCH)
                core_log(STK_LOG_WARNING, "forwarding signal %d to %d: %s", sig, (int) pid, strerror(errno));
}

/* Before READY the keeper gets it (it relays it to the command it has
 * forked, child.c); after, the command's group directly. */
static void forward_signal(struct supervision *s, int sig)
{
        core_signal_group(s->command ? s->command : s->child, sig);
}

/* Our child, the wrapper or the command, has ended: its status, once.  It
 * stays a zombie (WNOWAIT) until kill_leftovers reaps it, so its pid, which
 * is its process group's id too, cannot be given to another process before
 * the group is killed (os_list_leftovers, portable). */
static int reap_child(struct supervision *s)
{
        siginfo_t si = { 0 };

        if (waitid(P_PID, (id_t) s->child, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
                return -errno;
        if (si.si_pid == 0)
                return 0;
        s->exited = true;
        s->wait_status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
        return 1;
}

/* SIGCHLD may stand for several children, and for orphans of the command
 * (a subreaper gets theirs): look at ours each time. */
static int read_signals(struct supervision *s)
{
        int sig, r = 0;

        while ((sig = os_signal_next(s->sigfd)) > 0)
                if (sig != SIGCHLD)
                        forward_signal(s, sig);
                else if (!s->exited && (r = reap_child(s)) < 0)
                        return r;
        return 0;
}

/* An fd an in-sandbox line sent: to the supervise_fd hook of the first
 * line of that module that has one.  Nobody to take it, or a failing hook:
 * the fd is closed, and a seccomp listener closed makes the filtered calls
 * fail (ENOSYS) rather than pass. */
static void hand_fd(struct core_run *run, const char *module, int fd)
{
        if (streq(module, CORE_NOTIFY_FD_NAME)) {
                int r = core_notify_watch(run, fd);
                if (r >= 0)
                        return;
                core_log(STK_LOG_ERROR, "the in-sandbox lines' seccomp listener: %s", strerror(-r));
                (void) close(fd);
                return;
        }
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
                 * the loop would report the hang-up forever. */
                (void) loop_del(run->loop, s->status_fd);
                closep(&s->status_fd);
        }
}

static void dispatch_watch(struct core_run *run, int fd, unsigned events)
{
        struct core_watch w;

        if (fd < 0 || (size_t) fd >= run->n_watches || !run->watches[fd].cb)
                return; /* unwatched by an earlier callback of this round */
        w = run->watches[fd];
        w.cb(w.ctx, fd, (events & LOOP_IN ? STK_WATCH_IN : 0) | (events & LOOP_OUT ? STK_WATCH_OUT : 0), w.userdata);
}

/* `run --timeout`: SIGTERM to the command at the deadline (it may clean
 * up), SIGKILL to the sandbox's first process TIMEOUT_GRACE_MS later (its
 * keeper or pid 1 then takes the rest down, and kill_leftovers what is
 * left).  The wait until the next of those, at most a second. */
#define TIMEOUT_GRACE_MS 2000

static int check_deadline(struct core_run *run, struct supervision *s, int64_t deadline)
{
        int64_t now = stk_now_ms();

        if (!run->timeout_s)
                return 1000;
        if (!run->timed_out && now >= deadline) {
                core_log(STK_LOG_ERROR, "the command ran for its --timeout of %d s: stopping it", run->timeout_s);
                forward_signal(s, SIGTERM);
                run->timed_out = true;
        }
        if (run->timed_out && now >= deadline + TIMEOUT_GRACE_MS) {
                core_signal_group(s->child, SIGKILL); /* its group, or the child alone */
                return 1000;
        }
        deadline += run->timed_out ? TIMEOUT_GRACE_MS : 0;
        return deadline - now < 1000 ? (int) (deadline - now) : 1000;
}

static int event_loop(struct core_run *run, struct supervision *s)
{
        struct loop_event evs[64];
        int r = reap_child(s); /* it may have ended before SIGCHLD was caught */
        int64_t deadline = stk_now_ms() + (int64_t) run->timeout_s * 1000;

        while (r >= 0 && !s->exited) {
                /* Woken once a second anyway: an exit whose SIGCHLD was
                 * lost (a full self-pipe, a harness's signal mask) is seen. */
                int n = loop_wait(run->loop, evs, ELEMENTSOF(evs), check_deadline(run, s, deadline));
                if (n < 0)
                        return n;
                if (n == 0)
                        r = reap_child(s);
                for (int i = 0; r >= 0 && i < n; i++) {
                        int fd = evs[i].fd;
                        if (fd == s->sigfd)
                                r = read_signals(s);
                        else if (fd == s->status_fd)
                                read_status(run, s);
                        else
                                dispatch_watch(run, fd, evs[i].events);
                }
        }
        if (r < 0)
                return r;
        read_status(run, s); /* a FAIL written just before exit */
        return 0;
}

/* Linux: children that exit with another signal than SIGCHLD too. */
#ifdef __WALL
#define WAIT_ANY_KIND __WALL
#else
#define WAIT_ANY_KIND 0
#endif

/* Reap every child that has ended; true when none is left at all. */
static bool reap_exited(void)
{
        pid_t p;

        while ((p = waitpid(-1, NULL, WAIT_ANY_KIND | WNOHANG)) > 0)
                ;
        return p < 0 && errno == ECHILD;
}

/* Wait until a child may have ended: SIGCHLD on the signal fd, at most
 * `ms`.  The signals are drained: the command is gone, nothing is left to
 * forward a signal to. */
static void wait_sigchld(int sigfd, int ms)
{
        struct pollfd p = { .fd = sigfd, .events = POLLIN };

        if (sigfd < 0) {
                const struct timespec tick = { 0, (long) ms * 1000000 };
                (void) nanosleep(&tick, NULL); /* EINTR only shortens it */
                return;
        }
        (void) poll(&p, 1, ms); /* a timeout or EINTR: the caller looks again */
        while (os_signal_next(sigfd) > 0)
                ;
}

/* On Linux we are a subreaper: whatever the command left (daemons, double
 * forks) is re-parented to us.  Kill our children, reap, and go on until
 * none is left: a killed child's own children become ours, so each round
 * looks again.  Elsewhere the command's process group is killed instead
 * (os_list_leftovers).  Between rounds we wait for SIGCHLD rather than a fixed tick,
 * which cost a millisecond or two on every run (bwrap's pid 1 is still
 * dying when bwrap itself has been reaped).  Bounded by time, not rounds
 * (a tree that keeps forking wakes us early): a child stuck in
 * uninterruptible sleep ends the wait after 10 s. */
static void kill_leftovers(int sigfd, pid_t group)
{
        struct timespec now, end;

        (void) clock_gettime(CLOCK_MONOTONIC, &end); /* cannot fail with a valid clock */
        end.tv_sec += 10;
        do {
                pid_t pids[512];
                size_t n = os_list_leftovers(group, pids, ELEMENTSOF(pids));

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
        int r = os_status_socketpair(sp);
        pid_t self = getpid();

        if (r < 0)
                return r;
        fflush(NULL); /* nothing buffered twice */
        s->child = fork();
        if (s->child < 0) {
                r = -errno;
                close(sp[0]);
                close(sp[1]);
                return r;
        }
        if (s->child == 0) {
                close(sp[0]);
                core_child_main(run, self, sp[1], oldmask); /* never returns */
        }
        close(sp[1]);
        s->status_fd = sp[0];
        return 0;
}

int core_supervise(struct core_run *run, int *ret_status)
{
        struct supervision s = { .sigfd = -1, .status_fd = -1 };
        sigset_t oldmask;
        int r;

        r = core_supervisor_prepare(run);
        if (r >= 0)
                r = os_supervisor_setup();
        if (r >= 0)
                r = os_signals_open(core_forwarded_signals, CORE_N_FORWARDED, &oldmask, &s.sigfd);
        if (r >= 0)
                r = start_child(run, &s, &oldmask);
        if (r >= 0) {
                run->freeze_root = s.child;
                core_prepare_in_sandbox(run, s.status_fd); /* beside the child's setup (handoff.c) */
        }
        if (r >= 0)
                r = loop_set(run->loop, s.sigfd, LOOP_IN);
        if (r >= 0)
                r = loop_set(run->loop, s.status_fd, LOOP_IN);
        if (r >= 0)
                r = event_loop(run, &s);
        if (r < 0 && s.child > 0 && !s.exited)
                (void) kill(s.child, SIGKILL); /* the supervisor failed: take the command down */
        run->freeze_root = 0;
        kill_leftovers(s.sigfd, s.child); /* the child leads the command's process group (setsid) */
        if (r >= 0)
                *ret_status = run->timed_out ? CORE_EXIT_TIMEOUT : exit_status_of(&s);
        if (s.sigfd >= 0)
                (void) loop_del(run->loop, s.sigfd);
        os_signals_close(s.sigfd);
        if (s.status_fd >= 0)
                (void) loop_del(run->loop, s.status_fd);
        closep(&s.status_fd);
        return r;
}
