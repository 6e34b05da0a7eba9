/* SPDX-License-Identifier: MIT */
/*
 * fs_landlock: enforce the shared settings with Landlock, in the sandboxed
 * child right before execve.  No namespaces: the command sees the real
 * filesystem, may read all of it but the hidden paths, write only beneath
 * the writable roots minus their read-only islands, reach TCP only at the
 * proxy port, and neither connect to host abstract unix sockets nor signal
 * host processes.  See stockade-fs_landlock(8).
 */
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/stk_proxy.h"
#include "fs_landlock_internal.h"

/* The host table, from init: in_sandbox and probe get only ctx. */
static const struct stk_host *host;

/* Rules planned by probe in the supervisor (warm memory, nothing confined
 * yet), applied by in_sandbox in the child.  The plan depends on the
 * settings and on two args only, so lines that agree on those share it. */
#define LL_N_PLANS 4 /* strict_hide x tmp_is_private */

struct ll_data {
        char *tmpdir;   /* per-run TMPDIR for private_tmp, or NULL */
        pid_t owner;    /* the process that made it (forked children must not remove it) */
        int tmpdir_in_plan; /* pre_exec put TMPDIR into the plan's environment */
        struct ll_rules plans[LL_N_PLANS];
        int planned[LL_N_PLANS];
};

static const struct stk_arg_spec ll_args[] = {
        { "proxy_port", STK_ARG_INT, STK_ARG_TRUSTED,
          "network proxy mode: the only TCP port connect(2) may reach (any address: Landlock matches ports only)" },
        { "strict_hide", STK_ARG_BOOL, 0,
          "hidden directories' names unlistable too, at the price of \"/\" and the other ancestors of a hidden path being unlistable" },
        { "tmp_is_private", STK_ARG_BOOL, 0,
          "a wrapper (fs_bwrap) already mounted a private /tmp: make it writable instead of a per-run TMPDIR" },
        { "log", STK_ARG_BOOL, 0, "ABI 7: have the kernel audit the command's denied accesses" },
        { "fallback", STK_ARG_BOOL, 0,
          "step aside when an earlier line (fs_bwrap) already enforces the filesystem settings" },
        { "max_abi", STK_ARG_INT, 0, "tests only: use at most this Landlock ABI" },
        { NULL, 0, 0, NULL },
};

/* Devices a command needs whatever the policy (stockade-fs_landlock(8)). */
static const struct ll_point dev_points[] = {
        { "/dev/null", LL_DEV_W },
        { "/dev/zero", LL_DEV_W },
        { "/dev/full", LL_DEV_W },
        { "/dev/tty", LL_DEV_TTY },
        { "/dev/ptmx", LL_DEV_TTY },
        { "/dev/pts", LL_DEV_TTY },
};
#define N_DEV (sizeof(dev_points) / sizeof(dev_points[0]))

static void log_adapter(void *userdata, enum stk_log_level level, const char *fmt, ...)
{
        char buf[1024];
        va_list ap;

        va_start(ap, fmt);
        (void)vsnprintf(buf, sizeof(buf), fmt, ap); /* truncation only shortens a message */
        va_end(ap);
        host->log(userdata, level, "%s", buf);
}

