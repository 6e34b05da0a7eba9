/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap unit tests: the argv builder (a pure function, fed a fake
 * filesystem), argument checks, the mount-point files and their cleanup on a
 * real temp dir, hashing, and the hooks through a fake host table.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "fs_bwrap_internal.h"
#include "unit.h"

extern const struct stk_module stockade_module;

/* ---- a fake filesystem for the builder -------------------------------- */

struct fake_path { const char *path; int kind; };

static int fake_kind(void *userdata, const char *path)
{
        for (const struct fake_path *f = userdata; f && f->path; f++)
                if (streq(f->path, path))
                        return f->kind;
        return FS_BWRAP_MISSING;
}

static const char *const none[] = { NULL };

static struct stk_settings settings(const char *const *write, const char *const *ro, const char *const *hide,
                                    int private_tmp, enum stk_network net)
{
        return (struct stk_settings) {
                .size = sizeof(struct stk_settings), .profile = "test", .workspace = "/w",
                .write = write ? write : none, .read_only = ro ? ro : none, .hide = hide ? hide : none,
                .private_tmp = private_tmp, .network = net, .net_allow = none, .net_deny = none,
        };
}

static struct fs_bwrap_argv build_full(const struct stk_settings *s, const struct stk_bind *binds, size_t n,
                                       const struct fake_path *fs, bool host_proc, int want_r)
{
        struct fs_bwrap_conf conf = {
                .bwrap = "/usr/bin/bwrap", .host_proc = host_proc,
                .void_hidden = "/run/v/hidden", .void_dir = "/run/v/dir",
                .kind = fake_kind, .userdata = (void *) fs,
        };
        struct fs_bwrap_argv a = { 0 };
        int r = fs_bwrap_build(s, binds, n, &conf, &a);

        CU_ASSERT_EQUAL(r, want_r);
        if (r >= 0) {
                CU_ASSERT_PTR_NOT_NULL(a.argv);
                CU_ASSERT_PTR_NOT_NULL(a.mountpoints);
        }
        return a;
}

static struct fs_bwrap_argv build(const struct stk_settings *s, const struct fake_path *fs)
{
        return build_full(s, NULL, 0, fs, false, 0);
}

/* Index of the first word `a`, followed by b and c when given; -1 if none. */
static int find(char **v, const char *a, const char *b, const char *c)
{
        for (int i = 0; v && v[i]; i++)
                if (streq(v[i], a) && (!b || (v[i + 1] && streq(v[i + 1], b))) &&
                    (!c || (v[i + 1] && v[i + 2] && streq(v[i + 2], c))))
                        return i;
        return -1;
}

static size_t count(char **v)
{
        size_t n = 0;
        while (v && v[n])
                n++;
        return n;
}

static bool has(char **v, const char *s)
{
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}

/* ---- argv: shape ---------------------------------------------------------- */

static void test_head_and_tail(void)
{
        const char *const w[] = { "/w", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, NULL, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);
        size_t n = count(a.argv);

        CU_ASSERT_STRING_EQUAL(a.argv[0], "/usr/bin/bwrap");
        CU_ASSERT_STRING_EQUAL(a.argv[n - 1], "--");
        for (const char *const *f = (const char *const[]) { "--die-with-parent", "--new-session", "--unshare-user",
                                                            "--disable-userns", "--unshare-pid", "--unshare-ipc",
                                                            "--unshare-uts", "--unshare-cgroup-try", "--unshare-net", NULL };
             *f; f++)
                CU_ASSERT_TRUE(has(a.argv, *f));
        CU_ASSERT_TRUE(find(a.argv, "--cap-drop", "ALL", NULL) > 0);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/", "/") > 0);
        CU_ASSERT_TRUE(find(a.argv, "--dev", "/dev", NULL) > find(a.argv, "--ro-bind", "/", "/"));
        CU_ASSERT_TRUE(find(a.argv, "--proc", "/proc", NULL) > find(a.argv, "--ro-bind", "/", "/"));
        /* /proc read-only at once: as root its sysctls are host root's (issue 21) */
        CU_ASSERT_EQUAL(find(a.argv, "--remount-ro", "/proc", NULL), find(a.argv, "--proc", "/proc", NULL) + 2);
        /* the namespaces come before any mount */
        CU_ASSERT_TRUE(find(a.argv, "--unshare-net", NULL, NULL) < find(a.argv, "--ro-bind", "/", "/"));
        CU_ASSERT_EQUAL(count(a.mountpoints), 0);
        fs_bwrap_argv_done(&a);
}

