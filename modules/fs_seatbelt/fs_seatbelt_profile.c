/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_profile.c - the Seatbelt (SBPL) profile and the sandbox-exec
 * command line, as a pure function of the settings, the binds earlier lines
 * planned and a few facts (struct sb_conf).  Nothing here touches the
 * filesystem, so t/test_profile.c compares every byte with golden files.
 *
 * Paths are data, never code: each one becomes a `-D NAME=VALUE` argument
 * and the profile reads it with (param "NAME").  No path is ever written
 * into the profile text, so a workspace named `x"))(allow default)(` is a
 * strange directory name and nothing more.  The names are ours
 * (WRITE_0, RO_3, ...), the only other strings in the text are constants of
 * this file and Mach service names checked by sb_mach_name_valid().
 *
 * Seatbelt applies the LAST rule that matches an operation, so the order is
 * the security argument, as in fs_bwrap's argv:
 *   1. (deny default), then every allow: processes, reads, writes, devices,
 *      system services, the network the mode allows;
 *   2. then every deny that narrows an allow: hidden paths, read-only
 *      islands, the directories holding them, the host's /tmp, the network.
 * The allows for reads and writes also leave out the hidden paths and the
 * islands themselves (require-not), so those two hold whatever the order.
 */
#include <stdio.h>

#include "fs_seatbelt_internal.h"

static const char *const role_names[SB_ROLE_MAX] = {
        [SB_ROLE_WRITE] = "write",
        [SB_ROLE_BIND] = "bind",
        [SB_ROLE_READ_ONLY] = "read_only",
        [SB_ROLE_HIDE] = "hide",
        [SB_ROLE_KEEP] = "keep",
        [SB_ROLE_TMPDIR] = "private_tmp",
        [SB_ROLE_HOST_TMP] = "host_tmp",
};

/* Parameter names: a prefix and an index, or a fixed name. */
static const char *const param_prefix[SB_ROLE_MAX] = {
        [SB_ROLE_WRITE] = "WRITE_",
        [SB_ROLE_BIND] = "BIND_",
        [SB_ROLE_READ_ONLY] = "RO_",
        [SB_ROLE_HIDE] = "HIDE_",
        [SB_ROLE_KEEP] = "KEEP_",
        [SB_ROLE_TMPDIR] = "TMPDIR",
        [SB_ROLE_HOST_TMP] = "HOST_TMP",
};

const char *sb_role_name(enum sb_role r)
{
        return r < SB_ROLE_MAX ? role_names[r] : "?";
}

struct gen {
        const struct stk_settings *s;
        const struct sb_conf *c;
        struct sb_param *p;
        size_t n, cap;
        size_t count[SB_ROLE_MAX];
        struct stk_buf t; /* the profile text */
        int err;
};

static void params_free(struct sb_param *p, size_t n)
{
        for (size_t i = 0; p && i < n; i++) {
                free(p[i].name);
                free(p[i].value);
        }
        free(p);
}

void sb_profile_done(struct sb_profile *p)
{
        if (!p)
                return;
        for (size_t i = 0; p->argv && p->argv[i]; i++)
                free(p->argv[i]);
        free(p->argv);
        params_free(p->params, p->n_params);
        free(p->text);
        *p = (struct sb_profile) { 0 };
}

static bool has(const struct gen *g, enum sb_role role, const char *value)
{
        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == role && streq(g->p[i].value, value))
                        return true;
        return false;
}

/* Add `path` (canonicalised here) under `role`, once per role. */
static int add_param(struct gen *g, enum sb_role role, const char *path)
{
        char *value = NULL, *name = NULL;
        int r = sb_canon(path, g->c->darwin, &value);

        if (r < 0)
                return r;
        if (has(g, role, value)) {
                free(value);
                return 0;
        }
        if (g->n == g->cap) {
                size_t cap = g->cap ? 2 * g->cap : 16;
                struct sb_param *p = realloc(g->p, cap * sizeof(*p));
                if (!p) {
                        free(value);
                        return -ENOMEM;
                }
                g->p = p;
                g->cap = cap;
        }
        if (role == SB_ROLE_TMPDIR || role == SB_ROLE_HOST_TMP)
                name = strdup(param_prefix[role]);
        else if (asprintf(&name, "%s%zu", param_prefix[role], g->count[role]) < 0)
                name = NULL;
        if (!name) {
                free(value);
                return -ENOMEM;
        }
        g->p[g->n++] = (struct sb_param) { .name = name, .value = value, .role = role };
        g->count[role]++;
        return 0;
}