static size_t list_len(const char *const *l)
{
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

/* The Landlock ABI to use: the kernel's, lowered by max_abi in tests. */
static int pick_abi(struct stk_ctx *ctx, int *ret_abi)
{
        long long max = host->arg_int(ctx, "max_abi", 0);
        int abi = ll_kernel_abi();

        if (abi < 0) {
                host->log(ctx, STK_LOG_ERROR, "Landlock unavailable: landlock_create_ruleset(VERSION): %s%s",
                          strerror(-abi), abi == -EOPNOTSUPP ? " (disabled: add landlock to the lsm= boot parameter)" : "");
                return abi == -ENOSYS ? -EOPNOTSUPP : abi;
        }
        if (max < 0 || max > 1000) {
                host->log(ctx, STK_LOG_ERROR, "max_abi %lld: want 1..1000", max);
                return -EINVAL;
        }
        if (max > 0 && max < abi)
                abi = (int)max;
        *ret_abi = abi;
        return 0;
}

static int has_root(const char *const *l)
{
        for (size_t i = 0; l && l[i]; i++)
                if (strcmp(l[i], "/") == 0)
                        return 1;
        return 0;
}

/* The cover bits these settings need from this module: the core's rule
 * (core/run/coverage.c) for the bits Landlock can enforce at all. */
static uint32_t needed_covers(const struct stk_settings *s)
{
        uint32_t m = has_root(s->write) ? 0 : STK_COVER_WRITE;

        if (list_len(s->read_only))
                m |= STK_COVER_READ_ONLY;
        if (list_len(s->hide))
                m |= STK_COVER_HIDE;
        if (s->private_tmp)
                m |= STK_COVER_PRIVATE_TMP;
        if (s->network != STK_NET_ON)
                m |= STK_COVER_NET_TCP | STK_COVER_NET_ABSTRACT;
        return m;
}

static uint32_t have_covers(struct stk_ctx *ctx, int abi)
{
        uint32_t m = ll_abi_covers(abi);

        /* The per-run TMPDIR is made when first needed (ensure_tmpdir). */
        if (abi >= ll_cover_min_abi(STK_COVER_PRIVATE_TMP) &&
            (host->settings(ctx)->private_tmp || host->arg_bool(ctx, "tmp_is_private", 0)))
                m |= STK_COVER_PRIVATE_TMP;
        return m;
}

/* Fail closed: refuse if a needed bit is neither enforceable here nor
 * accepted as best_effort by the policy, naming each such setting. */
static int check_covers(struct stk_ctx *ctx, int abi, int warn, uint32_t *ret_have)
{
        const struct stk_settings *s = host->settings(ctx);
        uint32_t have = have_covers(ctx, abi);
        uint32_t missing = needed_covers(s) & ~have & ~s->best_effort;

        for (uint32_t bit = 1; bit && bit <= missing; bit <<= 1) {
                if (!(missing & bit))
                        continue;
                if (bit == STK_COVER_PRIVATE_TMP && abi >= ll_cover_min_abi(bit))
                        host->log(ctx, STK_LOG_ERROR, "cannot enforce 'private_tmp': no per-run directory "
                                  "(init did not make one); list private_tmp in best_effort to run without it");
                else
                        host->log(ctx, STK_LOG_ERROR, "cannot enforce '%s': it needs Landlock ABI %d, this kernel "
                                  "offers %d; list %s in best_effort to run without it",
                                  ll_cover_name(bit), ll_cover_min_abi(bit), abi, ll_cover_name(bit));
        }
        /* Not a setting, so not a refusal: but kill(-1, SIGKILL) would reach
         * every process of the user, so say it. */
        if (warn && !(have & STK_COVER_PROCESS) && !(s->best_effort & STK_COVER_PROCESS))
                host->log(ctx, STK_LOG_WARNING, "signals to processes outside the sandbox are not blocked: "
                          "that needs Landlock ABI %d, this kernel offers %d", ll_cover_min_abi(STK_COVER_PROCESS), abi);
        *ret_have = have;
        return missing ? -EOPNOTSUPP : 0;
}

static void add_list(struct ll_point *pts, size_t *n, const char *const *l, uint64_t access)
{
        for (size_t i = 0; l && l[i]; i++)
                pts[(*n)++] = (struct ll_point){ l[i], access };
}

/* The per-run TMPDIR for private_tmp, made when first needed: by the plan
 * of a line that enforces, or by the pre-exec line that hands it to the
 * command.  A stack whose wrapper takes effect (fs_bwrap: the default
 * profile) never makes one, where init used to make and remove it on every
 * run (a mkdir and an rmdir on the host's /tmp). */
static int ensure_tmpdir(struct stk_ctx *ctx, struct ll_data *d)
{
        int r;

        if (!d || d->tmpdir || !host->settings(ctx)->private_tmp || host->arg_bool(ctx, "tmp_is_private", 0))
                return 0;
        r = ll_tmp_create(getenv("TMPDIR"), &d->tmpdir);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "mkdtemp(/tmp/stockade-ll.XXXXXX): %s", strerror(-r));
        return r;
}

