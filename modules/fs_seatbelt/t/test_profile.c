/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt's pure parts on Linux: the /private mapping, the profile and
 * argv for several policies byte for byte against t/golden/, a hostile
 * workspace name that must stay data, and the SBPL checker over every
 * profile generated here.
 *
 * Golden files: t/golden/NAME.sbpl is the profile, t/golden/NAME.argv the
 * argv one argument a line with the profile as @PROFILE@.  After a change
 * made on purpose, rewrite them with
 *     SB_GOLDEN_UPDATE=1 build/t/fs_seatbelt-unit
 * and review the diff: it is the change in what macOS will enforce.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_seatbelt_internal.h"
#include "sbpl_check.h"
#include "unit.h"

#define NONE ((const char *const[]) { NULL })
#define LIST(...) ((const char *const[]) { __VA_ARGS__, NULL })

static struct stk_settings settings(const char *const *write, const char *const *ro, const char *const *hide,
                                    int private_tmp, enum stk_network net)
{
        return (struct stk_settings) {
                .size = sizeof(struct stk_settings), .profile = "test", .workspace = "/home/u/ws",
                .write = write, .read_only = ro, .hide = hide, .private_tmp = private_tmp, .network = net,
                .net_allow = NONE, .net_deny = NONE, .home = "/home/u",
        };
}

static const struct sb_conf conf_linux = {
        .sandbox_exec = SB_SANDBOX_EXEC, .tmpdir = "/tmp/stockade-sb.AbC123",
};

/* Every profile made in these tests goes through the checker. */
static void check_sbpl(const struct sb_profile *p)
{
        const char *names[256];
        char why[256];

        CU_ASSERT_FATAL(p->n_params <= 256);
        for (size_t i = 0; i < p->n_params; i++)
                names[i] = p->params[i].name;
        if (sbpl_check(p->text, names, p->n_params, why, sizeof(why)) < 0) {
                fprintf(stderr, "\n  SBPL check: %s\n", why);
                CU_FAIL("generated profile fails the SBPL check");
        }
}

static int build(const struct stk_settings *s, const struct stk_bind *b, size_t n, const struct sb_conf *c,
                 struct sb_profile *ret)
{
        int r = sb_build(s, b, n, c, ret);

        if (r >= 0)
                check_sbpl(ret);
        return r;
}

/* ---- golden files -------------------------------------------------------- */

static char *golden_path(const char *name, const char *ext)
{
        const char *dir = getenv("SB_GOLDEN_DIR");
        const char *me = __FILE__, *slash = strrchr(me, '/');
        char *p = NULL;

        int r = dir ? asprintf(&p, "%s/%s.%s", dir, name, ext)
                    : asprintf(&p, "%.*sgolden/%s.%s", slash ? (int) (slash - me + 1) : 0, me, name, ext);

        return r < 0 ? NULL : p;
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "r");
        char *s = NULL;
        size_t cap = 0, len = 0;

        if (!f)
                return NULL;
        for (;;) {
                if (len + 4096 + 1 > cap) {
                        char *n = realloc(s, cap = len + 8192);
                        if (!n) {
                                free(s);
                                fclose(f);
                                return NULL;
                        }
                        s = n;
                }
                size_t k = fread(s + len, 1, 4096, f);
                len += k;
                if (k == 0)
                        break;
        }
        fclose(f);
        s[len] = '\0';
        return s;
}

static char *argv_text(const struct sb_profile *p)
{
        struct stk_buf b = { 0 };

        for (size_t i = 0; p->argv[i]; i++) {
                stk_buf_adds(&b, p->argv[i] == p->argv[2] && i == 2 ? "@PROFILE@" : p->argv[i]);
                stk_buf_adds(&b, "\n");
        }
        return b.s;
}

static void compare(const char *name, const char *ext, const char *got)
{
        char *path = golden_path(name, ext), *want;

        CU_ASSERT_PTR_NOT_NULL_FATAL(path);
        if (getenv("SB_GOLDEN_UPDATE")) {
                FILE *f = fopen(path, "w");
                CU_ASSERT_PTR_NOT_NULL_FATAL(f);
                fputs(got, f);
                CU_ASSERT_EQUAL(fclose(f), 0);
        }
        want = slurp(path);
        if (!want)
                fprintf(stderr, "\n  cannot read %s (run from the source tree's top, or set SB_GOLDEN_DIR)\n", path);
        else if (strcmp(want, got) != 0)
                fprintf(stderr, "\n  %s differs from what was generated; SB_GOLDEN_UPDATE=1 rewrites it\n", path);
        CU_ASSERT_TRUE(want && strcmp(want, got) == 0);
        free(want);
        free(path);
}