static int add_list(struct gen *g, enum sb_role role, const char *const *list)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && list[i]; i++)
                r = add_param(g, role, list[i]);
        return r;
}

/* A writable bind of another line (a proxy's socket directory) is one more
 * writable path.  A read-only bind needs nothing: everything is readable
 * but the hidden paths, and hiding wins over binds as in fs_bwrap.  A bind
 * that shows a path under another name cannot be expressed: there is no
 * mount namespace. */
static int add_binds(struct gen *g, const struct stk_bind *binds, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                if (binds[i].dest && !streq(binds[i].dest, binds[i].source))
                        return -EINVAL;
                if (binds[i].flags & STK_BIND_RW) {
                        int r = add_param(g, SB_ROLE_BIND, binds[i].source);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static bool writable_role(enum sb_role r)
{
        return r == SB_ROLE_WRITE || r == SB_ROLE_BIND;
}

/* Renaming a directory moves everything beneath it to a new name, and
 * Seatbelt's rules are on names: `mv ws ws2` would take ws/.git out of the
 * island's rule.  So every directory from a writable root down to the
 * parent of an island or hidden path inside it is kept from being renamed
 * or removed (KEEP_n: no write on that name itself; creating and changing
 * entries inside it are checked on their own names). */
static int add_keeps(struct gen *g)
{
        size_t n = g->n;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                const char *p = g->p[i].value;
                if (g->p[i].role != SB_ROLE_READ_ONLY && g->p[i].role != SB_ROLE_HIDE)
                        continue;
                for (size_t k = 1; r >= 0 && p[k]; k++) {
                        if (p[k] != '/')
                                continue;
                        _cleanup_free_ char *a = strndup(p, k);
                        if (!a)
                                return -ENOMEM;
                        for (size_t w = 0; r >= 0 && w < n; w++)
                                if (writable_role(g->p[w].role) && stk_path_beneath(a, g->p[w].value)) {
                                        r = add_param(g, SB_ROLE_KEEP, a);
                                        break;
                                }
                }
        }
        return r;
}

static int collect(struct gen *g, const struct stk_bind *binds, size_t n_binds)
{
        const struct stk_settings *s = g->s;
        int r = add_list(g, SB_ROLE_WRITE, s->write);

        if (r >= 0)
                r = add_binds(g, binds, n_binds);
        if (r >= 0)
                r = add_list(g, SB_ROLE_READ_ONLY, s->read_only);
        if (r >= 0)
                r = add_list(g, SB_ROLE_HIDE, s->hide);
        if (r >= 0)
                r = add_keeps(g);
        if (r >= 0 && s->private_tmp) {
                r = add_param(g, SB_ROLE_TMPDIR, g->c->tmpdir);
                if (r >= 0)
                        r = add_param(g, SB_ROLE_HOST_TMP, "/tmp");
        }
        return r;
}

static int check_inputs(const struct stk_settings *s, const struct sb_conf *c)
{
        if (!s || !c || !s->write || !s->read_only || !s->hide || !stk_path_valid(c->sandbox_exec))
                return -EINVAL;
        if (s->private_tmp && !stk_path_valid(c->tmpdir))
                return -EINVAL;
        if (s->network == STK_NET_PROXY && (c->proxy_port < 1 || c->proxy_port > 65535))
                return -EINVAL;
        if (s->network != STK_NET_OFF && s->network != STK_NET_PROXY && s->network != STK_NET_ON)
                return -EINVAL;
        for (size_t i = 0; c->mach && c->mach[i]; i++)
                if (!sb_mach_name_valid(c->mach[i]))
                        return -EINVAL;
        return 0;
}

/* ---- the text ----------------------------------------------------------- */

static void say(struct gen *g, const char *s)
{
        stk_buf_adds(&g->t, s);
}

static void filter(struct gen *g, const char *indent, const char *kind, const struct sb_param *p)
{
        stk_buf_printf(&g->t, "\n%s(%s (param \"%s\"))", indent, kind, p->name);
}

static void emit_head(struct gen *g)
{
        say(g, "(version 1)\n"
            "; Generated by stockade fs_seatbelt from the policy's settings (stockade-fs_seatbelt(8)).\n"
            "; Every path is a parameter, given as -D NAME=VALUE to sandbox-exec and read\n"
            "; with (param \"NAME\"): no path is spelled in this text.\n"
            "; Seatbelt applies the last rule that matches: every deny comes after the allows.\n"
            "(deny default)\n"
            "\n"
            "; Processes: run programs and fork; signal and inspect only this sandbox's\n"
            "; processes, never the host's (no task ports either: deny default).\n"
            "(allow process-exec process-fork)\n"
            "(allow signal (target same-sandbox))\n"
            "(allow process-info* (target same-sandbox))\n");
}

/* Reads: everything but the hidden paths (and, below, the host's /tmp). */
static void emit_reads(struct gen *g)
{
        bool any = g->count[SB_ROLE_HIDE] > 0;

        say(g, "\n; Reads: the whole file system but the hidden paths (denied again at the end);\n"
            "; mapping a readable file executable is a read too (dyld, Python extensions).\n"
            "(allow file-read* file-map-executable");
        if (any)
                say(g, "\n  (require-all");
        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == SB_ROLE_HIDE)
                        stk_buf_printf(&g->t, "\n    (require-not (subpath (param \"%s\")))", g->p[i].name);
        say(g, any ? "))\n" : ")\n");
}