/* Settings -> planner points.  "/" readable is the base; deeper points win. */
static int make_points(struct stk_ctx *ctx, struct ll_point **ret, size_t *ret_n)
{
        const struct stk_settings *s = host->settings(ctx);
        struct ll_data *d = host->data(ctx);
        size_t n = 0, max = list_len(s->write) + list_len(s->read_only) + list_len(s->hide) + N_DEV + 3;
        uint64_t hide = host->arg_bool(ctx, "strict_hide", 0) ? LL_HIDE_STRICT : LL_HIDE;
        int r = ensure_tmpdir(ctx, d);
        struct ll_point *pts = r < 0 ? NULL : calloc(max, sizeof(*pts));

        if (r < 0)
                return r;
        if (!pts)
                return -ENOMEM;
        for (size_t i = 0; i < N_DEV; i++)
                pts[n++] = dev_points[i];
        add_list(pts, &n, s->write, LL_RW);
        add_list(pts, &n, s->read_only, LL_READ);
        add_list(pts, &n, s->hide, hide);
        if (s->private_tmp && host->arg_bool(ctx, "tmp_is_private", 0)) {
                pts[n++] = (struct ll_point){ "/tmp", LL_RW };
        } else if (s->private_tmp && d && d->tmpdir) {
                /* Host /tmp hidden like a credential: a private /tmp is empty.
                 * So is /dev/shm, the host's other temp area: its files are
                 * other processes' POSIX shared memory (shm_open), readable by
                 * their owner's every process.  A namespace wrapper gives a
                 * fresh /dev instead. */
                pts[n++] = (struct ll_point){ "/tmp", hide };
                pts[n++] = (struct ll_point){ "/dev/shm", hide };
                pts[n++] = (struct ll_point){ d->tmpdir, LL_RW };
        }
        *ret = pts;
        *ret_n = n;
        return 0;
}

/* `final`: the rules are about to be enforced, so the port must be known;
 * before that (probe) net_proxy's pre-exec line may not have published it. */
static int net_setup(struct stk_ctx *ctx, struct ll_net *ret_net, uint64_t *ret_scopes, bool final)
{
        const struct stk_settings *s = host->settings(ctx);
        int port = s->network == STK_NET_PROXY ? stk_proxy_port(host, ctx) : 0;

        *ret_net = (struct ll_net){ .handle = s->network != STK_NET_ON };
        /* Signals always; host abstract sockets unless the network is open. */
        *ret_scopes = LANDLOCK_SCOPE_SIGNAL |
                      (s->network != STK_NET_ON ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET : 0);
        if (s->network != STK_NET_PROXY)
                return 0;
        if (port < 0)
                return port;
        if (final && port == 0) {
                host->log(ctx, STK_LOG_ERROR, "network mode proxy needs the proxy's port: list net_proxy in the "
                          "pre-exec phase before this line, or set network.proxy_port");
                return -EINVAL;
        }
        ret_net->proxy_port = port;
        return 0;
}

/* The real lister, naming the directory when it cannot be listed (the
 * planner itself stays free of logging). */
static int list_dir_logged(void *userdata, const char *dir, struct ll_dirent **ret, size_t *ret_n)
{
        int r = ll_list_dir(NULL, dir, ret, ret_n);

        if (r < 0)
                host->log(userdata, STK_LOG_ERROR, "cannot list %s to carve the read-only or hidden paths beneath "
                          "it out of its siblings: %s", dir, strerror(-r));
        return r;
}

