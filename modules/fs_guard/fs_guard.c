/* SPDX-License-Identifier: MIT */
/*
 * fs_guard: the file-system calls that Landlock cannot judge, answered by
 * the supervisor on seccomp user notifications (stockade-fs_guard(8)):
 *
 *   guard_attr  chmod, chown, timestamps, user xattrs (fs_guard_attr.c):
 *               Landlock has no right for metadata;
 *   guard_top   without a namespace wrapper, entries and write-opens
 *               beneath writable roots (fs_guard_top.c): Landlock cannot
 *               grant the top level of a root beside a protected name;
 *               and the command's own scratch entries in the host's
 *               /dev/shm, removed after the run (fs_guard_shm.c, host_shm).
 *
 * Its filter is compiled by prepare in the supervisor and handed to the
 * core (ABI 1.5 host->seccomp_notify), which loads it with the other
 * lines' as one filter with one listener: a process holds one at most,
 * and net_seccomp's connect guard needs it too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "fs_guard_internal.h"

static const struct stk_host *host;

static const struct stk_arg_spec fg_args[] = {
        { "guard_attr", STK_ARG_BOOL, 0,
          "chmod, chown, timestamps and user xattrs made by the supervisor, only beneath writable roots and "
          "outside islands (default true)" },
        { "guard_top", STK_ARG_BOOL, 0,
          "without a namespace wrapper, entries and write-opens beneath writable roots are made by the supervisor "
          "(Landlock cannot grant a root's top level beside a protected name; default true)" },
        { "host_shm", STK_ARG_BOOL, 0,
          "with guard_top, the command's own entries in the host's /dev/shm (sem_open, shm_open) made by the "
          "supervisor, and removed when the run ends; the host's stay refused (default true)" },
        { "log", STK_ARG_BOOL, 0, "have the kernel log every refused syscall (SECCOMP_FILTER_FLAG_LOG)" },
        { NULL, 0, 0, NULL },
};

static void log_error(void *userdata, const char *fmt, ...)
{
        char buf[512];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(buf, sizeof(buf), fmt, ap); /* truncation only shortens a message */
        va_end(ap);
        host->log(userdata, STK_LOG_ERROR, "%s", buf);
}

/* The one listener of a run is the core's (ABI 1.5): without it there is
 * no way to share it with net_seccomp, and no guard. */
static bool host_shares_listener(void)
{
        return STK_HAS(host, stk_host, seccomp_notify) && host->seccomp_notify &&
               STK_HAS(host, stk_host, covered) && host->covered;
}

/* A wrapper before us gave the command its namespaces (fs_bwrap's IPC
 * namespace tells it took effect): its mounts give the top level of a
 * writable root its rights. */
static bool wrapped(struct stk_ctx *ctx)
{
        return (host->covered(ctx) & STK_COVER_IPC) != 0;
}

static void get_opts(struct stk_ctx *ctx, struct fg_opts *ret)
{
        *ret = (struct fg_opts) { .log = host->arg_bool(ctx, "log", 0),
                                  .guard_attr = host->arg_bool(ctx, "guard_attr", 1),
                                  .guard_top = host->arg_bool(ctx, "guard_top", 1) && !wrapped(ctx) };
}

struct fg_data {
        const char **write; /* supervisor: writable roots and writable binds, NULL-ended */
        bool wrapped;       /* supervisor: a namespace wrapper took effect */
        bool tmp_noticed;   /* supervisor: the user was told about the host's /tmp */
        bool host_shm;      /* supervisor: the run's own entries in /dev/shm are made (host_shm) */
        struct fg_shm shm;  /* supervisor: those entries, removed by fg_fini */
        bool ready;
        struct fg_fifo_wait *fifos; /* supervisor: FIFO opens kept until a reader comes */
        int timer;                  /* their retries' timerfd, watched; -1 */
        struct fg_grants grants;    /* what Landlock grants (probe), for CONTINUE at once */
};

static int fg_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct fg_data *d;

        host = h;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->timer = -1;
        fg_shm_init(&d->shm);
        *ret_data = d;
        return 0;
}

static void fg_fini(void *data)
{
        struct fg_data *d = data;

        if (!d)
                return;
        fg_fifo_drop_all(&d->fifos);
        fg_grants_free(&d->grants);
        if (d->timer >= 0)
                close(d->timer);
        /* Cold runs free the run after the command and all it left ended
         * (core_supervise's kill_leftovers); a warm session's worker as well
         * (core_warm_worker_exit). */
        fg_shm_remove_all(&d->shm);
        free(d->write);
        free(d);
}

/* Where fs_landlock's rules grant writes, seen as it plans them (in its
 * probe, just before ours): fs_guard_grant.c. */
static int snapshot_grants(struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);
        struct fg_data *d = host->data(ctx);
        int r;

        if (!d)
                return 0;
        r = fg_grants_snapshot(&d->grants, s->write, s->read_only, s->hide);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "what Landlock grants beneath the writable roots: %s", strerror(-r));
        return r;
}