/* An island or hidden path that overlaps writable path `w` is left out of
 * w's rule: inside w, or holding w (then the island wins, as in fs_bwrap). */
static bool excludes(const struct sb_param *w, const struct sb_param *x)
{
        if (x->role != SB_ROLE_READ_ONLY && x->role != SB_ROLE_HIDE)
                return false;
        return stk_path_beneath(x->value, w->value) || stk_path_beneath(w->value, x->value);
}

static void emit_write_rule(struct gen *g, const struct sb_param *w)
{
        size_t n_ex = 0;

        for (size_t i = 0; i < g->n; i++)
                n_ex += excludes(w, &g->p[i]);
        say(g, "(allow file-write*");
        if (!n_ex) {
                filter(g, "  ", "subpath", w);
                say(g, ")\n");
                return;
        }
        say(g, "\n  (require-all");
        filter(g, "    ", "subpath", w);
        for (size_t i = 0; i < g->n; i++)
                if (excludes(w, &g->p[i]))
                        stk_buf_printf(&g->t, "\n    (require-not (subpath (param \"%s\")))", g->p[i].name);
        say(g, "))\n");
}

static void emit_writes(struct gen *g)
{
        say(g, "\n; Writes: beneath the writable roots (and writable binds of other lines) only,\n"
            "; minus the read-only islands and hidden paths inside them.\n");
        if (!g->count[SB_ROLE_WRITE] && !g->count[SB_ROLE_BIND])
                say(g, "; (no writable root: nothing is writable but the devices below)\n");
        for (size_t i = 0; i < g->n; i++)
                if (writable_role(g->p[i].role))
                        emit_write_rule(g, &g->p[i]);
        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == SB_ROLE_TMPDIR) {
                        say(g, "; Private /tmp: no mount namespace here to put a fresh /tmp in, so the\n"
                            "; command gets a per-run directory as TMPDIR (the host's /tmp is denied below).\n"
                            "(allow file-write*");
                        filter(g, "  ", "subpath", &g->p[i]);
                        say(g, ")\n");
                }
}

static void emit_devices(struct gen *g)
{
        say(g, "\n; Devices a shell needs: /dev/null; /dev/fd/N and /dev/stdout (a descriptor the\n"
            "; process holds already).\n"
            "(allow file-write-data\n"
            "  (literal \"/dev/null\")\n"
            "  (subpath \"/dev/fd\"))\n"
            "; Terminals: writes and ioctls (tcsetattr, TIOCGWINSZ) on the one it was given,\n"
            "; and openpty() for tools that run others on a pseudo-terminal (script, expect).\n"
            "(allow pseudo-tty)\n"
            "(allow file-write-data file-ioctl\n"
            "  (literal \"/dev/tty\")\n"
            "  (literal \"/dev/ptmx\")\n"
            "  (regex #\"^/dev/ttys[0-9]+$\"))\n");
}

