/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap unit tests that touch the host: mount-point files and their
 * cleanup (in a temp dir), SHA-256 through an fd, the binary checks, and the
 * hooks driven through a fake host table (bwrap is executed only for
 * --version and never wraps anything here).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "fs_bwrap_internal.h"
#include "unit.h"

extern const struct stk_module stockade_module;

static char tmp[256];

static void make_tmp(void)
{
        const char *base = getenv("TMPDIR");

        snprintf(tmp, sizeof(tmp), "%s/fs_bwrap-unit.XXXXXX", base && base[0] == '/' ? base : "/tmp");
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

static bool xattrs_work(void)
{
        int fd = open(at("xattr-probe"), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        bool ok = fd >= 0 && fsetxattr(fd, FS_BWRAP_MARK_XATTR, "x", 1, 0) == 0;

        if (fd >= 0)
                close(fd);
        unlink(at("xattr-probe"));
        return ok;
}

/* ---- mount points ------------------------------------------------------- */

static void test_mountpoint_create_and_cleanup(void)
{
        struct fs_bwrap_mounts m = { 0 };
        struct stat st;

        make_tmp();
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at(".gitmodules")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at(".cfg/deep/x")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at(".gitmodules")), 0); /* once */
        CU_ASSERT_TRUE(lstat(at(".gitmodules"), &st) == 0 && S_ISDIR(st.st_mode));
        CU_ASSERT_TRUE(lstat(at(".cfg/deep/x"), &st) == 0 && S_ISDIR(st.st_mode));
        CU_ASSERT_EQUAL(m.n, 4); /* .gitmodules, .cfg, .cfg/deep, .cfg/deep/x */
        CU_ASSERT_TRUE(m.v[0].fd >= 0 && m.v[1].fd < 0 && m.v[3].fd >= 0);
        fs_bwrap_mounts_cleanup(&m);
        CU_ASSERT_FALSE(exists(at(".gitmodules")));
        CU_ASSERT_FALSE(exists(at(".cfg")));
        CU_ASSERT_EQUAL(m.n, 0);
        rm_tmp();
}

static void touch(const char *p)
{
        FILE *f = fopen(p, "w");

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fclose(f);
}

static void test_cleanup_keeps_what_changed(void)
{
        struct fs_bwrap_mounts m = { 0 };

        make_tmp();
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at(".vscode")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at("made/leaf")), 0);
        touch(at(".vscode/settings.json")); /* someone on the host wrote into it */
        touch(at("made/other"));            /* and beside a mount point, in a parent made for it */
        fs_bwrap_mounts_cleanup(&m);
        CU_ASSERT_TRUE(exists(at(".vscode/settings.json")));
        CU_ASSERT_FALSE(exists(at("made/leaf")));
        CU_ASSERT_TRUE(exists(at("made/other")));
        rm_tmp();
}

static void test_mountpoint_refuses_symlink(void)
{
        struct fs_bwrap_mounts m = { 0 };

        make_tmp();
        CU_ASSERT_EQUAL(mkdir(at("real"), 0755), 0);
        CU_ASSERT_EQUAL(symlink(at("real"), at("link")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, at("link/.gitmodules")), -ENOTDIR);
        CU_ASSERT_FALSE(exists(at("real/.gitmodules")));
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&m, "relative"), -EINVAL);
        fs_bwrap_mounts_cleanup(&m);
        rm_tmp();
}

/* Two overlapping runs: the first one's cleanup must leave the directory
 * another run still mounts on (removing it would detach that run's mask). */
static void test_overlapping_runs(void)
{
        struct fs_bwrap_mounts a = { 0 }, b = { 0 };

        make_tmp();
        bool marks = xattrs_work();
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&a, at(".envrc")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&b, at(".envrc")), 0); /* run b starts meanwhile */
        CU_ASSERT_EQUAL(b.n, 1);
        CU_ASSERT_EQUAL(b.v[0].remove, marks); /* adopted through the mark */
        fs_bwrap_mounts_cleanup(&a);             /* a ends first */
        CU_ASSERT_TRUE(exists(at(".envrc")));
        fs_bwrap_mounts_cleanup(&b);             /* b, last out, removes it */
        CU_ASSERT_EQUAL(exists(at(".envrc")), !marks);
        /* the other order: the creator outlives the other run */
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_create(&a, at(".idea")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&b, at(".idea")), 0);
        fs_bwrap_mounts_cleanup(&b);
        CU_ASSERT_TRUE(exists(at(".idea")));
        fs_bwrap_mounts_cleanup(&a);
        CU_ASSERT_FALSE(exists(at(".idea")));
        rm_tmp();
}