static void golden(const char *name, const struct stk_settings *s, const struct stk_bind *b, size_t n,
                   const struct sb_conf *c)
{
        struct sb_profile p = { 0 };
        char *a;

        CU_ASSERT_EQUAL_FATAL(build(s, b, n, c, &p), 0);
        /* the argv is exactly this shape: sandbox-exec -p TEXT (-D N=V)* -- */
        CU_ASSERT_STRING_EQUAL(p.argv[0], SB_SANDBOX_EXEC);
        CU_ASSERT_STRING_EQUAL(p.argv[1], "-p");
        CU_ASSERT_STRING_EQUAL(p.argv[2], p.text);
        CU_ASSERT_STRING_EQUAL(p.argv[3 + 2 * p.n_params], "--");
        CU_ASSERT_PTR_NULL(p.argv[4 + 2 * p.n_params]);
        compare(name, "sbpl", p.text);
        a = argv_text(&p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        compare(name, "argv", a);
        free(a);
        sb_profile_done(&p);
}

/* The shipped default profile's shape: workspace writable, .git and an
 * editor dir read-only, credentials hidden, private /tmp, network off. */
static void test_golden_default(void)
{
        struct stk_settings s = settings(LIST("/home/u/ws"), LIST("/home/u/ws/.git", "/home/u/ws/.vscode"),
                                         LIST("/home/u/.ssh", "/home/u/.netrc"), 1, STK_NET_OFF);
        golden("default", &s, NULL, 0, &conf_linux);
}

/* read-only: no writable root at all, only the private /tmp. */
static void test_golden_read_only(void)
{
        struct stk_settings s = settings(NONE, LIST("/home/u/ws/.git"), LIST("/home/u/.ssh"), 1, STK_NET_OFF);
        golden("read-only", &s, NULL, 0, &conf_linux);
}

/* network through a proxy on loopback port 3128; no private /tmp. */
static void test_golden_proxy(void)
{
        struct stk_settings s = settings(LIST("/home/u/ws"), NONE, NONE, 0, STK_NET_PROXY);
        struct sb_conf c = conf_linux;

        c.proxy_port = 3128;
        c.mach = LIST("com.apple.trustd.agent");
        golden("proxy", &s, NULL, 0, &c);
}

/* Islands in two roots, one nested deep (its parents are kept from
 * renames), one holding a root (the island wins), a writable bind, and the
 * network on. */
static void test_golden_islands(void)
{
        struct stk_settings s = settings(LIST("/home/u/ws", "/home/u/cache", "/srv/data/out"),
                                         LIST("/home/u/ws/.git", "/home/u/ws/sub/mod/.git/hooks", "/srv/data"),
                                         NONE, 0, STK_NET_ON);
        const struct stk_bind b[] = {
                { "/run/user/1000/stockade-proxy", NULL, STK_BIND_RW },
                { "/etc/resolv.conf", "/etc/resolv.conf", 0 }, /* read-only: nothing to add */
        };
        golden("islands", &s, b, 2, &conf_linux);
}

/* Hidden files and directories inside and outside the workspace, a
 * writable root under /tmp that the private /tmp must leave alone. */
static void test_golden_hidden(void)
{
        struct stk_settings s = settings(LIST("/home/u/ws", "/tmp/build"), NONE,
                                         LIST("/home/u/ws/.env", "/home/u/ws/secrets/keys", "/home/u/.aws"),
                                         1, STK_NET_OFF);
        golden("hidden", &s, NULL, 0, &conf_linux);
}

/* The same on macOS: /tmp, /var, /etc paths become /private ones. */
static void test_golden_darwin(void)
{
        struct stk_settings s = settings(LIST("/tmp/ws", "/var/folders/xy/abc/T", "/Users/u/proj"),
                                         LIST("/tmp/ws/.git"), LIST("/etc/ssh", "/Users/u/.ssh"), 1, STK_NET_OFF);
        struct sb_conf c = conf_linux;

        c.darwin = true;
        c.tmpdir = "/private/tmp/stockade-sb.AbC123";
        golden("darwin", &s, NULL, 0, &c);
}

/* ---- paths are data ------------------------------------------------------- */

#define HOSTILE "/home/u/w\"s)(allow default)(;\n(allow file-write* (subpath \"/\"))\n;"

static void test_hostile_workspace(void)
{
        struct stk_settings s = settings(LIST(HOSTILE), LIST(HOSTILE "/.git"), LIST(HOSTILE "/.env"), 1,
                                         STK_NET_OFF);
        struct sb_profile p = { 0 };
        bool seen = false;
        char *text = NULL;

        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &conf_linux, &p), 0);
        CU_ASSERT_PTR_NULL(strstr(p.text, "/home/u"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "w\"s"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "(allow default)"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "(subpath \"/\")"));
        /* in the argv: only as -D values, whole */
        for (size_t i = 3; p.argv[i]; i++) {
                if (strstr(p.argv[i], "w\"s")) {
                        CU_ASSERT_STRING_EQUAL(p.argv[i - 1], "-D");
                        seen |= strcmp(p.argv[i], "WRITE_0=" HOSTILE) == 0;
                }
        }
        CU_ASSERT_TRUE(seen);
        /* explain: one line per path, the newline escaped */
        CU_ASSERT_EQUAL_FATAL(sb_explain_text(&p, NULL, NULL, &text), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "  write $'/home/u/w\"s)(allow default)(;\\n(allow file-write* "
                                            "(subpath \"/\"))\\n;'\n"));
        free(text);
        sb_profile_done(&p);
}

