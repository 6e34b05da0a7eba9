/* SPDX-License-Identifier: MIT */
/*
 * net_seccomp: a seccomp filter loaded in the sandboxed child right before
 * execve.  It narrows socket(2) to what the network mode needs (what
 * Landlock and the namespaces cannot see: UDP, raw, netlink, packet, ...)
 * and refuses the kernel attack surface of ns_table, returning an errno
 * (never killing) so the command sees a clear error.  The table and its
 * reasons are in net_seccomp_table.c and stockade-net_seccomp(8).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <stddef.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "common/stk_proxy.h"
#include "net_seccomp_internal.h"

static const struct stk_host *host;

static const struct stk_arg_spec ns_args[] = {
        { "allow", STK_ARG_LIST, 0,
          "hardening groups to leave out: ptrace process_vm io_uring tty_inject keyring bpf perf userfaultfd "
          "namespaces mount kexec kernel_modules personality open_by_handle" },
        { "log", STK_ARG_BOOL, 0, "have the kernel log every refused syscall (SECCOMP_FILTER_FLAG_LOG)" },
        { "guard_unix", STK_ARG_BOOL, 0,
          "connect() checked by the supervisor: unix sockets the command may reach, and through the proxy, "
          "TCP only to the proxy on 127.0.0.1 (default true)" },
        /* Moved to fs_guard: still known, so that a line that sets them is
         * an error naming where they went, never a silent no-op. */
        { "guard_top", STK_ARG_BOOL, 0, "moved to fs_guard (stockade-fs_guard(8)): an error here" },
        { "guard_attr", STK_ARG_BOOL, 0, "moved to fs_guard (stockade-fs_guard(8)): an error here" },
        { "proxy_port", STK_ARG_INT, STK_ARG_TRUSTED,
          "network mode proxy without net_proxy: the loopback port TCP connect() may reach" },
        { "unix_allow", STK_ARG_LIST, STK_ARG_TRUSTED,
          "unix sockets reachable wherever they are (an ssh-agent, a gpg-agent): absolute paths" },
        { NULL, 0, 0, NULL },
};

static void log_error(void *userdata, const char *fmt, ...)
{
        char buf[512];
        va_list ap;

        va_start(ap, fmt);
        (void)vsnprintf(buf, sizeof(buf), fmt, ap); /* truncation only shortens a message */
        va_end(ap);
        host->log(userdata, STK_LOG_ERROR, "%s", buf);
}

/* An ABI 1.0 core cannot take the listener: no guard then, and no claim. */
static bool host_can_pass_fds(void)
{
        return STK_HAS(host, stk_host, send_fd) && host->send_fd;
}

/* ABI 1.5: the core holds one listener for every line. */
static bool host_shares_listener(void)
{
        return STK_HAS(host, stk_host, seccomp_notify) && host->seccomp_notify;
}

/* A line before ours gave the command its own IPC namespace (fs_bwrap's
 * pre-exec, as the inner helper learns it).  In the supervisor, before
 * pre-exec, nothing has: the filter compiled there refuses IPC, and is the
 * one a wrapper-less child loads. */
static int ipc_isolated(struct stk_ctx *ctx)
{
        if (!STK_HAS(host, stk_host, covered) || !host->covered)
                return 0;
        return (host->covered(ctx) & STK_COVER_IPC) != 0;
}

static int get_opts(struct stk_ctx *ctx, struct ns_opts *ret)
{
        const struct stk_settings *s = host->settings(ctx);
        const char *bad = NULL;
        int r;

        if (!s)
                return -EINVAL;
        *ret = (struct ns_opts){ .network = s->network, .log = host->arg_bool(ctx, "log", 0),
                                 .guard_unix = host->arg_bool(ctx, "guard_unix", 1) && host_can_pass_fds(),
                                 .ipc_isolated = ipc_isolated(ctx) };
        for (size_t i = 0; i < 2; i++) {
                static const char *const moved[] = { "guard_top", "guard_attr" };
                if (host->arg_bool(ctx, moved[i], -1) != -1) {
                        host->log(ctx, STK_LOG_ERROR, "%s: moved to the fs_guard module: drop it here and list "
                                  "\"{ phase: in-sandbox, control: required, module: fs_guard }\" in the stack "
                                  "(its args guard_top and guard_attr; stockade-fs_guard(8))", moved[i]);
                        return -EINVAL;
                }
        }
        r = ns_parse_allow(host->arg_list(ctx, "allow"), &ret->allowed_groups, &bad);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "allow: unknown group \"%s\" (see stockade-net_seccomp(8))", bad);
        for (const char *const *a = host->arg_list(ctx, "unix_allow"); r >= 0 && *a; a++)
                if ((*a)[0] != '/') {
                        host->log(ctx, STK_LOG_ERROR, "unix_allow: \"%s\" is not an absolute path", *a);
                        r = -EINVAL;
                }
        if (r >= 0 && (unsigned)s->network > STK_NET_ON) {
                host->log(ctx, STK_LOG_ERROR, "unknown network mode %d", (int)s->network);
                r = -EINVAL;
        }
        return r;
}

