/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt - run the command under macOS Seatbelt with a profile made
 * from the settings (stockade-fs_seatbelt(8)).
 *
 * pre-exec phase: check /usr/bin/sandbox-exec, make the per-run TMPDIR of
 * private_tmp, build the profile and the argv (fs_seatbelt_profile.c, a pure
 * function) and hand the core the argv prefix
 *     /usr/bin/sandbox-exec -p PROFILE -D NAME=VALUE ... --
 * fini removes the TMPDIR.
 *
 * Elsewhere than macOS the module loads and its probe says it cannot run
 * (-EOPNOTSUPP), so a `required` line stops the run and a `sufficient` one
 * falls through to the next; `stockade explain --details` still shows the
 * exact profile and argv it would use, for review.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stk_proxy.h"
#include "common/stk_trust.h"
#include "fs_seatbelt_internal.h"

#ifdef __APPLE__
bool sb_on_darwin = true;
const char *sb_tmp_base = "/private/tmp";
#else
bool sb_on_darwin = false;
const char *sb_tmp_base = "/tmp";
#endif
const char *sb_sandbox_exec = SB_SANDBOX_EXEC;

/* The core's table of host functions: one per process, given to init. */
static const struct stk_host *host;

struct sb_data {
        bool wrapped;  /* a line of ours wraps this run already */
        char *tmpdir;  /* the per-run TMPDIR, once made */
        pid_t owner;   /* the process that made it: a forked child must not remove it */
};

static const struct stk_arg_spec args[] = {
        { "proxy_port", STK_ARG_INT, STK_ARG_TRUSTED,
          "network proxy mode: the loopback TCP port of the proxy, the only one the command may connect to" },
        { "mach_lookup", STK_ARG_LIST, STK_ARG_TRUSTED,
          "more Mach services the command may look up (global names, e.g. com.apple.trustd.agent)" },
        { NULL, 0, 0, NULL },
};

static int init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct sb_data *d;

        /* We call up to plan_binds, all in minor 0; check anyway. */
        if (!STK_HAS(h, stk_host, plan_binds))
                return -ENOTSUP;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->owner = getpid();
        host = h;
        *ret_data = d;
        return 0;
}

static void fini(void *data)
{
        struct sb_data *d = data;

        if (!d)
                return;
        /* Failing leaves a 0700 directory in /tmp behind; nobody to tell. */
        if (d->tmpdir && d->owner == getpid())
                (void) sb_tmp_remove(sb_tmp_base, d->tmpdir);
        free(d->tmpdir);
        free(d);
}

static int check_settings(struct stk_ctx *ctx, const struct stk_settings *s)
{
        if (!s || !STK_HAS(s, stk_settings, network) || !s->write || !s->read_only || !s->hide) {
                host->log(ctx, STK_LOG_ERROR, "the core gave no usable settings");
                return -EINVAL;
        }
        return 0;
}

/* This line's arguments into conf (tmpdir is the caller's). */
static int load_conf(struct stk_ctx *ctx, const struct stk_settings *s, struct sb_conf *conf)
{
        int port = stk_proxy_port(host, ctx);
        const char *const *mach = host->arg_list(ctx, "mach_lookup");

        if (port < 0)
                return port;
        if (s->network == STK_NET_PROXY && port == 0) {
                host->log(ctx, STK_LOG_ERROR, "network mode proxy needs the proxy's port: set network.proxy_port");
                return -EINVAL;
        }
        for (size_t i = 0; mach[i]; i++)
                if (!sb_mach_name_valid(mach[i])) {
                        host->log(ctx, STK_LOG_ERROR, "mach_lookup: \"%s\" is not a Mach service name "
                                  "(letters, digits, '.', '-', '_', '@')", mach[i]);
                        return -EINVAL;
                }
        *conf = (struct sb_conf) {
                .sandbox_exec = sb_sandbox_exec,
                .darwin = sb_on_darwin,
                .proxy_port = s->network == STK_NET_PROXY ? port : 0,
                .mach = mach,
        };
        return 0;
}