static int plan_rules(struct stk_ctx *ctx, struct ll_rules *ret)
{
        struct ll_point *pts = NULL;
        size_t n_pts = 0;
        int r = make_points(ctx, &pts, &n_pts);

        if (r < 0)
                return r;
        r = ll_plan("/", LL_READ, pts, n_pts, list_dir_logged, ctx, ret);
        free(pts);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "planning Landlock rules: %s", strerror(-r));
        return r;
}

static size_t plan_index(struct stk_ctx *ctx)
{
        return (host->arg_bool(ctx, "strict_hide", 0) ? 2 : 0) + (host->arg_bool(ctx, "tmp_is_private", 0) ? 1 : 0);
}

static struct ll_rules *rules_of(struct stk_ctx *ctx)
{
        struct ll_data *d = host->data(ctx);
        size_t i = plan_index(ctx);

        return d && d->planned[i] ? &d->plans[i] : NULL;
}

/* Plan once per run for this line's args and keep it for in_sandbox. */
static int plan_for(struct stk_ctx *ctx)
{
        struct ll_data *d = host->data(ctx);
        size_t i = plan_index(ctx);
        int r;

        if (!d || d->planned[i])
                return 0;
        r = plan_rules(ctx, &d->plans[i]);
        if (r < 0)
                return r;
        d->planned[i] = 1;
        return 0;
}

static int ll_apply(struct stk_ctx *ctx, int abi)
{
        struct ll_rules tmp = { 0 }, *rules = rules_of(ctx);
        struct ll_enforce e = {
                .abi = abi, .log = log_adapter, .log_userdata = ctx,
                .log_new_exec = host->arg_bool(ctx, "log", 0),
        };
        int r = net_setup(ctx, &e.net, &e.scopes, true);

        if (r < 0)
                return r;
        if (!rules) {
                r = plan_rules(ctx, &tmp);
                if (r < 0)
                        return r;
                rules = &tmp;
        }
        e.rules = rules;
        r = ll_enforce(&e);
        ll_rules_free(&tmp);
        return r;
}

static int ll_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct ll_data *d;

        host = h;
        if (!host->settings(ctx))
                return -EINVAL;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->owner = getpid();
        *ret_data = d;
        return 0;
}

static void ll_fini(void *data)
{
        struct ll_data *d = data;

        if (!d)
                return;
        /* Removal failing leaves a 0700 directory behind; nothing to report to. */
        if (d->tmpdir && d->owner == getpid())
                (void)ll_tmp_remove(d->tmpdir);
        for (size_t i = 0; i < LL_N_PLANS; i++)
                ll_rules_free(&d->plans[i]);
        free(d->tmpdir);
        free(d);
}

static bool enforces_here(struct stk_ctx *ctx)
{
        if (!STK_HAS(host, stk_host, line_phase) || !host->line_phase)
                return true; /* an ABI 1.0 core: the old claim */
        return host->line_phase(ctx) == STK_PHASE_IN_SANDBOX;
}

static int ll_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct ll_net net;
        uint64_t scopes;
        uint32_t have;
        int abi, r = pick_abi(ctx, &abi);

        if (r < 0)
                return r;
        r = check_covers(ctx, abi, 1, &have);
        if (r < 0)
                return r;
        r = net_setup(ctx, &net, &scopes, false);  /* a bad proxy_port fails here, before the fork */
        /* Plan ahead (before the fork, failing early) only for a line that
         * will apply the rules: a pre-exec line never does, and a fallback
         * line usually steps aside; in_sandbox plans when it must. */
        if (r >= 0 && enforces_here(ctx) && !host->arg_bool(ctx, "fallback", 0))
                r = plan_for(ctx);
        if (r < 0)
                return r;
        if (rules_of(ctx))
                host->log(ctx, STK_LOG_DEBUG, "Landlock ABI %d, %zu path rules", abi, rules_of(ctx)->n);
        /* The pre-exec line only sets TMPDIR: enforcement is the in-sandbox
         * line's, and only it may count towards coverage. */
        *ret_covers = enforces_here(ctx) ? have : 0;
        return 0;
}