/* The supervisor's side of every line (the filter is compiled and loaded
 * by in_sandbox, where it runs). */
struct ns_data {
        int listener;   /* supervisor: the guard_unix listener, or -1 */
        const char **write; /* supervisor: writable roots and writable binds, NULL-ended */
        bool wrapped;       /* supervisor: a namespace wrapper took effect (its ipc cover) */
        int proxy_port;     /* supervisor: the proxy's port, resolved once (0: none, connects refused) */
        bool ready;         /* supervisor: the above are set */
};

static int ns_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct ns_opts o;
        int r;

        host = h;
        r = get_opts(ctx, &o);  /* a bad `allow:` fails the run before anything starts */
        if (r < 0)
                return r;
        struct ns_data *d = calloc(1, sizeof(struct ns_data));
        if (!d)
                return -ENOMEM;
        d->listener = -1;
        *ret_data = d;
        return 0;
}

static void ns_fini(void *data)
{
        struct ns_data *d = data;

        if (d && d->listener >= 0)
                close(d->listener);
        if (d)
                free(d->write);
        free(d);
}

static int ns_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct ns_opts o;
        uint32_t covers = 0;
        int r = get_opts(ctx, &o);

        if (r < 0)
                return r;
        /* EINVAL: a kernel without CONFIG_SECCOMP (prctl(2)). */
        if (prctl(PR_GET_SECCOMP, 0L, 0L, 0L, 0L) < 0) {
                r = -errno;
                host->log(ctx, STK_LOG_ERROR, "seccomp unavailable: prctl(PR_GET_SECCOMP): %s", strerror(-r));
                return r == -EINVAL ? -EOPNOTSUPP : r;
        }
        /* Not compiled here: before pre-exec it is not known whether a
         * wrapper takes effect; prepare compiles it once that is known. */
        if (o.network != STK_NET_ON)
                covers |= STK_COVER_NET_OTHER;
        if (o.network == STK_NET_OFF)
                covers |= STK_COVER_NET_TCP;   /* no IP socket at all */
        if (o.network != STK_NET_ON && o.guard_unix)
                covers |= STK_COVER_NET_UNIX | STK_COVER_NET_TCP;  /* connect() answered by the supervisor */
        if ((o.allowed_groups & ~(1u << NS_G_IPC)) == 0)
                covers |= STK_COVER_KERNEL;
        if (!(o.allowed_groups & (1u << NS_G_IPC)))
                covers |= STK_COVER_IPC;       /* refused, or a wrapper's namespace already */
        *ret_covers = covers;
        return 0;
}

/* ---- compiled beside the child (ABI 1.4 prepare) ------------------------
 * libseccomp takes 0.3 to 0.7 ms to compile the filter.  prepare compiles it
 * in the supervisor right after the fork, on the other CPU, while bwrap
 * starts (or fs_landlock applies in a wrapper-less child), and hands the
 * program over with the options it was compiled for; in_sandbox loads it,
 * or compiles its own if its options differ (a line before it in the child
 * changed what is covered) or the core is older than 1.4. */
static bool same_opts(const void *given, const void *ours)
{
        const struct ns_opts *a = given, *b = ours;

        return a->network == b->network && a->allowed_groups == b->allowed_groups && a->log == b->log &&
               a->guard_unix == b->guard_unix && a->ipc_isolated == b->ipc_isolated;
}

static int ns_prepare(struct stk_ctx *ctx)
{
        struct stk_sc_prog prog = { 0 };
        struct ns_opts o;
        int r;

        if (!stk_sc_handoff_available(host))
                return 0;
        r = get_opts(ctx, &o);
        if (r >= 0)
                r = ns_compile(&o, &prog, log_error, ctx);
        if (r < 0)
                return r;
        return stk_sc_handoff_give(host, ctx, &o, sizeof(o), &prog);
}

