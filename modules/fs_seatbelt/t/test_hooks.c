/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt's hooks through a fake host table, on Linux: what probe and
 * explain do here, and, with the test knobs turned (sb_on_darwin, a
 * stand-in for sandbox-exec, a temp dir for TMPDIR), the macOS path of
 * probe, pre_exec and fini.  Nothing is ever executed.  Also the per-run
 * TMPDIR's removal, which must not follow what the command left in it.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_seatbelt_internal.h"
#include "unit.h"

extern const struct stk_module stockade_module;

static char tmp[256];

static void make_tmp(void)
{
        snprintf(tmp, sizeof(tmp), "/tmp/fs_seatbelt-unit.XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
}

static void rm_tmp(void)
{
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        CU_ASSERT_EQUAL(system(cmd), 0);
}

static char *at(const char *rel)
{
        static char buf[4][512];
        static int k;

        k = (k + 1) % 4;
        snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, rel);
        return buf[k];
}

static bool exists(const char *p)
{
        struct stat st;
        return lstat(p, &st) == 0;
}

static void write_file(const char *p, const char *text, mode_t mode)
{
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

        CU_ASSERT_TRUE_FATAL(fd >= 0);
        CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        CU_ASSERT_EQUAL(fchmod(fd, mode), 0);
        close(fd);
}

/* ---- the fake host ------------------------------------------------------- */

static struct {
        struct stk_settings s;
        void *data;
        long long proxy_port;
        const char *const *mach;
        char **wrap;
        int n_wrap;
        char tmpdir_env[512];
        char log[8192];
} F;

static void __attribute__((format(printf, 3, 4))) f_log(struct stk_ctx *c, enum stk_log_level l, const char *fmt, ...)
{
        size_t n = strlen(F.log);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(F.log + n, sizeof(F.log) - n, fmt, ap);
        va_end(ap);
        n = strlen(F.log);
        snprintf(F.log + n, sizeof(F.log) - n, "\n");
}
static const char *const none[] = { NULL };
static const char *const *f_list(struct stk_ctx *c, const char *n)
{
        return streq(n, "mach_lookup") && F.mach ? F.mach : none;
}
static long long f_int(struct stk_ctx *c, const char *n, long long dflt)
{
        return streq(n, "proxy_port") && F.proxy_port ? F.proxy_port : dflt;
}
static const struct stk_settings *f_settings(struct stk_ctx *c) { return &F.s; }
static void *f_data(struct stk_ctx *c) { return F.data; }
static const struct stk_bind *f_binds(struct stk_ctx *c, size_t *n) { *n = 0; return NULL; }
static int f_setenv(struct stk_ctx *c, const char *name, const char *value)
{
        if (streq(name, "TMPDIR"))
                snprintf(F.tmpdir_env, sizeof(F.tmpdir_env), "%s", value);
        return 0;
}
static int f_wrap(struct stk_ctx *c, const char *const *prefix)
{
        size_t n = 0;

        while (prefix[n])
                n++;
        F.wrap = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; F.wrap && i < n; i++)
                F.wrap[i] = strdup(prefix[i]);
        F.n_wrap++;
        return 0;
}

static const struct stk_host fake_host = {
        .size = sizeof(struct stk_host), .abi_minor = STK_ABI_MINOR, .log = f_log,
        .arg_list = f_list, .arg_int = f_int, .settings = f_settings, .data = f_data,
        .plan_binds = f_binds, .plan_setenv = f_setenv, .plan_wrap = f_wrap,
};

static const char *const W[] = { "/home/u/ws", NULL };
static const char *const RO[] = { "/home/u/ws/.git", NULL };
static const char *const HIDE[] = { "/home/u/.ssh", NULL };

static const char *saved_exec, *saved_base;
static bool saved_darwin;

static void fake_setup(void)
{
        memset(&F, 0, sizeof(F));
        F.s = (struct stk_settings) {
                .size = sizeof(struct stk_settings), .profile = "t", .workspace = W[0], .write = W,
                .read_only = RO, .hide = HIDE, .private_tmp = 1, .network = STK_NET_OFF,
                .net_allow = none, .net_deny = none, .home = "/home/u",
        };
        saved_exec = sb_sandbox_exec;
        saved_base = sb_tmp_base;
        saved_darwin = sb_on_darwin;
        CU_ASSERT_EQUAL_FATAL(stockade_module.init(NULL, &fake_host, &F.data), 0);
}