/* The command finds its private /tmp through TMPDIR (supervisor side). */
static int ll_pre_exec(struct stk_ctx *ctx)
{
        struct ll_data *d = host->data(ctx);
        int r;

        r = ensure_tmpdir(ctx, d);
        if (r < 0 || !d || !d->tmpdir || host->arg_bool(ctx, "tmp_is_private", 0))
                return r;
        r = host->plan_setenv(ctx, "TMPDIR", d->tmpdir);
        if (r >= 0)
                d->tmpdir_in_plan = 1;
        /* Said as a writable bind too: a wrapper after us makes it appear
         * at its path, and net_seccomp's unix guard lets the command reach
         * the sockets it makes there (its own, as in the workspace). */
        if (r >= 0)
                r = host->plan_bind(ctx, d->tmpdir, d->tmpdir, STK_BIND_RW);
        return r;
}

/* Our own environment is the command's only in the inner helper (which ran
 * init itself: owner is us).  A child forked by the supervisor execs the
 * plan's environment, which only a pre-exec line can change. */
static int export_tmpdir(struct stk_ctx *ctx, const struct ll_data *d)
{
        if (!d || !d->tmpdir || host->arg_bool(ctx, "tmp_is_private", 0))
                return 0;
        if (getenv("TMPDIR") && strcmp(getenv("TMPDIR"), d->tmpdir) == 0)
                return 0;
        if (d->owner != getpid() && !d->tmpdir_in_plan)
                host->log(ctx, STK_LOG_WARNING, "private /tmp is %s but TMPDIR does not say so: list fs_landlock "
                          "in the pre-exec phase too (stockade-fs_landlock(8))", d->tmpdir);
        return setenv("TMPDIR", d->tmpdir, 1) < 0 ? -errno : 0;
}

/* With `fallback: true`, a line after a namespace wrapper that took effect
 * has nothing to add but a frozen workspace top level (the rule set cannot
 * let the command create names beside a protected one). */
static bool already_enforced(struct stk_ctx *ctx)
{
        const uint32_t fs = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE;

        if (!host->arg_bool(ctx, "fallback", 0))
                return false;
        if (!STK_HAS(host, stk_host, covered) || !host->covered)
                return false; /* an ABI 1.0 core cannot say: enforce */
        return (host->covered(ctx) & fs) == fs;
}

static int ll_in_sandbox(struct stk_ctx *ctx)
{
        uint32_t have;
        int abi, r;

        if (!host)
                return -EINVAL;  /* init never ran: no settings to enforce */
        if (already_enforced(ctx)) {
                host->log(ctx, STK_LOG_DEBUG, "an earlier line enforces the filesystem settings: stepping aside");
                return 0;
        }
        r = pick_abi(ctx, &abi);
        if (r < 0)
                return r;
        r = check_covers(ctx, abi, 0, &have);  /* probe already warned */
        if (r < 0)
                return r;
        r = ll_apply(ctx, abi);
        if (r < 0)
                return r;
        return export_tmpdir(ctx, host->data(ctx));
}

static void print_access(FILE *f, uint64_t m)
{
        static const char *const names[] = {
                "execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_char",
                "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym", "refer",
                "truncate", "ioctl_dev",
        };
        const char *sep = "";

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (m & (1ULL << i)) {
                        fprintf(f, "%s%s", sep, names[i]);
                        sep = ",";
                }
}