static void emit_sysctls(struct gen *g)
{
        say(g, "\n; sysctl reads runtimes make when they start: CPU count and features, page size\n"
            "; (hw.*, machdep.cpu.*), OS name and version (uname, Go, Python), limits, and a\n"
            "; process's own kinfo_proc (the debugger check of test runners).  Not the\n"
            "; process table (kern.proc.all) nor other processes' arguments (kern.procargs2).\n"
            "(allow sysctl-read\n"
            "  (sysctl-name-prefix \"hw.\")\n"
            "  (sysctl-name-prefix \"machdep.cpu.\")\n"
            "  (sysctl-name \"kern.ostype\")\n"
            "  (sysctl-name \"kern.osrelease\")\n"
            "  (sysctl-name \"kern.osversion\")\n"
            "  (sysctl-name \"kern.osproductversion\")\n"
            "  (sysctl-name \"kern.osvariant_status\")\n"
            "  (sysctl-name \"kern.version\")\n"
            "  (sysctl-name \"kern.hostname\")\n"
            "  (sysctl-name \"kern.argmax\")\n"
            "  (sysctl-name \"kern.maxfilesperproc\")\n"
            "  (sysctl-name \"kern.maxproc\")\n"
            "  (sysctl-name \"kern.usrstack64\")\n"
            "  (sysctl-name \"kern.secure_kernel\")\n"
            "  (sysctl-name-prefix \"kern.proc.pid.\"))\n"
            "; The Java launcher reads kern.grade_cputype through a sysctl \"write\" (it passes a buffer).\n"
            "(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n"
            "; Host statistics: libuv's os.cpus() (Node, so jest and webpack) calls host_processor_info().\n"
            "(allow mach-host*)\n");
}

static void emit_services(struct gen *g)
{
        say(g, "\n; Mach services every mode needs, each for a reason (more: the mach_lookup argument).\n"
            "(allow mach-lookup\n"
            "  ; user and group names: getpwuid() for whoami, id, git, ssh, the shell prompt\n"
            "  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
            "  ; group membership: getgrouplist(), id\n"
            "  (global-name \"com.apple.system.opendirectoryd.membership\")\n"
            "  ; the per-user temporary and cache directories: confstr(_CS_DARWIN_USER_TEMP_DIR)\n"
            "  (global-name \"com.apple.bsd.dirhelper\"))\n"
            "; POSIX semaphores: the locks of Python's multiprocessing.\n"
            "(allow ipc-posix-sem)\n"
            "; CFPreferences reads of Apple's command-line tools (xcrun, defaults read).\n"
            "(allow user-preference-read)\n");
        if (g->c->mach && g->c->mach[0]) {
                say(g, "; Added by the policy (mach_lookup).\n(allow mach-lookup");
                for (size_t i = 0; g->c->mach[i]; i++)
                        stk_buf_printf(&g->t, "\n  (global-name \"%s\")", g->c->mach[i]);
                say(g, ")\n");
        }
}

static void emit_network_allow(struct gen *g)
{
        if (g->s->network == STK_NET_PROXY) {
                /* The port is an int checked in check_inputs, printed with %d. */
                stk_buf_printf(&g->t, "\n; Network through the proxy: TCP to the loopback proxy port only; the proxy\n"
                              "; decides per destination.  No other socket: no UDP, no unix socket.\n"
                              "(allow network-outbound (remote tcp \"localhost:%d\"))\n", g->c->proxy_port);
        } else if (g->s->network == STK_NET_ON) {
                say(g, "\n; Network on: any socket, and what name resolution and TLS need.\n"
                    "(allow network*)\n"
                    "; AF_SYSTEM and routing sockets: interface lists (getifaddrs), reachability\n"
                    "(allow system-socket)\n"
                    "(allow mach-lookup\n"
                    "  ; DNS resolver configuration\n"
                    "  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")\n"
                    "  (global-name \"com.apple.SystemConfiguration.configd\")\n"
                    "  (global-name \"com.apple.networkd\")\n"
                    "  ; certificate checks of Security.framework (system curl, git over https)\n"
                    "  (global-name \"com.apple.trustd.agent\")\n"
                    "  (global-name \"com.apple.SecurityServer\")\n"
                    "  (global-name \"com.apple.ocspd\"))\n");
        }
}

/* `(deny OPS (KIND (param "X")) ...)` over every param of `role`. */
static void deny_role(struct gen *g, const char *ops, const char *kind, enum sb_role role)
{
        if (!g->count[role])
                return;
        stk_buf_printf(&g->t, "(deny %s", ops);
        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == role)
                        filter(g, "  ", kind, &g->p[i]);
        say(g, ")\n");
}