static void test_hold_ignores_other_kinds(void)
{
        struct fs_bwrap_mounts m = { 0 };

        make_tmp();
        touch(at("file"));
        CU_ASSERT_EQUAL(mkfifo(at("fifo"), 0600), 0);
        CU_ASSERT_EQUAL(mkdir(at("users-own"), 0755), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&m, at("file")), 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&m, at("fifo")), 0); /* never opened */
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&m, at("missing")), 0);
        CU_ASSERT_EQUAL(m.n, 0);
        CU_ASSERT_EQUAL(fs_bwrap_mountpoint_hold(&m, at("users-own")), 0);
        CU_ASSERT_EQUAL(m.n, 1);
        CU_ASSERT_FALSE(m.v[0].remove); /* not marked: locked, never removed */
        fs_bwrap_mounts_cleanup(&m);
        CU_ASSERT_TRUE(exists(at("users-own")));
        rm_tmp();
}

static void test_void_entries(void)
{
        struct fs_bwrap_mounts m = { 0 };
        struct stat st;
        char *dir;

        make_tmp();
        CU_ASSERT_EQUAL_FATAL(fs_bwrap_void_create(&m, tmp), 0);
        CU_ASSERT_EQUAL(fs_bwrap_void_create(&m, tmp), 0); /* once per run */
        CU_ASSERT_TRUE(stat(m.void_hidden, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0 && st.st_size == 0);
        CU_ASSERT_TRUE(stat(m.void_dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0555);
        CU_ASSERT_TRUE(stat(m.private_dir, &st) == 0 && (st.st_mode & 07777) == 0700);
        dir = strdup(m.private_dir);
        fs_bwrap_mounts_cleanup(&m);
        CU_ASSERT_FALSE(exists(dir));
        free(dir);
        rm_tmp();
}

/* ---- the binary ----------------------------------------------------------- */

static void write_file(const char *p, const char *text, mode_t mode)
{
        FILE *f = fopen(p, "w");

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        fclose(f);
        CU_ASSERT_EQUAL(chmod(p, mode), 0);
}

static void test_sha256(void)
{
        char hex[65];
        int fd;

        make_tmp();
        write_file(at("abc"), "abc", 0755);
        fd = open(at("abc"), O_RDONLY | O_CLOEXEC);
        CU_ASSERT_EQUAL(fs_bwrap_sha256_fd(fd, hex), 0);
        CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_CUR), 0); /* pread: the offset is untouched */
        close(fd);
        rm_tmp();
}

/* FIPS 180-4 vectors around the padding boundaries, and a large file
 * against sha256sum(1). */