static bool is_beneath(const char *path, const char *root)
{
        size_t n = strlen(root);

        if (strcmp(root, "/") == 0)
                return true;
        return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Rights the rule set gives at `p` (rules on p and its ancestors), and the
 * rights any rule beneath p gives (what its subtree can reach). */
static void rights_at(const struct ll_rules *rules, const char *p, uint64_t *at, uint64_t *below)
{
        *at = *below = 0;
        for (size_t i = 0; i < rules->n; i++) {
                if (is_beneath(p, rules->v[i].path))
                        *at |= rules->v[i].access;
                else if (is_beneath(rules->v[i].path, p))
                        *below |= rules->v[i].access;
        }
}

/* The "paths:" block (compared with fs_bwrap's and fs_seatbelt's by
 * modules/fs_seatbelt/t/compare.sh), read back from the rule set: a path
 * is listed in its role only if the rules really give it that role. */
static void paths_block(FILE *f, const struct ll_rules *rules, const struct stk_settings *s)
{
        const uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG;
        uint64_t at, below;

        fprintf(f, "paths:\n");
        for (size_t i = 0; s->write[i]; i++) {
                rights_at(rules, s->write[i], &at, &below);
                if ((at | below) & LANDLOCK_ACCESS_FS_WRITE_FILE)
                        fprintf(f, "  write %s\n", s->write[i]);
        }
        for (size_t i = 0; s->read_only[i]; i++) {
                rights_at(rules, s->read_only[i], &at, &below);
                if (!((at | below) & w))
                        fprintf(f, "  read_only %s\n", s->read_only[i]);
        }
        for (size_t i = 0; s->hide[i]; i++) {
                rights_at(rules, s->hide[i], &at, &below);
                if (!((at | below) & LANDLOCK_ACCESS_FS_READ_FILE))
                        fprintf(f, "  hide %s\n", s->hide[i]);
        }
}

/* `stockade explain --details`: the ABI, every path rule, network, scopes. */
static int ll_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct ll_rules tmp = { 0 }, *rules;
        struct ll_net net;
        uint64_t scopes;
        size_t len = 0;
        char *text = NULL;
        int abi, r = pick_abi(ctx, &abi);
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return -ENOMEM;
        if (r >= 0)
                r = net_setup(ctx, &net, &scopes, false);
        rules = rules_of(ctx);
        if (r >= 0 && !rules && (r = plan_rules(ctx, &tmp)) >= 0)
                rules = &tmp;
        if (r >= 0) {
                fprintf(f, "Landlock ABI %d; handled: all file system rights of that ABI\n", abi);
                for (size_t i = 0; i < rules->n; i++) {
                        fprintf(f, "  allow %s: ", rules->v[i].path);
                        print_access(f, rules->v[i].access & ll_abi_fs_rights(abi));
                        fputc('\n', f);
                }
                if (!net.handle || abi < 4)
                        fprintf(f, "tcp: not restricted\n");
                else if (net.proxy_port)
                        fprintf(f, "tcp: connect only to port %d (any address), no bind\n", net.proxy_port);
                else if (host->settings(ctx)->network == STK_NET_PROXY)
                        fprintf(f, "tcp: connect only to the port net_proxy listens on (chosen at start), no bind\n");
                else
                        fprintf(f, "tcp: no bind, no connect\n");
                scopes &= ll_abi_scopes(abi);
                fprintf(f, "scoped (unreachable outside the sandbox): %s%s%s\n",
                        scopes & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET ? "abstract unix sockets" : "",
                        scopes == (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL) ? ", " : "",
                        scopes & LANDLOCK_SCOPE_SIGNAL ? "signals" : scopes ? "" : "nothing");
                paths_block(f, rules, host->settings(ctx));
        }
        ll_rules_free(&tmp);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(text);
                return r;
        }
        *ret_text = text;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("fs_landlock"),
        .summary = "Landlock: read all but hidden paths, write only writable roots, TCP only to the proxy, scoped signals and abstract sockets",
        .args = ll_args,
        .covers = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE | STK_COVER_PRIVATE_TMP |
                  STK_COVER_NET_TCP | STK_COVER_NET_ABSTRACT | STK_COVER_PROCESS,
        .init = ll_init,
        .fini = ll_fini,
        .probe = ll_probe,
        .pre_exec = ll_pre_exec,
        .in_sandbox = ll_in_sandbox,
        .explain = ll_explain,
        .doctor = ll_doctor,
};