static void fake_done(void)
{
        stockade_module.fini(F.data);
        for (size_t i = 0; F.wrap && F.wrap[i]; i++)
                free(F.wrap[i]);
        free(F.wrap);
        sb_sandbox_exec = saved_exec;
        sb_tmp_base = saved_base;
        sb_on_darwin = saved_darwin;
}

/* As on macOS: a root-owned stand-in for sandbox-exec (never run; /bin/sh
 * is on both systems), TMPDIR in tmp. */
static void pretend_darwin(void)
{
        make_tmp();
        sb_on_darwin = true;
        sb_sandbox_exec = "/bin/sh";
        sb_tmp_base = tmp;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_descriptor(void)
{
        CU_ASSERT_EQUAL(stockade_module.magic, STK_MODULE_MAGIC);
        CU_ASSERT_STRING_EQUAL(stockade_module.name, "fs_seatbelt");
        CU_ASSERT_TRUE(stockade_module.size >= offsetof(struct stk_module, explain) + sizeof(void *));
        CU_ASSERT_PTR_NOT_NULL(stockade_module.explain);
        CU_ASSERT_PTR_NULL(stockade_module.in_sandbox); /* nothing runs in the child */
        CU_ASSERT_FALSE(stockade_module.covers & (STK_COVER_KERNEL | STK_COVER_CAPS));
}

static void test_init_checks_host_size(void)
{
        struct stk_host small = fake_host;
        void *d = NULL;

        small.size = offsetof(struct stk_host, plan_binds);
        CU_ASSERT_EQUAL(stockade_module.init(NULL, &small, &d), -ENOTSUP);
        CU_ASSERT_PTR_NULL(d);
}

/* Linux: refuse, say why and what to use instead. */
static void test_probe_elsewhere(void)
{
        uint32_t covers = stockade_module.covers;

        fake_setup();
        sb_on_darwin = false;
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "Seatbelt (sandbox-exec) exists only on macOS; use fs_bwrap or fs_landlock here"));
        fake_done();
}

/* explain works where probe failed: the review the issue asks for. */
static void test_explain_elsewhere(void)
{
        char *text = NULL, want[300];

        fake_setup();
        sb_on_darwin = false;
        CU_ASSERT_EQUAL_FATAL(stockade_module.explain(NULL, &text), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\npaths:\n  write /home/u/ws\n  read_only /home/u/ws/.git\n"
                                            "  hide /home/u/.ssh\n  keep /home/u/ws\n"));
        snprintf(want, sizeof(want), "  private_tmp %s/stockade-sb.XXXXXX (made per run)\n", sb_tmp_base);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nargv (PROFILE is the text below; the command follows the \"--\"):\n"
                                            "  /usr/bin/sandbox-exec\n  -p \"$PROFILE\"\n  -D WRITE_0=/home/u/ws\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "  -D HOST_TMP=/tmp\n  --\nPROFILE:\n(version 1)\n")); /* not mapped */
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "not macOS"));
        free(text);
        fake_done();
}

static void test_explain_bad_args(void)
{
        static const char *const bad[] = { "ok.name", "x\"(allow default)", NULL };
        char *text = NULL;

        fake_setup();
        F.s.network = STK_NET_PROXY;
        CU_ASSERT_EQUAL(stockade_module.explain(NULL, &text), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "proxy_port"));
        F.proxy_port = 3128;
        F.mach = bad;
        CU_ASSERT_EQUAL(stockade_module.explain(NULL, &text), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "mach_lookup"));
        CU_ASSERT_PTR_NULL(text);
        fake_done();
}

static void test_explain_names_bad_path(void)
{
        static const char *const bad[] = { "/home/u/ws/../x", NULL };
        char *text = NULL;

        fake_setup();
        F.s.hide = bad;
        CU_ASSERT_EQUAL(stockade_module.explain(NULL, &text), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "settings.hide: \"/home/u/ws/../x\" is not an absolute, canonical path"));
        fake_done();
}