/* ---- the mapping and the checks ---------------------------------------------- */

static void expect_canon(const char *in, bool darwin, const char *want)
{
        char *out = NULL;

        CU_ASSERT_EQUAL_FATAL(sb_canon(in, darwin, &out), 0);
        CU_ASSERT_STRING_EQUAL(out, want);
        free(out);
}

static void test_canon(void)
{
        char *out = NULL;

        expect_canon("/tmp", true, "/private/tmp");
        expect_canon("/tmp/x/y", true, "/private/tmp/x/y");
        expect_canon("/var/folders/ab/T", true, "/private/var/folders/ab/T");
        expect_canon("/etc", true, "/private/etc");
        expect_canon("/etc/ssh/x", true, "/private/etc/ssh/x");
        expect_canon("/tmpfoo", true, "/tmpfoo");           /* a component, not a prefix */
        expect_canon("/variable/x", true, "/variable/x");
        expect_canon("/private/var/x", true, "/private/var/x"); /* already the target */
        expect_canon("/Users/u/tmp", true, "/Users/u/tmp");
        expect_canon("/", true, "/");
        expect_canon("/tmp/x", false, "/tmp/x");            /* Linux: as the kernel sees it */
        expect_canon("/var/lib", false, "/var/lib");
        CU_ASSERT_EQUAL(sb_canon("relative", true, &out), -EINVAL);
        CU_ASSERT_EQUAL(sb_canon("/a//b", true, &out), -EINVAL);
        CU_ASSERT_EQUAL(sb_canon("/a/./b", false, &out), -EINVAL);
        CU_ASSERT_EQUAL(sb_canon("/a/../b", false, &out), -EINVAL);
        CU_ASSERT_EQUAL(sb_canon("/a/", false, &out), -EINVAL);
        CU_ASSERT_EQUAL(sb_canon("", false, &out), -EINVAL);
        CU_ASSERT_PTR_NULL(out);
}

static void test_mach_names(void)
{
        CU_ASSERT_TRUE(sb_mach_name_valid("com.apple.trustd.agent"));
        CU_ASSERT_TRUE(sb_mach_name_valid("com.apple.distributed_notifications@Uv3"));
        CU_ASSERT_FALSE(sb_mach_name_valid(""));
        CU_ASSERT_FALSE(sb_mach_name_valid("a\"))(allow default"));
        CU_ASSERT_FALSE(sb_mach_name_valid("a b"));
        CU_ASSERT_FALSE(sb_mach_name_valid(NULL));
}

static void expect_einval(const struct stk_settings *s, const struct stk_bind *b, size_t n, const struct sb_conf *c)
{
        struct sb_profile p = { .text = (char *) "untouched" };

        CU_ASSERT_EQUAL(sb_build(s, b, n, c, &p), -EINVAL);
        CU_ASSERT_STRING_EQUAL(p.text, "untouched");
}