static int ns_in_sandbox(struct stk_ctx *ctx)
{
        struct stk_sc_prog prog = { 0 };
        struct ns_opts o;
        int r;

        if (!host)
                return -EINVAL;
        r = get_opts(ctx, &o);
        if (r >= 0)
                r = stk_sc_handoff_take(host, ctx, &o, sizeof(o), same_opts, &prog);
        if (r > 0)
                host->log(ctx, STK_LOG_DEBUG, "filter compiled by prepare: %u instructions", (unsigned) prog.len);
        if (r == 0) {
                host->log(ctx, STK_LOG_DEBUG, "filter compiled here: no prepared one for these options");
                r = ns_compile(&o, &prog, log_error, ctx);
        }
        if (r < 0)
                return r;
        if ((prog.flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) && host_shares_listener()) {
                /* ABI 1.5: one listener for every line that sends calls to
                 * the supervisor (fs_guard's too); the core loads the
                 * programs as one filter after the last line. */
                r = host->seccomp_notify(ctx, prog.insns, prog.len, prog.flags & ~SECCOMP_FILTER_FLAG_NEW_LISTENER);
                if (r < 0)
                        host->log(ctx, STK_LOG_ERROR, "handing the filter to the core: %s", strerror(-r));
                stk_sc_prog_done(&prog);
                return r < 0 ? r : 0;
        }
        r = stk_sc_load(&prog);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "seccomp(SECCOMP_SET_MODE_FILTER, %zu insns, flags 0x%x): %s",
                          (size_t)prog.len, prog.flags, strerror(-r));
        stk_sc_prog_done(&prog);
        if (r > 0) {
                /* The listener goes to the supervisor; without it there, the
                 * command's connect() calls would wait forever, so failing
                 * to send fails the run. */
                int listener = r;
                r = host->send_fd(ctx, listener);
                close(listener);
                if (r < 0)
                        host->log(ctx, STK_LOG_ERROR, "handing the unix-socket guard to the supervisor: %s",
                                  strerror(-r));
        }
        return r < 0 ? r : 0;
}

static void policy_of(struct stk_ctx *ctx, struct ns_unix_policy *pol)
{
        const struct stk_settings *s = host->settings(ctx);
        struct ns_data *dd = host->data(ctx);

        *pol = (struct ns_unix_policy) { .write = dd && dd->write ? dd->write : s->write, .wrapped = dd && dd->wrapped,
                                         .read_only = s->read_only, .hide = s->hide,
                                         .allow = host->arg_list(ctx, "unix_allow"),
                                         .network = s->network, .proxy_port = dd ? dd->proxy_port : 0 };
}

static void on_notify(struct stk_ctx *ctx, int fd, unsigned events, void *userdata)
{
        struct ns_unix_policy pol;
        int r;

        policy_of(ctx, &pol);
        r = ns_unix_handle(fd, &pol);

        if (r < 0) {
                /* Closing the listener fails the calls still to come (ENOSYS)
                 * rather than letting them through. */
                struct ns_data *d = host->data(ctx);
                host->log(ctx, STK_LOG_ERROR, "unix-socket guard: %s; refusing further connects", strerror(-r));
                (void) host->unwatch_fd(ctx, fd);
                close(fd);
                if (d)
                        d->listener = -1;
        }
}

/* Once per run, before the first call is answered: every line has run by
 * now, so it is known whether a wrapper made the namespaces.  Without one,
 * a mount namespace of the command's is one it made itself (allow:
 * [namespaces]), and says nothing. */
static int supervise_setup(struct stk_ctx *ctx, struct ns_data *d)
{
        int r = d->write ? 0 : stk_sc_writable(host, ctx, &d->write);

        if (r < 0)
                return r;
        d->wrapped = ipc_isolated(ctx);
        r = stk_proxy_port(host, ctx);
        if (r < 0)
                return r;
        d->proxy_port = r;
        d->ready = true;
        return 0;
}