/* sb_build() says only -EINVAL: find the path that made it, for the log. */
static void log_invalid(struct stk_ctx *ctx, const struct stk_settings *s, const struct stk_bind *binds, size_t n)
{
        const char *const *lists[] = { s->write, s->read_only, s->hide };
        static const char *const names[] = { "write", "read_only", "hide" };

        for (size_t k = 0; k < 3; k++)
                for (size_t i = 0; lists[k][i]; i++)
                        if (!stk_path_valid(lists[k][i])) {
                                host->log(ctx, STK_LOG_ERROR, "settings.%s: \"%s\" is not an absolute, canonical path",
                                          names[k], lists[k][i]);
                                return;
                        }
        for (size_t i = 0; i < n; i++)
                if (!stk_path_valid(binds[i].source) || (binds[i].dest && !streq(binds[i].dest, binds[i].source))) {
                        host->log(ctx, STK_LOG_ERROR, "a planned bind of %s to %s: Seatbelt has no mount namespace "
                                  "and can show a path only under its own name", binds[i].source,
                                  binds[i].dest ? binds[i].dest : binds[i].source);
                        return;
                }
        host->log(ctx, STK_LOG_ERROR, "building the Seatbelt profile: invalid input");
}

static int build(struct stk_ctx *ctx, const struct sb_conf *conf, struct sb_profile *ret)
{
        const struct stk_settings *s = host->settings(ctx);
        size_t n = 0;
        const struct stk_bind *binds = host->plan_binds(ctx, &n);
        int r = sb_build(s, binds, binds ? n : 0, conf, ret);

        if (r == -EINVAL)
                log_invalid(ctx, s, binds, binds ? n : 0);
        else if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "building the Seatbelt profile: %s", strerror(-r));
        return r;
}

/* The binary that applies the profile: Apple's, where Apple put it, and
 * root's alone. */
int sb_check_sandbox_exec(const char **ret_why)
{
        _cleanup_close_ int fd = open(sb_sandbox_exec, O_RDONLY | O_CLOEXEC);

        if (fd < 0) {
                *ret_why = strerror(errno);
                return -errno;
        }
        /* any refusal is EPERM: there is nothing here the user could fix */
        return stk_trust_fd(fd, 0, STK_TRUST_EXECUTABLE | STK_TRUST_OWNER_ONLY, ret_why) < 0 ? -EPERM : 0;
}

static int check_binary(struct stk_ctx *ctx)
{
        const char *why;
        int r = sb_check_sandbox_exec(&why);

        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "%s: %s: not running it", sb_sandbox_exec, why);
        return r;
}

static uint32_t covers_for(const struct stk_settings *s)
{
        /* PRIVATE_TMP as fs_landlock has it: a per-run TMPDIR, the host's /tmp
         * out of reach; PROCESS: signals and process info only within the
         * sandbox, no task ports.  No KERNEL, no CAPS: Seatbelt filters
         * operations, not system calls, and root stays root. */
        uint32_t c = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE | STK_COVER_PRIVATE_TMP |
                     STK_COVER_PROCESS | STK_COVER_IPC | /* (deny default): no ipc-sysv-*, no ipc-posix-shm */
                     STK_COVER_METADATA; /* file-write* holds file-write-mode, -owner, -times, -xattr */

        /* off and proxy deny every socket but TCP to the proxy port, unix
         * sockets included; macOS has no abstract unix sockets at all. */
        if (s->network != STK_NET_ON)
                c |= STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT | STK_COVER_NET_UNIX;
        return c;
}

/* TMPDIR as explain shows it: the run's, or the mkdtemp template. */
static int tmpdir_shown(const struct sb_data *d, char **ret)
{
        if (d && d->tmpdir)
                *ret = strdup(d->tmpdir);
        else if (asprintf(ret, "%s/%s", sb_tmp_base, SB_TMP_NAME) < 0)
                *ret = NULL;
        return *ret ? 0 : -ENOMEM;
}

static int probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        const struct stk_settings *s = host->settings(ctx);
        _cleanup_free_ char *tmp = NULL;
        struct sb_profile p = { 0 };
        struct sb_conf conf;
        int r;

        if (!sb_on_darwin) {
                host->log(ctx, STK_LOG_WARNING, "Seatbelt (sandbox-exec) exists only on macOS; "
                          "use fs_bwrap or fs_landlock here");
                return -EOPNOTSUPP;
        }
        r = check_settings(ctx, s);
        if (r >= 0)
                r = load_conf(ctx, s, &conf);
        if (r >= 0)
                r = check_binary(ctx);
        if (r >= 0)
                r = tmpdir_shown(host->data(ctx), &tmp);
        if (r >= 0) {
                conf.tmpdir = tmp;
                r = build(ctx, &conf, &p); /* a bad path fails here, before anything starts */
        }
        sb_profile_done(&p);
        if (r < 0)
                return r;
        *ret_covers &= covers_for(s);
        return 0;
}

/* Once per run: lines of ours share one directory. */
static int make_tmpdir(struct stk_ctx *ctx, struct sb_data *d)
{
        int r;

        if (d->tmpdir)
                return 0;
        r = sb_tmp_create(sb_tmp_base, &d->tmpdir);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "mkdtemp(%s/%s): %s", sb_tmp_base, SB_TMP_NAME, strerror(-r));
        return r;
}