static void test_sha256_vectors(void)
{
        static const struct { const char *in; const char *want; } v[] = {
                { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
                { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
                { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
        };
        char hex[65], want[65] = "";
        int fd;

        make_tmp();
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                write_file(at("v"), v[i].in, 0644);
                fd = open(at("v"), O_RDONLY | O_CLOEXEC);
                CU_ASSERT_EQUAL(fs_bwrap_sha256_fd(fd, hex), 0);
                CU_ASSERT_STRING_EQUAL(hex, v[i].want);
                close(fd);
        }
        fd = open("/usr/bin/bwrap", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                FILE *p = popen("sha256sum /usr/bin/bwrap", "r");
                CU_ASSERT_PTR_NOT_NULL_FATAL(p);
                CU_ASSERT_EQUAL(fscanf(p, "%64s", want), 1);
                pclose(p);
                CU_ASSERT_EQUAL(fs_bwrap_sha256_fd(fd, hex), 0);
                CU_ASSERT_STRING_EQUAL(hex, want);
                close(fd);
        }
        rm_tmp();
}

static void test_open_binary_checks(void)
{
        const char *why = NULL;
        int fd = -1;

        make_tmp();
        write_file(at("noexec"), "x", 0644);
        write_file(at("gw"), "x", 0775);
        write_file(at("ok"), "x", 0755);
        CU_ASSERT_EQUAL(fs_bwrap_open_binary(at("noexec"), &fd, &why), -EACCES);
        CU_ASSERT_EQUAL(fs_bwrap_open_binary(at("gw"), &fd, &why), -EPERM);
        CU_ASSERT_EQUAL(fs_bwrap_open_binary(tmp, &fd, &why), -EACCES); /* a directory */
        CU_ASSERT_EQUAL(fs_bwrap_open_binary(at("missing"), &fd, &why), -ENOENT);
        CU_ASSERT_EQUAL(fd, -1);
        CU_ASSERT_EQUAL(fs_bwrap_open_binary(at("ok"), &fd, &why), 0);
        CU_ASSERT_TRUE(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
        close(fd);
        rm_tmp();
}

/* ---- hooks through a fake host ------------------------------------------ */

static struct {
        const char *bwrap, *pin;
        struct stk_settings s;
        void *data;
        char **wrap;
        int exec_fd, n_wrap_calls;
        char log[8192];
} F;

static void __attribute__((format(printf, 3, 4))) f_log(struct stk_ctx *ctx, enum stk_log_level l, const char *fmt, ...)
{
        size_t n = strlen(F.log);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(F.log + n, sizeof(F.log) - n, fmt, ap);
        va_end(ap);
        n = strlen(F.log);
        snprintf(F.log + n, sizeof(F.log) - n, "\n");
}
static const char *f_str(struct stk_ctx *c, const char *n)
{
        return streq(n, "bwrap") ? F.bwrap : streq(n, "bwrap_sha256") ? F.pin : NULL;
}
static int f_bool(struct stk_ctx *c, const char *n, int dflt) { return dflt; }
static const struct stk_settings *f_settings(struct stk_ctx *c) { return &F.s; }
static void *f_data(struct stk_ctx *c) { return F.data; }
static const struct stk_bind *f_binds(struct stk_ctx *c, size_t *n) { *n = 0; return NULL; }
static int f_exec_fd(struct stk_ctx *c, int fd)
{
        F.exec_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        return F.exec_fd < 0 ? -errno : 0;
}
static int f_wrap(struct stk_ctx *c, const char *const *prefix)
{
        size_t n = 0;

        while (prefix[n])
                n++;
        F.wrap = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
                F.wrap[i] = strdup(prefix[i]);
        F.n_wrap_calls++;
        return 0;
}

static const struct stk_host fake_host = {
        .size = sizeof(struct stk_host), .abi_minor = STK_ABI_MINOR, .log = f_log,
        .arg_string = f_str, .arg_bool = f_bool, .settings = f_settings, .data = f_data,
        .plan_binds = f_binds, .plan_exec_fd = f_exec_fd, .plan_wrap = f_wrap,
};

static const char *const none[] = { NULL };

static void fake_setup(const char *bwrap, const char *pin)
{
        static const char *w[2], *ro[3];

        fs_bwrap_strv_free(F.wrap);
        memset(&F, 0, sizeof(F));
        F.exec_fd = -1;
        F.bwrap = bwrap;
        F.pin = pin;
        w[0] = tmp;
        ro[0] = at(".gitmodules");
        ro[1] = at(".git");
        F.s = (struct stk_settings) { .size = sizeof(F.s), .profile = "test", .workspace = tmp, .write = w,
                                      .read_only = ro, .hide = none, .private_tmp = 1, .network = STK_NET_OFF,
                                      .net_allow = none, .net_deny = none };
        CU_ASSERT_EQUAL_FATAL(stockade_module.init(NULL, &fake_host, &F.data), 0);
}

static void fake_done(void)
{
        stockade_module.fini(F.data);
        F.data = NULL;
        if (F.exec_fd >= 0)
                close(F.exec_fd);
        F.wrap = fs_bwrap_strv_free(F.wrap);
}

static void test_init_checks_host_size(void)
{
        struct stk_host small = fake_host;
        void *d = NULL;

        small.size = offsetof(struct stk_host, plan_exec_fd);
        CU_ASSERT_EQUAL(stockade_module.init(NULL, &small, &d), -ENOTSUP);
        CU_ASSERT_PTR_NULL(d);
        CU_ASSERT_STRING_EQUAL(stockade_module.name, "fs_bwrap");
}

static void test_probe_bad_args(void)
{
        uint32_t covers = stockade_module.covers;

        make_tmp();
        fake_setup("bwrap", NULL);
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "never looked up in PATH"));
        fake_done();
        fake_setup(at("no-such-bwrap"), NULL);
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "install bubblewrap"));
        CU_ASSERT_EQUAL(stockade_module.pre_exec(NULL), -ENOENT);
        CU_ASSERT_EQUAL(F.n_wrap_calls, 0);
        fake_done();
        rm_tmp();
}

static void test_pin_mismatch_refuses(void)
{
        char zeros[65];
        uint32_t covers = stockade_module.covers;

        make_tmp();
        write_file(at("fake-bwrap"), "#!/bin/sh\necho pwned\n", 0755);
        memset(zeros, '0', 64);
        zeros[64] = '\0';
        fake_setup(at("fake-bwrap"), zeros);
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EKEYREJECTED);
        CU_ASSERT_EQUAL(stockade_module.pre_exec(NULL), -EKEYREJECTED);
        CU_ASSERT_EQUAL(F.n_wrap_calls, 0);
        CU_ASSERT_EQUAL(F.exec_fd, -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "pins 0000"));
        fake_done();
        rm_tmp();
}