/* ABI 1.5: a call from the core's shared listener; connect() is ours. */
static int ns_notify(struct stk_ctx *ctx, int listener, const void *req, void *resp)
{
        struct ns_data *d = host->data(ctx);
        struct ns_unix_policy pol;
        int r;

        if (((const struct seccomp_notif *) req)->data.nr != __NR_connect)
                return 1;
        if (!d)
                return -EINVAL;
        r = d->ready ? 0 : supervise_setup(ctx, d);
        if (r < 0)
                return r;
        policy_of(ctx, &pol);
        return ns_unix_answer(listener, req, &pol, resp);
}

/* Supervisor: the listener the in-sandbox hook sent. */
static int ns_supervise_fd(struct stk_ctx *ctx, int fd)
{
        struct ns_data *d = host->data(ctx);
        int r;

        if (!d || d->listener >= 0)
                return -EBUSY;
        r = supervise_setup(ctx, d);
        if (r < 0)
                return r;
        r = stk_sc_sync_wake_up(fd);
        if (r < 0)
                host->log(ctx, STK_LOG_DEBUG, "seccomp listener: SYNC_WAKE_UP: %s", strerror(-r));
        r = host->watch_fd(ctx, fd, STK_WATCH_IN, on_notify, NULL);
        if (r >= 0)
                d->listener = fd;
        return r;
}

static void print_entry(FILE *f, const struct ns_entry *e)
{
        fprintf(f, "  %s", e->syscall);
        if (e->pre)
                fprintf(f, " (arg%u == %llu)", e->pre_arg, (unsigned long long)e->pre_value);
        switch (e->kind) {
        case NS_ALL: break;
        case NS_ANY_BIT: fprintf(f, " if arg%u & 0x%llx", e->arg, (unsigned long long)e->mask); break;
        case NS_EQ32: fprintf(f, " if arg%u == 0x%llx", e->arg, (unsigned long long)e->values[0]); break;
        case NS_PERSONA: fprintf(f, " unless arg%u is 0 or 0xffffffff", e->arg); break;
        case NS_NOT_IN:
                fprintf(f, " unless arg%u & 0x%llx in {", e->arg, (unsigned long long)e->mask);
                for (unsigned i = 0; i < e->n_values; i++)
                        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)e->values[i]);
                fputc('}', f);
                break;
        }
        fprintf(f, ": %s [%s] %s\n", strerrorname_np(e->err), ns_group_names[e->group], e->reason);
}

/* `stockade explain --details`: the entries this line's filter holds. */
static int ns_explain(struct stk_ctx *ctx, char **ret_text)
{
        static const char *const modes[] = { "off", "proxy", "on" };
        struct stk_sc_prog p = { 0 };
        struct ns_opts o;
        size_t len = 0;
        char *text = NULL;
        FILE *f;
        int r = get_opts(ctx, &o);

        if (r >= 0)
                r = ns_compile(&o, &p, log_error, ctx);
        if (r < 0)
                return r;
        f = open_memstream(&text, &len);
        if (!f) {
                stk_sc_prog_done(&p);
                return -ENOMEM;
        }
        fprintf(f, "seccomp filter, network mode %s, %u BPF instructions; default allow; "
                "other ABIs (i386, x32): EPERM\n", modes[o.network], (unsigned)p.len);
        /* What the supervisor answers for the command (user notifications). */
        if (o.guard_unix && o.network != STK_NET_ON)
                fputs("  guard_unix: connect() answered by the supervisor (unix sockets beneath writable roots or "
                      "unix_allow; TCP only to the proxy); no unix datagram sockets\n", f);
        for (size_t i = 0; i < ns_table_len; i++)
                if ((ns_table[i].modes & NS_MODE(o.network)) &&
                    (ns_table[i].group == NS_G_NETWORK || !(o.allowed_groups & (1u << ns_table[i].group))) &&
                    !(ns_table[i].group == NS_G_IPC && o.ipc_isolated))
                        print_entry(f, &ns_table[i]);
        stk_sc_prog_done(&p);
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret_text = text;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("net_seccomp"),
        .summary = "seccomp: sockets narrowed to the network mode, kernel attack surface refused with EPERM",
        .args = ns_args,
        .covers = STK_COVER_NET_OTHER | STK_COVER_NET_TCP | STK_COVER_KERNEL | STK_COVER_IPC,
        .init = ns_init,
        .fini = ns_fini,
        .probe = ns_probe,
        .in_sandbox = ns_in_sandbox,
        .explain = ns_explain,
        .supervise_fd = ns_supervise_fd,
        .prepare = ns_prepare,
        .doctor = ns_doctor,

        .notify = ns_notify,
};