static void test_tmpfs_before_workspace_in_tmp(void)
{
        const char *const w[] = { "/tmp/ws", NULL };
        const char *const ro[] = { "/tmp/ws/.git", NULL };
        const struct fake_path fs[] = { { "/tmp/ws", FS_BWRAP_DIR }, { "/tmp/ws/.git", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);
        int tmp = find(a.argv, "--tmpfs", "/tmp", NULL), bind = find(a.argv, "--bind", "/tmp/ws", "/tmp/ws");

        CU_ASSERT_TRUE(tmp > 0);
        CU_ASSERT_TRUE(bind > tmp);
        /* the island inside it is visible again, so it is bound */
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/tmp/ws/.git", "/tmp/ws/.git") > bind);
        fs_bwrap_argv_done(&a);
}

static void test_private_tmp_replaces_tmp_root(void)
{
        const char *const w[] = { "/tmp", "/w", NULL };
        const char *const hide[] = { "/tmp/secret", NULL };
        const struct fake_path fs[] = { { "/tmp", FS_BWRAP_DIR }, { "/w", FS_BWRAP_DIR },
                                        { "/tmp/secret", FS_BWRAP_OTHER }, { 0 } };
        struct stk_settings s = settings(w, NULL, hide, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);

        CU_ASSERT_EQUAL(find(a.argv, "--bind", "/tmp", "/tmp"), -1);
        CU_ASSERT_TRUE(find(a.argv, "--tmpfs", "/tmp", NULL) > 0);
        /* the host's /tmp is not in the sandbox: nothing in it to hide */
        CU_ASSERT_FALSE(has(a.argv, "/tmp/secret"));
        fs_bwrap_argv_done(&a);

        s.private_tmp = 0; /* without a private /tmp the host's is bound and its secret hidden */
        a = build(&s, fs);
        CU_ASSERT_TRUE(find(a.argv, "--bind", "/tmp", "/tmp") > 0);
        CU_ASSERT_EQUAL(find(a.argv, "--tmpfs", "/tmp", NULL), -1);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/hidden", "/tmp/secret") > 0);
        fs_bwrap_argv_done(&a);
}

static void test_islands_after_writable(void)
{
        const char *const w[] = { "/w/sub", "/w", "/x", NULL };
        const char *const ro[] = { "/w/.git", "/x/.vscode", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/w/sub", FS_BWRAP_DIR }, { "/x", FS_BWRAP_DIR },
                                        { "/w/.git", FS_BWRAP_DIR }, { "/x/.vscode", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, NULL, 0, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);
        int bw = find(a.argv, "--bind", "/w", "/w"), bsub = find(a.argv, "--bind", "/w/sub", "/w/sub");
        int bx = find(a.argv, "--bind", "/x", "/x");
        int git = find(a.argv, "--ro-bind", "/w/.git", "/w/.git");
        int vs = find(a.argv, "--ro-bind", "/x/.vscode", "/x/.vscode");

        CU_ASSERT_TRUE(bw > 0 && bsub > 0 && bx > 0);
        CU_ASSERT_TRUE(bw < bsub); /* parents first, or the parent covers the child */
        CU_ASSERT_TRUE(git > bw && git > bsub && git > bx);
        CU_ASSERT_TRUE(vs > bw && vs > bsub && vs > bx);
        fs_bwrap_argv_done(&a);
}

static void test_root_writable(void)
{
        const char *const w[] = { "/", NULL };
        const char *const hide[] = { "/h/.ssh", NULL };
        const struct fake_path fs[] = { { "/", FS_BWRAP_DIR }, { "/h/.ssh", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, NULL, hide, 1, STK_NET_ON);
        struct fs_bwrap_argv a = build(&s, fs);
        int root = find(a.argv, "--bind", "/", "/");

        CU_ASSERT_TRUE(root > 0);
        CU_ASSERT_EQUAL(find(a.argv, "--ro-bind", "/", "/"), -1);
        /* /dev, /proc and the private /tmp go on top of the writable root */
        CU_ASSERT_TRUE(find(a.argv, "--dev", "/dev", NULL) > root);
        CU_ASSERT_TRUE(find(a.argv, "--proc", "/proc", NULL) > root);
        CU_ASSERT_TRUE(find(a.argv, "--tmpfs", "/tmp", NULL) > root);
        CU_ASSERT_TRUE(find(a.argv, "--tmpfs", "/h/.ssh", NULL) > root);
        CU_ASSERT_FALSE(has(a.argv, "--unshare-net"));
        fs_bwrap_argv_done(&a);
}

/* ---- argv: hidden and protected paths ----------------------------------- */

static void test_hide_kinds(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const hide[] = { "/h/.ssh", "/h/.netrc", "/h/.aws", "/w/.npmrc", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/h/.ssh", FS_BWRAP_DIR },
                                        { "/h/.netrc", FS_BWRAP_OTHER }, { 0 } };
        struct stk_settings s = settings(w, NULL, hide, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);
        int dir = find(a.argv, "--perms", "0000", "--tmpfs");

        /* a directory: unreadable empty tmpfs, then read-only so no chmod */
        CU_ASSERT_TRUE(dir > 0);
        CU_ASSERT_STRING_EQUAL(a.argv[dir + 3], "/h/.ssh");
        CU_ASSERT_TRUE(find(a.argv, "--remount-ro", "/h/.ssh", NULL) == dir + 4);
        /* a file: the 0000 void file over it */
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/hidden", "/h/.netrc") > 0);
        /* missing outside every writable root: nothing to hide, nothing can create it */
        CU_ASSERT_FALSE(has(a.argv, "/h/.aws"));
        /* missing inside a writable root: masked, and its mount point made first */
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/dir", "/w/.npmrc") > find(a.argv, "--bind", "/w", "/w"));
        CU_ASSERT_EQUAL(count(a.mountpoints), 1);
        CU_ASSERT_STRING_EQUAL(a.mountpoints[0], "/w/.npmrc");
        fs_bwrap_argv_done(&a);
}

static void test_missing_protected(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.git", "/w/.git/hooks/pre-commit", "/w/.gitmodules", "/w/.vscode",
                                   "/etc/nothing", "/w/.cfg/deep/x", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/w/.git", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);

        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/w/.git", "/w/.git") > 0);
        /* inside the read-only .git: covered, no mount point inside it */
        CU_ASSERT_FALSE(has(a.argv, "/w/.git/hooks/pre-commit"));
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/dir", "/w/.gitmodules") > 0);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/dir", "/w/.vscode") > 0);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/dir", "/w/.cfg/deep/x") > 0);
        /* read-only already (outside every writable root): left alone */
        CU_ASSERT_FALSE(has(a.argv, "/etc/nothing"));
        CU_ASSERT_EQUAL(count(a.mountpoints), 3);
        CU_ASSERT_TRUE(has(a.mountpoints, "/w/.gitmodules") && has(a.mountpoints, "/w/.vscode") &&
                       has(a.mountpoints, "/w/.cfg/deep/x"));
        fs_bwrap_argv_done(&a);
}

static void test_missing_whole_git(void)
{
        /* git: whole without a repository: .git itself may not be created */
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.git", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);

        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/dir", "/w/.git") > 0);
        CU_ASSERT_TRUE(has(a.mountpoints, "/w/.git"));
        fs_bwrap_argv_done(&a);
}

static void test_hide_wins_and_nesting(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.cfg", "/h/.ssh/keys", NULL };
        const char *const hide[] = { "/h/.ssh/sub", "/h/.ssh", "/w/.cfg/token", "/w/.cfg", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/w/.cfg", FS_BWRAP_DIR },
                                        { "/w/.cfg/token", FS_BWRAP_OTHER }, { "/h/.ssh", FS_BWRAP_DIR },
                                        { "/h/.ssh/sub", FS_BWRAP_DIR }, { "/h/.ssh/keys", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, hide, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);

        /* a hidden dir inside a hidden dir: its mount point would sit in a
         * read-only empty tmpfs, so only the outer one is hidden */
        CU_ASSERT_FALSE(has(a.argv, "/h/.ssh/sub"));
        CU_ASSERT_FALSE(has(a.argv, "/h/.ssh/keys"));
        CU_ASSERT_FALSE(has(a.argv, "/w/.cfg/token"));
        /* a path both read-only and hidden: hiding comes last and wins */
        int ro_cfg = find(a.argv, "--ro-bind", "/w/.cfg", "/w/.cfg"), hide_cfg = find(a.argv, "--perms", "0000", "--tmpfs");
        CU_ASSERT_TRUE(ro_cfg > 0);
        CU_ASSERT_TRUE(hide_cfg > ro_cfg);
        fs_bwrap_argv_done(&a);
}

static void test_missing_in_both_lists(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.netrc", NULL };
        const char *const hide[] = { "/w/.netrc", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, hide, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);
        int e = find(a.argv, "--ro-bind", "/run/v/dir", "/w/.netrc");

        CU_ASSERT_TRUE(e > 0);
        CU_ASSERT_EQUAL(count(a.mountpoints), 1); /* one mount point for both */
        fs_bwrap_argv_done(&a);
}

static void test_missing_writable_root(void)
{
        const char *const w[] = { "/gone", "/w", NULL };
        const char *const ro[] = { "/gone/.gitmodules", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { 0 } };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build(&s, fs);

        /* nothing to bind, and above all no mount point (and parents) made there */
        CU_ASSERT_FALSE(has(a.argv, "/gone"));
        CU_ASSERT_FALSE(has(a.argv, "/gone/.gitmodules"));
        CU_ASSERT_EQUAL(count(a.mountpoints), 0);
        fs_bwrap_argv_done(&a);
}

/* ---- argv: network, /proc, binds, errors -------------------------------- */

static void test_network_modes(void)
{
        const struct fake_path fs[] = { { 0 } };
        const enum stk_network modes[] = { STK_NET_OFF, STK_NET_PROXY, STK_NET_ON };
        const bool unshared[] = { true, true, false };

        for (size_t i = 0; i < 3; i++) {
                struct stk_settings s = settings(NULL, NULL, NULL, 1, modes[i]);
                struct fs_bwrap_argv a = build(&s, fs);
                CU_ASSERT_EQUAL(has(a.argv, "--unshare-net"), unshared[i]);
                fs_bwrap_argv_done(&a);
        }
}

static void test_host_proc(void)
{
        const char *const hide[] = { "/proc/kcore", NULL };
        const struct fake_path fs[] = { { "/proc/kcore", FS_BWRAP_OTHER }, { 0 } };
        struct stk_settings s = settings(NULL, NULL, hide, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build_full(&s, NULL, 0, fs, true, 0);

        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/proc", "/proc") > 0);
        CU_ASSERT_FALSE(has(a.argv, "--proc"));
        /* the host's /proc is the one mounted, so a hidden path in it is hidden */
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/run/v/hidden", "/proc/kcore") > 0);
        fs_bwrap_argv_done(&a);

        a = build_full(&s, NULL, 0, fs, false, 0); /* a fresh /proc: not the host path */
        CU_ASSERT_TRUE(find(a.argv, "--proc", "/proc", NULL) > 0);
        CU_ASSERT_FALSE(has(a.argv, "/proc/kcore"));
        fs_bwrap_argv_done(&a);
}

static void test_module_binds(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.git", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/w/.git", FS_BWRAP_DIR }, { 0 } };
        const struct stk_bind binds[] = {
                { "/run/stockade/proxy.sock", "/tmp/proxy.sock", STK_BIND_RW },
                { "/etc/ssl/certs", NULL, 0 },
                { "/opt/maybe", "/opt/maybe", STK_BIND_TRY },
                { "/var/cache/x", "/var/cache/x", STK_BIND_RW | STK_BIND_TRY },
        };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_PROXY);
        struct fs_bwrap_argv a = build_full(&s, binds, 4, fs, false, 0);
        int sock = find(a.argv, "--bind", "/run/stockade/proxy.sock", "/tmp/proxy.sock");

        CU_ASSERT_TRUE(sock > find(a.argv, "--tmpfs", "/tmp", NULL)); /* lands in the private /tmp */
        CU_ASSERT_TRUE(sock > find(a.argv, "--bind", "/w", "/w"));
        CU_ASSERT_TRUE(sock < find(a.argv, "--ro-bind", "/w/.git", "/w/.git")); /* islands still win */
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/etc/ssl/certs", "/etc/ssl/certs") > 0);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind-try", "/opt/maybe", "/opt/maybe") > 0);
        CU_ASSERT_TRUE(find(a.argv, "--bind-try", "/var/cache/x", "/var/cache/x") > 0);
        fs_bwrap_argv_done(&a);
}