/* The real /usr/bin/bwrap, pinned right: the wrap, the fd, the mount points. */
static void test_pre_exec_real_bwrap(void)
{
        char pin[65];
        struct stat a, b;
        uint32_t covers = stockade_module.covers;
        int fd = open(FS_BWRAP_DEFAULT, O_RDONLY | O_CLOEXEC);
        struct fs_bwrap_ns_probe ns;

        if (fd < 0 || fs_bwrap_probe_ns(&ns) < 0 || ns.stage == FS_BWRAP_NS_USER || ns.stage == FS_BWRAP_NS_CAPS) {
                fprintf(stderr, "\n    (skipped: no %s or no user namespaces here)\n", FS_BWRAP_DEFAULT);
                if (fd >= 0)
                        close(fd);
                return;
        }
        CU_ASSERT_EQUAL(fs_bwrap_sha256_fd(fd, pin), 0);
        close(fd);
        make_tmp();
        fake_setup(FS_BWRAP_DEFAULT, pin);
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), 0);
        CU_ASSERT_TRUE(covers & STK_COVER_NET_TCP);
        CU_ASSERT_FALSE(covers & STK_COVER_NET_UNIX);
        CU_ASSERT_EQUAL_FATAL(stockade_module.pre_exec(NULL), 0);
        CU_ASSERT_EQUAL(F.n_wrap_calls, 1);
        CU_ASSERT_STRING_EQUAL(F.wrap[0], FS_BWRAP_DEFAULT);
        size_t n = 0;
        while (F.wrap[n])
                n++;
        CU_ASSERT_STRING_EQUAL(F.wrap[n - 1], "--");
        CU_ASSERT_TRUE(fstat(F.exec_fd, &a) == 0 && stat(FS_BWRAP_DEFAULT, &b) == 0 && a.st_ino == b.st_ino);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "bwrap argv: /usr/bin/bwrap --die-with-parent"));
        char *cwd = getcwd(NULL, 0);
        bool chdir_ok = false;
        for (size_t i = 0; i + 1 < n; i++)
                chdir_ok |= streq(F.wrap[i], "--chdir") && streq(F.wrap[i + 1], cwd);
        CU_ASSERT_TRUE(chdir_ok);
        free(cwd);
        /* a second line wrapping again would nest bwrap in bwrap */
        CU_ASSERT_EQUAL(stockade_module.pre_exec(NULL), -EEXIST);
        CU_ASSERT_EQUAL(F.n_wrap_calls, 1);
        /* missing protected paths exist as mount points until fini */
        CU_ASSERT_TRUE(exists(at(".gitmodules")) && exists(at(".git")));
        fake_done();
        CU_ASSERT_FALSE(exists(at(".gitmodules")) || exists(at(".git")));

        fake_setup(FS_BWRAP_DEFAULT, NULL);
        F.s.network = STK_NET_ON;
        covers = stockade_module.covers;
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), 0);
        CU_ASSERT_FALSE(covers & (STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT));
        CU_ASSERT_TRUE(covers & STK_COVER_CAPS);
        fake_done();
        rm_tmp();
}

static void test_ns_hints(void)
{
        char buf[256];
        struct fs_bwrap_ns_probe p = { .stage = FS_BWRAP_NS_PROC, .err = EPERM };

        CU_ASSERT_PTR_NOT_NULL(strstr(fs_bwrap_ns_hint(&p, buf, sizeof(buf)), "fresh /proc"));
        p.stage = FS_BWRAP_NS_CAPS;
        CU_ASSERT_PTR_NOT_NULL(strstr(fs_bwrap_ns_hint(&p, buf, sizeof(buf)), "user namespace"));
        p.stage = FS_BWRAP_NS_USER;
        CU_ASSERT_TRUE(strlen(fs_bwrap_ns_hint(&p, buf, sizeof(buf))) > 10);
}

UNIT_SUITE(fs_bwrap_host,
           UNIT_TEST(test_mountpoint_create_and_cleanup),
           UNIT_TEST(test_cleanup_keeps_what_changed),
           UNIT_TEST(test_mountpoint_refuses_symlink),
           UNIT_TEST(test_overlapping_runs),
           UNIT_TEST(test_hold_ignores_other_kinds),
           UNIT_TEST(test_void_entries),
           UNIT_TEST(test_sha256),
           UNIT_TEST(test_sha256_vectors),
           UNIT_TEST(test_open_binary_checks),
           UNIT_TEST(test_init_checks_host_size),
           UNIT_TEST(test_probe_bad_args),
           UNIT_TEST(test_pin_mismatch_refuses),
           UNIT_TEST(test_pre_exec_real_bwrap),
           UNIT_TEST(test_ns_hints))