static int hand_over(struct stk_ctx *ctx, const struct sb_data *d, const struct sb_profile *p)
{
        const struct stk_settings *s = host->settings(ctx);
        int r = 0;

        if (s->private_tmp) {
                r = host->plan_setenv(ctx, "TMPDIR", d->tmpdir);
                if (r < 0)
                        host->log(ctx, STK_LOG_ERROR, "plan_setenv(TMPDIR): %s", strerror(-r));
        }
        if (r >= 0) {
                r = host->plan_wrap(ctx, (const char *const *) p->argv);
                if (r < 0)
                        host->log(ctx, STK_LOG_ERROR, "plan_wrap: %s", strerror(-r));
        }
        if (r >= 0)
                host->log(ctx, STK_LOG_DEBUG, "%s with %zu parameters; `stockade explain --details` shows the profile",
                          p->argv[0], p->n_params);
        return r;
}

static int pre_exec(struct stk_ctx *ctx)
{
        struct sb_data *d = host->data(ctx);
        const struct stk_settings *s = host->settings(ctx);
        struct sb_profile p = { 0 };
        struct sb_conf conf;
        int r = check_settings(ctx, s);

        /* A profile cannot be applied inside another: sandbox_init() refuses. */
        if (r >= 0 && d->wrapped) {
                host->log(ctx, STK_LOG_ERROR, "another fs_seatbelt line already wraps this run; "
                          "stack a second one only as the fallback of a `sufficient` line");
                r = -EEXIST;
        }
        if (r >= 0)
                r = load_conf(ctx, s, &conf);
        if (r >= 0)
                r = check_binary(ctx);
        if (r >= 0 && s->private_tmp)
                r = make_tmpdir(ctx, d);
        if (r >= 0) {
                conf.tmpdir = d->tmpdir;
                r = build(ctx, &conf, &p);
        }
        if (r >= 0)
                r = hand_over(ctx, d, &p);
        if (r >= 0)
                d->wrapped = true;
        sb_profile_done(&p);
        return r;
}

/* Works where the module cannot run (Linux): the profile is a pure
 * function of the settings, so it can be reviewed anywhere. */
static int explain(struct stk_ctx *ctx, char **ret_text)
{
        const struct stk_settings *s;
        const struct sb_data *d;
        _cleanup_free_ char *tmp = NULL;
        struct sb_profile p = { 0 };
        struct sb_conf conf;
        int r;

        if (!host)
                return -EINVAL; /* init never ran: no host to ask for the settings */
        s = host->settings(ctx);
        d = host->data(ctx);
        r = check_settings(ctx, s);
        if (r >= 0)
                r = load_conf(ctx, s, &conf);
        if (r >= 0)
                r = tmpdir_shown(d, &tmp);
        if (r >= 0) {
                conf.tmpdir = tmp;
                r = build(ctx, &conf, &p);
        }
        if (r >= 0)
                r = sb_explain_text(&p, d && d->tmpdir ? NULL : "made per run",
                                    sb_on_darwin ? NULL : "not macOS: paths as given, not mapped to /private",
                                    ret_text);
        sb_profile_done(&p);
        return r;
}

/* `stockade doctor` (ABI 1.5): the one binary this module needs. */
static int sb_doctor(struct stk_ctx *ctx, const struct stk_host *h)
{
        const char *why;

        if (sb_check_sandbox_exec(&why) < 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "seatbelt", "%s: %s", sb_sandbox_exec, why);
                h->doctor_detail(ctx, "fix", "fs_seatbelt needs macOS's own sandbox-exec, owned by root and writable by "
                                 "root alone; on other systems use the Linux modules");
                return 0;
        }
        h->doctor_check(ctx, STK_DOCTOR_OK, "seatbelt", "%s present (fs_seatbelt)", sb_sandbox_exec);
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("fs_seatbelt"),
        .summary = "macOS Seatbelt (sandbox-exec): generated profile, paths as -D parameters; reads but hidden paths, "
                   "writes in writable roots, islands, network per mode",
        .args = args,
        .covers = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE | STK_COVER_PRIVATE_TMP |
                  STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT | STK_COVER_NET_UNIX |
                  STK_COVER_PROCESS | STK_COVER_IPC | STK_COVER_METADATA,
        .init = init,
        .fini = fini,
        .probe = probe,
        .pre_exec = pre_exec,
        .explain = explain,
        .doctor = sb_doctor,
};