static void test_refuses_bad_input(void)
{
        struct stk_settings ok = settings(LIST("/home/u/ws"), NONE, NONE, 0, STK_NET_OFF);
        struct stk_settings bad_path = settings(LIST("/home/u/ws/"), NONE, NONE, 0, STK_NET_OFF);
        struct stk_settings bad_hide = settings(NONE, NONE, LIST("~/.ssh"), 0, STK_NET_OFF);
        struct stk_settings proxy = settings(NONE, NONE, NONE, 0, STK_NET_PROXY);
        struct stk_settings tmp = settings(NONE, NONE, NONE, 1, STK_NET_OFF);
        struct sb_conf c = conf_linux;
        const struct stk_bind moved = { "/run/proxy.sock", "/tmp/proxy.sock", STK_BIND_RW };

        expect_einval(&bad_path, NULL, 0, &c);
        expect_einval(&bad_hide, NULL, 0, &c);
        expect_einval(&proxy, NULL, 0, &c);         /* proxy without a port */
        expect_einval(&ok, &moved, 1, &c);          /* no mount namespace to move a path */
        c.tmpdir = NULL;
        expect_einval(&tmp, NULL, 0, &c);           /* private_tmp without the directory */
        c = conf_linux;
        c.mach = LIST("ok.name", "bad\")");
        expect_einval(&ok, NULL, 0, &c);
        c = conf_linux;
        c.sandbox_exec = "sandbox-exec";            /* never through PATH */
        expect_einval(&ok, NULL, 0, &c);
        ok.network = (enum stk_network) 7;
        expect_einval(&ok, NULL, 0, &conf_linux);
}

static bool has_param(const struct sb_profile *p, const char *name, const char *value)
{
        for (size_t i = 0; i < p->n_params; i++)
                if (!strcmp(p->params[i].name, name))
                        return !strcmp(p->params[i].value, value);
        return false;
}

/* Every directory from the root down to an island's parent, once. */
static void test_keeps(void)
{
        struct stk_settings s = settings(LIST("/w", "/w/a"), LIST("/w/a/b/.git", "/w/a/c", "/elsewhere/x"),
                                         LIST("/w/a/b/secret"), 0, STK_NET_OFF);
        struct sb_profile p = { 0 };

        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &conf_linux, &p), 0);
        CU_ASSERT_TRUE(has_param(&p, "KEEP_0", "/w"));
        CU_ASSERT_TRUE(has_param(&p, "KEEP_1", "/w/a"));
        CU_ASSERT_TRUE(has_param(&p, "KEEP_2", "/w/a/b"));
        CU_ASSERT_FALSE(has_param(&p, "KEEP_3", "/elsewhere")); /* not in a writable root: never writable */
        CU_ASSERT_EQUAL(p.n_params, 2 + 3 + 1 + 3);
        sb_profile_done(&p);
}

static void test_duplicates_once(void)
{
        struct stk_settings s = settings(LIST("/w", "/w"), LIST("/w/.git", "/w/.git"), NONE, 0, STK_NET_OFF);
        struct sb_profile p = { 0 };

        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &conf_linux, &p), 0);
        CU_ASSERT_EQUAL(p.n_params, 3); /* WRITE_0, RO_0, KEEP_0 */
        sb_profile_done(&p);
}

static void test_network_modes(void)
{
        struct stk_settings s = settings(NONE, NONE, NONE, 0, STK_NET_OFF);
        struct sb_conf c = conf_linux;
        struct sb_profile p = { 0 };

        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &c, &p), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.text, "\n(deny network*)\n"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "(allow network"));
        sb_profile_done(&p);
        s.network = STK_NET_PROXY;
        c.proxy_port = 8080;
        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &c, &p), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.text, "\n(allow network-outbound (remote tcp \"localhost:8080\"))\n"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "(allow network*"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "trustd"));
        sb_profile_done(&p);
        s.network = STK_NET_ON;
        CU_ASSERT_EQUAL_FATAL(build(&s, NULL, 0, &c, &p), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.text, "\n(allow network*)\n"));
        CU_ASSERT_PTR_NULL(strstr(p.text, "(deny network"));
        sb_profile_done(&p);
}

UNIT_SUITE(fs_seatbelt_profile,
           UNIT_TEST(test_golden_default),
           UNIT_TEST(test_golden_read_only),
           UNIT_TEST(test_golden_proxy),
           UNIT_TEST(test_golden_islands),
           UNIT_TEST(test_golden_hidden),
           UNIT_TEST(test_golden_darwin),
           UNIT_TEST(test_hostile_workspace),
           UNIT_TEST(test_canon),
           UNIT_TEST(test_mach_names),
           UNIT_TEST(test_refuses_bad_input),
           UNIT_TEST(test_keeps),
           UNIT_TEST(test_duplicates_once),
           UNIT_TEST(test_network_modes));