static int fg_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct fg_opts o;
        int r;

        if (!host_shares_listener()) {
                host->log(ctx, STK_LOG_ERROR, "needs a core of ABI 1.5 (one seccomp listener for every line); "
                          "this one is %u.%u", (unsigned) STK_ABI_MAJOR, (unsigned) host->abi_minor);
                return -EOPNOTSUPP;
        }
        if (prctl(PR_GET_SECCOMP, 0L, 0L, 0L, 0L) < 0) {
                r = -errno;
                host->log(ctx, STK_LOG_ERROR, "seccomp unavailable: prctl(PR_GET_SECCOMP): %s", strerror(-r));
                return r == -EINVAL ? -EOPNOTSUPP : r;
        }
        get_opts(ctx, &o);
        r = o.guard_top ? snapshot_grants(ctx) : 0;
        if (r < 0)
                return r;
        /* guard_attr is what keeps metadata beneath the writable roots
         * where the file system layer cannot (Landlock); guard_top only
         * lets the command do more, and claims nothing. */
        *ret_covers = o.guard_attr ? STK_COVER_METADATA : 0;
        return 0;
}

/* ---- compiled beside the child (ABI 1.4 prepare), as net_seccomp's ---- */
static bool same_opts(const void *given, const void *ours)
{
        const struct fg_opts *a = given, *b = ours;

        return a->log == b->log && a->guard_attr == b->guard_attr && a->guard_top == b->guard_top;
}

static int fg_prepare(struct stk_ctx *ctx)
{
        struct stk_sc_prog prog = { 0 };
        struct fg_opts o;
        int r;

        if (!stk_sc_handoff_available(host) || !host_shares_listener())
                return 0;
        get_opts(ctx, &o);
        r = fg_compile(&o, &prog, log_error, ctx);
        if (r == -ENOENT)
                return 0; /* neither guard: no filter */
        if (r < 0)
                return r;
        return stk_sc_handoff_give(host, ctx, &o, sizeof(o), &prog);
}

static int fg_in_sandbox(struct stk_ctx *ctx)
{
        struct stk_sc_prog prog = { 0 };
        struct fg_opts o;
        int r;

        if (!host || !host_shares_listener())
                return -EOPNOTSUPP;
        get_opts(ctx, &o);
        r = stk_sc_handoff_take(host, ctx, &o, sizeof(o), same_opts, &prog);
        if (r == 0)
                r = fg_compile(&o, &prog, log_error, ctx);
        if (r == -ENOENT)
                return 0; /* neither guard: nothing to load */
        if (r < 0)
                return r;
        r = host->seccomp_notify(ctx, prog.insns, prog.len, prog.flags & ~SECCOMP_FILTER_FLAG_NEW_LISTENER);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "handing the filter to the core: %s", strerror(-r));
        stk_sc_prog_done(&prog);
        return r < 0 ? r : 0;
}

/* Before the first call is answered: every line has run by now. */
static int setup(struct stk_ctx *ctx, struct fg_data *d)
{
        int r = stk_sc_writable(host, ctx, &d->write);

        if (r < 0)
                return r;
        d->wrapped = wrapped(ctx);
        d->host_shm = host->arg_bool(ctx, "host_shm", 1) && !d->wrapped;
        d->ready = true;
        return 0;
}

/* One notice a run: Landlock's EACCES for /tmp/NAME does not say that the
 * command's private temporary directory is elsewhere. */
static void host_tmp_refused(void *userdata, const char *path)
{
        struct stk_ctx *ctx = userdata;
        struct fg_data *d = host->data(ctx);

        if (!d || d->tmp_noticed)
                return;
        d->tmp_noticed = true;
        host->log(ctx, STK_LOG_WARNING, "private_tmp: %s refused: under this stack (no mount namespace) the host's "
                  "/tmp stays read-only; the command's private temporary directory is $TMPDIR", path);
}

/* The kept FIFO opens, tried again (fs_guard_fifo.c), as the command:
 * without our capabilities. */
static void fifo_retry(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct fg_data *d = userdata;
        struct stk_sc_caps caps = { .dropped = false };
        uint64_t ticks;
        unsigned next = 0;
        int r, sent = 0;

        (void) events;
        if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
                host->log(ctx, STK_LOG_DEBUG, "FIFO retry timer: %s", strerror(errno));
        r = stk_sc_caps_off(&caps);
        if (r >= 0)
                next = fg_fifo_retry(&d->fifos, &sent);
        stk_sc_caps_on(&caps);
        if (sent < 0)
                host->log(ctx, STK_LOG_ERROR, "answering a FIFO open kept for its reader: %s", strerror(-sent));
        if (r >= 0)
                r = fg_timer_arm(d->timer, next);
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "FIFO opens kept for a reader: %s; they fail", strerror(-r));
                fg_fifo_fail_all(&d->fifos, r);
        }
}

/* pol->fifo_wait: keep the call, and try it again 1 ms from now (the
 * others kept are tried then too: sooner than their turn, no harm). */