/* The host's /tmp, but for the per-run TMPDIR and writable paths in it. */
static void deny_host_tmp(struct gen *g)
{
        const struct sb_param *host_tmp = NULL;

        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == SB_ROLE_HOST_TMP)
                        host_tmp = &g->p[i];
        if (!host_tmp)
                return;
        say(g, "; Private /tmp: nothing in the host's /tmp is readable or writable, but the\n"
            "; per-run TMPDIR and writable roots inside it.  /tmp itself stays readable\n"
            "; (names only): realpath() of TMPDIR stats every component.\n"
            "(deny file-read* file-write*\n  (require-all");
        filter(g, "    ", "subpath", host_tmp);
        stk_buf_printf(&g->t, "\n    (require-not (literal (param \"%s\")))", host_tmp->name);
        for (size_t i = 0; i < g->n; i++)
                if (g->p[i].role == SB_ROLE_TMPDIR ||
                    (writable_role(g->p[i].role) && sb_strictly_beneath(g->p[i].value, host_tmp->value)))
                        stk_buf_printf(&g->t, "\n    (require-not (subpath (param \"%s\")))", g->p[i].name);
        say(g, "))\n");
}

static void emit_denies(struct gen *g)
{
        if (g->count[SB_ROLE_HIDE] || g->count[SB_ROLE_READ_ONLY] || g->count[SB_ROLE_KEEP] ||
            g->count[SB_ROLE_HOST_TMP] || g->s->network == STK_NET_OFF)
                say(g, "\n; ---- Denies: after every allow, so they win. ----\n");
        if (g->count[SB_ROLE_HIDE])
                say(g, "; Hidden paths: not read, written, hard-linked or cloned to another name.\n");
        deny_role(g, "file-read* file-write* file-link file-clone", "subpath", SB_ROLE_HIDE);
        if (g->count[SB_ROLE_READ_ONLY])
                say(g, "; Read-only islands, which may not exist yet: not written or created, and not\n"
                    "; hard-linked (a second name outside the island would be writable).\n");
        deny_role(g, "file-write* file-link", "subpath", SB_ROLE_READ_ONLY);
        if (g->count[SB_ROLE_KEEP])
                say(g, "; The directories holding an island or a hidden path inside a writable root:\n"
                    "; renaming one would carry it out from under its rule.\n");
        deny_role(g, "file-write*", "literal", SB_ROLE_KEEP);
        deny_host_tmp(g);
        if (g->s->network == STK_NET_OFF)
                say(g, "; Network off: no socket connects, listens or binds: IP and unix sockets alike.\n"
                    "(deny network*)\n");
}

/* ---- the argv ----------------------------------------------------------- */

static int build_argv(const struct gen *g, char ***ret)
{
        size_t n = 4 + 2 * g->n, k = 0;
        char **v = calloc(n + 1, sizeof(char *));
        bool oom = !v;

        if (oom)
                return -ENOMEM;
        v[k++] = strdup(g->c->sandbox_exec);
        v[k++] = strdup("-p");
        v[k++] = strdup(g->t.s);
        for (size_t i = 0; i < g->n; i++) {
                v[k++] = strdup("-D");
                if (asprintf(&v[k++], "%s=%s", g->p[i].name, g->p[i].value) < 0)
                        v[k - 1] = NULL;
        }
        v[k++] = strdup("--");
        for (size_t i = 0; i < k; i++)
                oom |= !v[i];
        if (oom) {
                for (size_t i = 0; i < k; i++)
                        free(v[i]);
                free(v);
                return -ENOMEM;
        }
        *ret = v;
        return 0;
}

int sb_build(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
             const struct sb_conf *conf, struct sb_profile *ret)
{
        struct gen g = { .s = s, .c = conf };
        char **argv = NULL;
        int r = check_inputs(s, conf);

        if (r >= 0)
                r = collect(&g, binds, binds ? n_binds : 0);
        if (r >= 0) {
                emit_head(&g);
                emit_reads(&g);
                emit_writes(&g);
                emit_devices(&g);
                emit_sysctls(&g);
                emit_services(&g);
                emit_network_allow(&g);
                emit_denies(&g);
                r = g.t.err;
        }
        if (r >= 0)
                r = build_argv(&g, &argv);
        if (r < 0) {
                params_free(g.p, g.n);
                free(g.t.s);
                return r;
        }
        *ret = (struct sb_profile) { .text = g.t.s, .params = g.p, .n_params = g.n, .argv = argv };
        return 0;
}