/* A directory between a writable root and an island is bound on itself
 * (rename fails on a mount point), before other modules' binds, which a
 * recursive bind from the host made later would cover, and before the
 * islands; not the root's own top level, not outside writable roots. */
static void test_pins(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.git/hooks", "/w/a/b/.git", "/w/.gitmodules", "/etc/x/y", NULL };
        const struct fake_path fs[] = { { "/w", FS_BWRAP_DIR }, { "/w/.git", FS_BWRAP_DIR },
                                        { "/w/.git/hooks", FS_BWRAP_DIR }, { "/w/a", FS_BWRAP_DIR },
                                        { "/w/a/b", FS_BWRAP_DIR }, { "/w/a/b/.git", FS_BWRAP_DIR },
                                        { "/w/.gitmodules", FS_BWRAP_OTHER }, { "/etc/x", FS_BWRAP_DIR },
                                        { "/etc/x/y", FS_BWRAP_OTHER }, { 0 } };
        const struct stk_bind binds[] = { { "/run/m/conf", "/w/a/conf", 0 } };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_argv a = build_full(&s, binds, 1, fs, false, 0);
        int pin_git = find(a.argv, "--bind", "/w/.git", "/w/.git"), pin_a = find(a.argv, "--bind", "/w/a", "/w/a");
        int pin_ab = find(a.argv, "--bind", "/w/a/b", "/w/a/b"), mod = find(a.argv, "--ro-bind", "/run/m/conf", "/w/a/conf");

        CU_ASSERT_TRUE(pin_git > find(a.argv, "--bind", "/w", "/w"));
        CU_ASSERT_TRUE(pin_a > 0 && pin_ab > pin_a);
        CU_ASSERT_TRUE(mod > pin_ab && mod > pin_git);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/w/.git/hooks", "/w/.git/hooks") > mod);
        CU_ASSERT_TRUE(find(a.argv, "--ro-bind", "/w/a/b/.git", "/w/a/b/.git") > mod);
        CU_ASSERT_EQUAL(find(a.argv, "--bind", "/etc/x", "/etc/x"), -1);
        CU_ASSERT_EQUAL(find(a.argv, "--bind", "/w/.gitmodules", "/w/.gitmodules"), -1);
        fs_bwrap_argv_done(&a);
}