static int fifo_wait(void *userdata, int listener, uint64_t id, int fifo, int flags)
{
        struct stk_ctx *ctx = userdata;
        struct fg_data *d = host->data(ctx);
        int r;

        if (host->abi_minor < 8)
                return -ENXIO; /* no core to keep it: the call cannot wait */
        if (d->timer < 0) {
                d->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
                if (d->timer < 0)
                        return -errno;
                r = host->watch_fd(ctx, d->timer, STK_WATCH_IN, fifo_retry, d);
                if (r < 0) {
                        close(d->timer);
                        d->timer = -1;
                        return r;
                }
        }
        r = fg_timer_arm(d->timer, 1000);
        if (r >= 0)
                r = fg_fifo_keep(&d->fifos, listener, id, fifo, flags);
        return r < 0 ? r : FG_LATER;
}

/* A call from the core's listener: ours if guard_attr or guard_top sent it. */
static int fg_notify(struct stk_ctx *ctx, int listener, const void *req_, void *resp_)
{
        const struct seccomp_notif *req = req_;
        struct seccomp_notif_resp *resp = resp_;
        const struct stk_settings *s = host->settings(ctx);
        struct fg_data *d = host->data(ctx);
        struct stk_sc_caps caps = { .dropped = false };
        struct fg_policy pol;
        struct fg_opts o;
        long val = 0;
        int r;

        get_opts(ctx, &o);
        if (!(o.guard_attr && fg_attr_is_guarded(req->data.nr)) && !(o.guard_top && fg_top_is_guarded(req->data.nr)))
                return 1;
        if (!d)
                return -EINVAL;
        r = d->ready ? 0 : setup(ctx, d);
        if (r < 0)
                return r;
        pol = (struct fg_policy) { .write = d->write, .read_only = s->read_only, .hide = s->hide, .wrapped = d->wrapped,
                                   .host_tmp = s->private_tmp && !d->wrapped ? "/tmp" : NULL,
                                   .host_tmp_refused = host_tmp_refused, .fifo_wait = fifo_wait,
                                   .grants = &d->grants, .userdata = ctx, .shm = d->host_shm ? &d->shm : NULL };
        /* Everything we do for the command, the path lookups too, without
         * our capabilities: it has none. */
        r = stk_sc_caps_off(&caps);
        if (r >= 0 && o.guard_attr && fg_attr_is_guarded(req->data.nr))
                r = fg_attr_call(listener, req, &pol);
        else if (r >= 0)
                r = fg_top_call(listener, req, &pol, &val);
        stk_sc_caps_on(&caps);
        if (r == FG_LATER)
                return STK_NOTIFY_LATER;
        resp->id = req->id;
        resp->val = r < 0 ? 0 : val;
        resp->error = r < 0 ? r : 0;
        resp->flags = 0;
        if (r == FG_CONTINUE) { /* the kernel decides, with Landlock */
                resp->val = 0;
                resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        }
        return 0;
}

/* `stockade explain --details`. */
static int fg_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct stk_sc_prog p = { 0 };
        struct fg_opts o;
        char *text = NULL;
        int r, n;

        get_opts(ctx, &o);
        r = fg_compile(&o, &p, log_error, ctx);
        if (r == -ENOENT) {
                *ret_text = strdup("no guard: guard_attr and guard_top are off\n");
                return *ret_text ? 0 : -ENOMEM;
        }
        if (r < 0)
                return r;
        n = asprintf(&text, "seccomp filter, %u BPF instructions, its calls answered by the supervisor; other ABIs "
                     "(i386, x32): EPERM\n%s%s%s", (unsigned) p.len,
                     o.guard_attr ? "  guard_attr: chmod, chown, timestamps, user xattrs made by the supervisor "
                                    "beneath writable roots only; chattr ioctls refused\n" : "",
                     o.guard_top ? "  guard_top, when no namespace wrapper takes effect: entries and write-opens "
                                   "beneath writable roots made by the supervisor (Landlock cannot grant a root's "
                                   "top level beside .git)\n" : "",
                     o.guard_top && host->arg_bool(ctx, "host_shm", 1)
                             ? "  host_shm: the command's own entries in the host's /dev/shm (sem_open, shm_open) made "
                               "by the supervisor and removed when the run ends; the host's entries stay refused; "
                               "while it runs its names are visible on the host, and it cannot read its own entry "
                               "with O_RDONLY (reads are not notified)\n" : "");
        stk_sc_prog_done(&p);
        if (n < 0)
                return -ENOMEM;
        *ret_text = text;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("fs_guard"),
        .summary = "seccomp user notification: chmod/chown/xattrs and a writable root's top level, checked and "
                   "made by the supervisor (beside Landlock)",
        .args = fg_args,
        .covers = STK_COVER_METADATA,
        .init = fg_init,
        .fini = fg_fini,
        .probe = fg_probe,
        .in_sandbox = fg_in_sandbox,
        .explain = fg_explain,
        .prepare = fg_prepare,
        .notify = fg_notify,
};