/* The macOS path: probe, then pre_exec wraps, sets TMPDIR, makes it; fini removes it. */
static void test_pre_exec_as_on_darwin(void)
{
        uint32_t covers = stockade_module.covers;
        struct stat st;

        fake_setup();
        pretend_darwin();
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), 0);
        CU_ASSERT_EQUAL(covers, stockade_module.covers);
        CU_ASSERT_EQUAL(stockade_module.pre_exec(NULL), 0);
        CU_ASSERT_EQUAL_FATAL(F.n_wrap, 1);
        CU_ASSERT_STRING_EQUAL(F.wrap[0], "/bin/sh");
        CU_ASSERT_STRING_EQUAL(F.wrap[1], "-p");
        CU_ASSERT_TRUE(strncmp(F.wrap[2], "(version 1)\n", 12) == 0);
        CU_ASSERT_STRING_EQUAL(F.wrap[4], "WRITE_0=/home/u/ws");
        CU_ASSERT_TRUE(strncmp(F.tmpdir_env, tmp, strlen(tmp)) == 0);
        CU_ASSERT_TRUE(stat(F.tmpdir_env, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700);
        CU_ASSERT_EQUAL(stockade_module.pre_exec(NULL), -EEXIST); /* no sandbox in a sandbox */
        {
                char left[600];
                snprintf(left, sizeof(left), "%s/left-behind", F.tmpdir_env);
                write_file(left, "x", 0644);
        }
        fake_done();
        CU_ASSERT_FALSE(exists(F.tmpdir_env));
        rm_tmp();
}

static void test_network_on_covers_less(void)
{
        uint32_t covers = stockade_module.covers;

        fake_setup();
        pretend_darwin();
        F.s.network = STK_NET_ON;
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), 0);
        CU_ASSERT_FALSE(covers & (STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_UNIX));
        CU_ASSERT_TRUE(covers & STK_COVER_WRITE);
        fake_done();
        rm_tmp();
}

static void test_probe_checks_binary(void)
{
        uint32_t covers = stockade_module.covers;

        fake_setup();
        pretend_darwin();
        sb_sandbox_exec = at("missing");
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -ENOENT);
        write_file(at("gw"), "#!/bin/sh\n", 0775);
        sb_sandbox_exec = at("gw"); /* group-writable (and, unless we are root, not root's) */
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EPERM);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "not running it"));
        sb_sandbox_exec = tmp; /* a directory */
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EPERM);
        fake_done();
        rm_tmp();
}

/* ---- the per-run TMPDIR --------------------------------------------------- */

static void test_tmp_remove_does_not_follow(void)
{
        char *dir = NULL, link_path[600], deep[600];

        make_tmp();
        write_file(at("outside"), "keep me", 0644);
        CU_ASSERT_EQUAL_FATAL(sb_tmp_create(tmp, &dir), 0);
        snprintf(link_path, sizeof(link_path), "%s/link", dir);
        CU_ASSERT_EQUAL(symlink(tmp, link_path), 0); /* the command points at the host */
        snprintf(deep, sizeof(deep), "%s/a", dir);
        CU_ASSERT_EQUAL(mkdir(deep, 0700), 0);
        snprintf(deep, sizeof(deep), "%s/a/b", dir);
        CU_ASSERT_EQUAL(mkdir(deep, 0000), 0); /* unreadable, still removable by its parent */
        CU_ASSERT_EQUAL(sb_tmp_remove(tmp, dir), 0);
        CU_ASSERT_FALSE(exists(dir));
        CU_ASSERT_TRUE(exists(at("outside")));
        free(dir);
        rm_tmp();
}

static void test_tmp_remove_only_ours(void)
{
        make_tmp();
        CU_ASSERT_EQUAL(mkdir(at("precious"), 0700), 0);
        CU_ASSERT_EQUAL(sb_tmp_remove(tmp, at("precious")), -EINVAL);
        CU_ASSERT_EQUAL(sb_tmp_remove(tmp, tmp), -EINVAL);
        CU_ASSERT_EQUAL(sb_tmp_remove(tmp, at("stockade-sb.123456/x")), -EINVAL);
        CU_ASSERT_EQUAL(sb_tmp_remove(tmp, at("stockade-sb.1234567")), -EINVAL);
        CU_ASSERT_EQUAL(sb_tmp_remove("/nonexistent", "/nonexistent/stockade-sb.123456"), -ENOENT);
        CU_ASSERT_TRUE(exists(at("precious")));
        rm_tmp();
}

UNIT_SUITE(fs_seatbelt_hooks,
           UNIT_TEST(test_descriptor),
           UNIT_TEST(test_init_checks_host_size),
           UNIT_TEST(test_probe_elsewhere),
           UNIT_TEST(test_explain_elsewhere),
           UNIT_TEST(test_explain_bad_args),
           UNIT_TEST(test_explain_names_bad_path),
           UNIT_TEST(test_pre_exec_as_on_darwin),
           UNIT_TEST(test_network_on_covers_less),
           UNIT_TEST(test_probe_checks_binary),
           UNIT_TEST(test_tmp_remove_does_not_follow),
           UNIT_TEST(test_tmp_remove_only_ours));