static void test_invalid_paths(void)
{
        const struct fake_path fs[] = { { 0 } };
        const char *const bad[][2] = { { "w", NULL }, { "/a/../b", NULL }, { "/a//b", NULL }, { "/a/", NULL },
                                       { "/a/./b", NULL } };
        const struct stk_bind rel = { "/ok", "relative", 0 };

        for (size_t i = 0; i < 5; i++) {
                struct stk_settings s = settings(bad[i], NULL, NULL, 1, STK_NET_OFF);
                build_full(&s, NULL, 0, fs, false, -EINVAL);
                s = settings(NULL, NULL, bad[i], 1, STK_NET_OFF);
                build_full(&s, NULL, 0, fs, false, -EINVAL);
        }
        struct stk_settings s = settings(NULL, NULL, NULL, 1, STK_NET_OFF);
        build_full(&s, &rel, 1, fs, false, -EINVAL);
}

static int failing_kind(void *userdata, const char *path)
{
        return streq(path, "/w/.git") ? -EIO : FS_BWRAP_DIR;
}

static void test_kind_error_fails(void)
{
        const char *const w[] = { "/w", NULL };
        const char *const ro[] = { "/w/.git", NULL };
        struct stk_settings s = settings(w, ro, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_conf conf = { .bwrap = "/b", .void_hidden = "/v/h", .void_dir = "/v/d", .kind = failing_kind };
        struct fs_bwrap_argv a = { 0 };

        CU_ASSERT_EQUAL(fs_bwrap_build(&s, NULL, 0, &conf, &a), -EIO);
        CU_ASSERT_PTR_NULL(a.argv);
}

static void test_chdir(void)
{
        const struct fake_path fs[] = { { 0 } };
        struct stk_settings s = settings(NULL, NULL, NULL, 1, STK_NET_OFF);
        struct fs_bwrap_conf conf = { .bwrap = "/b", .chdir = "/w/src", .void_hidden = "/v/h", .void_dir = "/v/d",
                                      .kind = fake_kind, .userdata = (void *) fs };
        struct fs_bwrap_argv a = { 0 };

        CU_ASSERT_EQUAL_FATAL(fs_bwrap_build(&s, NULL, 0, &conf, &a), 0);
        CU_ASSERT_TRUE(find(a.argv, "--chdir", "/w/src", NULL) > 0);
        fs_bwrap_argv_done(&a);
        conf.chdir = "(unreachable)/x";
        CU_ASSERT_EQUAL(fs_bwrap_build(&s, NULL, 0, &conf, &a), -EINVAL);
}

static void test_check_args(void)
{
        const char *what = NULL;
        char upper[65];

        CU_ASSERT_EQUAL(fs_bwrap_check_args("/usr/bin/bwrap", NULL, &what), 0);
        CU_ASSERT_EQUAL(fs_bwrap_check_args("bwrap", NULL, &what), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(what, "PATH"));
        CU_ASSERT_EQUAL(fs_bwrap_check_args("/usr/../bin/bwrap", NULL, &what), -EINVAL);
        memset(upper, 'A', 64);
        upper[64] = '\0';
        CU_ASSERT_EQUAL(fs_bwrap_check_args("/b", upper, &what), 0);
        upper[10] = 'g';
        CU_ASSERT_EQUAL(fs_bwrap_check_args("/b", upper, &what), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(what, "bwrap_sha256"));
        CU_ASSERT_EQUAL(fs_bwrap_check_args("/b", "abc", &what), -EINVAL);
        CU_ASSERT_EQUAL(fs_bwrap_check_args("/b", "", &what), -EINVAL);
}

static void test_path_helpers(void)
{
        CU_ASSERT_TRUE(stk_path_valid("/"));
        CU_ASSERT_TRUE(stk_path_valid("/a/b.c/..d"));
        CU_ASSERT_FALSE(stk_path_valid("--bind"));
        CU_ASSERT_FALSE(stk_path_valid(""));
        CU_ASSERT_FALSE(stk_path_valid(NULL));
        CU_ASSERT_TRUE(stk_path_beneath("/a/b", "/a"));
        CU_ASSERT_TRUE(stk_path_beneath("/a", "/a"));
        CU_ASSERT_FALSE(stk_path_beneath("/ab", "/a"));
        CU_ASSERT_TRUE(stk_path_beneath("/x", "/"));
}

UNIT_SUITE(fs_bwrap_argv,
           UNIT_TEST(test_head_and_tail),
           UNIT_TEST(test_tmpfs_before_workspace_in_tmp),
           UNIT_TEST(test_private_tmp_replaces_tmp_root),
           UNIT_TEST(test_islands_after_writable),
           UNIT_TEST(test_root_writable),
           UNIT_TEST(test_hide_kinds),
           UNIT_TEST(test_missing_protected),
           UNIT_TEST(test_missing_whole_git),
           UNIT_TEST(test_hide_wins_and_nesting),
           UNIT_TEST(test_missing_in_both_lists),
           UNIT_TEST(test_missing_writable_root),
           UNIT_TEST(test_network_modes),
           UNIT_TEST(test_host_proc),
           UNIT_TEST(test_module_binds),
           UNIT_TEST(test_pins),
           UNIT_TEST(test_invalid_paths),
           UNIT_TEST(test_kind_error_fails),
           UNIT_TEST(test_chdir),
           UNIT_TEST(test_check_args),
           UNIT_TEST(test_path_helpers))
