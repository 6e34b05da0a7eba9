/* SPDX-License-Identifier: MIT */
/*
 * The remembered-approvals file (lib/approvals/stk_approvals*.c): keys and
 * their round trip, the text format, the atomic replace, the writer lock,
 * the refusal of a file somebody else could write, revoke.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approvals/stk_approvals.h"
#include "unit.h"

static char tmp[64];

static void make_tmp(void)
{
        snprintf(tmp, sizeof(tmp), "/tmp/stk-appr-unit.XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
}

static void rm_tmp(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        CU_ASSERT_EQUAL(system(cmd), 0);
}

static const char *at(const char *rel)
{
        static char buf[4][256];
        static int k;

        k = (k + 1) % 4;
        snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, rel);
        return buf[k];
}

static char *slurp(const char *path)
{
        static char buf[8192];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

        if (fd >= 0)
                close(fd);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

static void put(const char *path, const char *text, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        CU_ASSERT_TRUE_FATAL(fd >= 0);
        CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        CU_ASSERT_EQUAL(fchmod(fd, mode), 0);
        close(fd);
}

static void free_words(char **w)
{
        for (size_t i = 0; w && w[i]; i++)
                free(w[i]);
        free(w);
}

/* ---- keys ------------------------------------------------------------------ */

static void expect_key(const char *const *argv, const char *want)
{
        char *key = NULL, **back = NULL;
        size_t i;

        CU_ASSERT_EQUAL_FATAL(stk_appr_command_key(argv, &key), 0);
        if (want)
                CU_ASSERT_STRING_EQUAL(key, want);
        for (const char *c = key; *c; c++)
                CU_ASSERT_TRUE(*c >= 0x20 && *c < 0x7f); /* one line, nothing a terminal interprets */
        CU_ASSERT_EQUAL_FATAL(stk_appr_split_command_key(key, &back), 0);
        for (i = 0; argv[i]; i++)
                CU_ASSERT_STRING_EQUAL(back[i], argv[i]);
        CU_ASSERT_PTR_NULL(back[i]);
        free_words(back);
        free(key);
}

static void test_command_key_round_trip(void)
{
        expect_key((const char *[]) { "git", "push", "origin", "main", NULL }, "git push origin main");
        expect_key((const char *[]) { "echo", "it's", NULL }, "echo 'it'\\''s'");
        expect_key((const char *[]) { "sh", "-c", "rm -rf *; echo $HOME", NULL }, "sh -c 'rm -rf *; echo $HOME'");
        expect_key((const char *[]) { "printf", "", NULL }, "printf ''");
        expect_key((const char *[]) { "echo", "a\nb", NULL }, "echo $'a\\nb'");
        expect_key((const char *[]) { "echo", "\x1b[2Jhidden", NULL }, "echo $'\\x1b[2Jhidden'");
        expect_key((const char *[]) { "echo", "\xe2\x80\xae" "txt.exe", NULL }, "echo $'\\xe2\\x80\\xaetxt.exe'");
        expect_key((const char *[]) { "x", "back\\slash", "tab\there", "quote'\x01", NULL }, NULL);
        expect_key((const char *[]) { "a=b", "--x=1,2:3", "@%+./-_", NULL }, "a=b --x=1,2:3 @%+./-_");
}

static void test_command_key_canonical_only(void)
{
        static const char *const bad[] = {
                "", "git  push", "git push ", " git", "'git' push", "g\\it", "a\"b", "$'\\x00'", "$'\\q'",
                "'unterminated", "$'unterminated", "echo $'plain'", "x $'\\x4'", "a;b", "a\tb",
        };
        static const char *const empty[] = { NULL };
        char **w = NULL, *key = NULL;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                CU_ASSERT_EQUAL(stk_appr_split_command_key(bad[i], &w), -EINVAL);
                if (w)
                        fprintf(stderr, "accepted: [%s]\n", bad[i]);
        }
        CU_ASSERT_EQUAL(stk_appr_command_key(empty, &key), -EINVAL);
}

static void test_egress_key(void)
{
        static const struct { const char *host; uint16_t port; const char *want; } ok[] = {
                { "Example.COM", 443, "example.com:443" }, { "127.0.0.1", 8080, "127.0.0.1:8080" },
                { "::1", 80, "[::1]:80" }, { "[FE80::1]", 22, "[fe80::1]:22" }, { "my_host-1.local", 1, "my_host-1.local:1" },
        };
        static const struct { const char *host; uint16_t port; } bad[] = {
                { "a b", 1 }, { "", 1 }, { "example.com", 0 }, { "evil\x1b", 1 }, { "x/y", 1 }, { "[::1", 1 },
                { "a:b:zz", 1 }, { NULL, 1 },
        };
        char *k;

        for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
                CU_ASSERT_EQUAL_FATAL(stk_appr_egress_key(ok[i].host, ok[i].port, &k), 0);
                CU_ASSERT_STRING_EQUAL(k, ok[i].want);
                CU_ASSERT_EQUAL(stk_appr_key_valid(STK_APPR_EGRESS, k), 0);
                free(k);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                CU_ASSERT_EQUAL(stk_appr_egress_key(bad[i].host, bad[i].port, &k), -EINVAL);
        CU_ASSERT_EQUAL(stk_appr_key_valid(STK_APPR_EGRESS, "example.com:0443"), -EINVAL);
        CU_ASSERT_EQUAL(stk_appr_key_valid(STK_APPR_EGRESS, "example.com:65536"), -EINVAL);
        CU_ASSERT_EQUAL(stk_appr_key_valid(STK_APPR_EGRESS, "Example.com:1"), -EINVAL);
        CU_ASSERT_EQUAL(stk_appr_key_valid(STK_APPR_EGRESS, "::1:80"), -EINVAL);
}

static void test_printable(void)
{
        char *s;

        CU_ASSERT_EQUAL_FATAL(stk_appr_printable("ok \x1b]0;x\x07\\", &s), 0);
        CU_ASSERT_STRING_EQUAL(s, "ok \\x1b]0;x\\x07\\x5c");
        free(s);
}

/* ---- the text --------------------------------------------------------------- */

static void test_parse_format_round_trip(void)
{
        struct stk_appr_list l = { 0 }, back = { 0 };
        char *text = NULL, *again = NULL;

        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "git push origin main", true), 0);
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_EGRESS, "example.com:443", false), 0);
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "echo $'a\\nb'", false), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_format(&l, &text), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nallow command git push origin main\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\ndeny egress example.com:443\n"));
        CU_ASSERT_EQUAL(text[0], '#'); /* the header says what the file is */
        CU_ASSERT_EQUAL_FATAL(stk_appr_parse(text, strlen(text), &back, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(back.n, 3);
        for (size_t i = 0; i < 3; i++) {
                CU_ASSERT_EQUAL(back.v[i].allow, l.v[i].allow);
                CU_ASSERT_EQUAL(back.v[i].kind, l.v[i].kind);
                CU_ASSERT_STRING_EQUAL(back.v[i].key, l.v[i].key);
        }
        CU_ASSERT_EQUAL_FATAL(stk_appr_format(&back, &again), 0);
        CU_ASSERT_STRING_EQUAL(again, text);
        /* An unrememberable key is refused, not written. */
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "git  push", true), -EINVAL);
        CU_ASSERT_EQUAL(l.n, 3);
        free(text);
        free(again);
        stk_appr_list_free(&l);
        stk_appr_list_free(&back);
}

static void test_parse_rejects(void)
{
        static const struct { const char *text; unsigned line; } bad[] = {
                { "allow command ls\nmaybe command ls\n", 2 },
                { "# c\n\nallow command ls\nallow  command ls\n", 4 },
                { "allow cmd ls\n", 1 },
                { "deny egress example.com\n", 1 },
                { "allow command git  push\n", 1 },
                { "allow command ls \n", 1 },
                { "allow command ls\r\n", 1 },
                { "allow command\n", 1 },
        };
        struct stk_appr_list l = { 0 };
        unsigned line;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                line = 0;
                CU_ASSERT_EQUAL(stk_appr_parse(bad[i].text, strlen(bad[i].text), &l, &line), -EBADMSG);
                CU_ASSERT_EQUAL(line, bad[i].line);
        }
        CU_ASSERT_EQUAL(stk_appr_parse("allow command ls\0x", 18, &l, &line), -EBADMSG);
        /* Comments, blank lines and a missing last newline are fine. */
        CU_ASSERT_EQUAL_FATAL(stk_appr_parse("# x\n\ndeny command ls", 20, &l, NULL), 0);
        CU_ASSERT_EQUAL(l.n, 1);
        stk_appr_list_free(&l);
}

static void test_set_decide_remove(void)
{
        static const char both[] = "deny command ls\nallow command ls\n";
        struct stk_appr_list l = { 0 };

        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", true), STK_APPR_NONE);
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "ls", true), 0);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", true), STK_APPR_ALLOW);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", false), STK_APPR_NONE);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls -l", true), STK_APPR_NONE);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_EGRESS, "ls", true), STK_APPR_NONE);
        /* set replaces: one line per key */
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "ls", false), 0);
        CU_ASSERT_EQUAL(l.n, 1);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", true), STK_APPR_DENY);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", false), STK_APPR_DENY);
        stk_appr_list_free(&l);
        /* A hand-edited file with both: DENY wins, in either order. */
        CU_ASSERT_EQUAL_FATAL(stk_appr_parse(both, strlen(both), &l, NULL), 0);
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", true), STK_APPR_DENY);
        /* revoke: by index, order kept, out of range refused */
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_EGRESS, "a.example:1", true), 0);
        CU_ASSERT_EQUAL(stk_appr_list_remove(&l, 3), -ENOENT);
        CU_ASSERT_EQUAL(stk_appr_list_remove(&l, 0), 0);
        CU_ASSERT_EQUAL_FATAL(l.n, 2);
        CU_ASSERT_TRUE(l.v[0].allow && l.v[0].kind == STK_APPR_COMMAND);
        CU_ASSERT_STRING_EQUAL(l.v[1].key, "a.example:1");
        CU_ASSERT_EQUAL(stk_appr_decide(&l, STK_APPR_COMMAND, "ls", true), STK_APPR_ALLOW);
        stk_appr_list_free(&l);
}

/* ---- paths ------------------------------------------------------------------- */

static void test_paths(void)
{
        char *p = NULL, *save = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;

        make_tmp();
        setenv("XDG_STATE_HOME", "/x/state", 1);
        CU_ASSERT_EQUAL(stk_appr_default_path("/home/u", &p), 0);
        CU_ASSERT_STRING_EQUAL(p, "/x/state/stockade/approvals");
        free(p);
        setenv("XDG_STATE_HOME", "relative", 1); /* invalid per the XDG spec: ignored */
        CU_ASSERT_EQUAL(stk_appr_default_path("/home/u", &p), 0);
        CU_ASSERT_STRING_EQUAL(p, "/home/u/.local/state/stockade/approvals");
        free(p);
        if (save)
                setenv("XDG_STATE_HOME", save, 1);
        else
                unsetenv("XDG_STATE_HOME");
        free(save);
        /* canonical: symlinks of the existing part resolved, the rest kept */
        CU_ASSERT_EQUAL(mkdir(at("real"), 0700), 0);
        CU_ASSERT_EQUAL(symlink(at("real"), at("link")), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_canonical(at("link/new/approvals"), &p), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(p, "/real/new/approvals"));
        CU_ASSERT_PTR_NULL(strstr(p, "/link"));
        free(p);
        CU_ASSERT_EQUAL(stk_appr_canonical("relative/x", &p), -EINVAL);
        rm_tmp();
}

/* ---- the file ----------------------------------------------------------------- */

static void test_atomic_replace(void)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        struct stat before, after, dir;
        char buf[4096] = "", cmd[256];
        int old_fd;

        make_tmp();
        /* created with its directories, private */
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("a/b/approvals"), true, &s), 0);
        CU_ASSERT_EQUAL(stat(at("a/b"), &dir), 0);
        CU_ASSERT_EQUAL(dir.st_mode & 0777, 0700);
        CU_ASSERT_TRUE(s.trusted);
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_COMMAND, "ls", true), 0);
        CU_ASSERT_EQUAL(stk_appr_write(&s, &l), -ENOLCK); /* a writer holds the lock */
        CU_ASSERT_EQUAL_FATAL(stk_appr_lock(&s, 1000), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_write(&s, &l), 0);
        CU_ASSERT_EQUAL_FATAL(stat(at("a/b/approvals"), &before), 0);
        CU_ASSERT_EQUAL(before.st_mode & 0777, 0600);
        old_fd = open(at("a/b/approvals"), O_RDONLY | O_CLOEXEC);
        CU_ASSERT_TRUE_FATAL(old_fd >= 0);
        /* replace: a new inode; a reader of the old one still sees it whole */
        CU_ASSERT_EQUAL(stk_appr_list_set(&l, STK_APPR_EGRESS, "example.com:443", false), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_write(&s, &l), 0);
        CU_ASSERT_EQUAL_FATAL(stat(at("a/b/approvals"), &after), 0);
        CU_ASSERT_NOT_EQUAL(before.st_ino, after.st_ino);
        CU_ASSERT_TRUE(read(old_fd, buf, sizeof(buf) - 1) > 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nallow command ls\n"));
        CU_ASSERT_PTR_NULL(strstr(buf, "example"));
        CU_ASSERT_PTR_NOT_NULL(strstr(slurp(at("a/b/approvals")), "\nallow command ls\ndeny egress example.com:443\n"));
        close(old_fd);
        /* no temp file left behind: only the file and its lock */
        snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'approvals approvals.lock '", at("a/b"));
        CU_ASSERT_EQUAL(system(cmd), 0);
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        /* and it reads back */
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("a/b/approvals"), false, &s), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_read(&s, &l, NULL), 0);
        CU_ASSERT_EQUAL(l.n, 2);
        CU_ASSERT_TRUE(s.trusted);
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        CU_ASSERT_EQUAL(stk_appr_open(at("none/approvals"), false, &s), -ENOENT);
        rm_tmp();
}

static void test_lock(void)
{
        struct stk_appr_store a, b;

        make_tmp();
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("approvals"), true, &a), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("approvals"), true, &b), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_lock(&a, 0), 0);
        /* flock is per open file: a second writer waits, then gives up */
        CU_ASSERT_EQUAL(stk_appr_lock(&b, 100), -ETIMEDOUT);
        CU_ASSERT_EQUAL(b.lockfd, -1);
        stk_appr_close(&a);
        CU_ASSERT_EQUAL(stk_appr_lock(&b, 100), 0);
        /* a lock that is not a regular file is refused */
        stk_appr_close(&b);
        CU_ASSERT_EQUAL(unlink(at("approvals.lock")), 0);
        CU_ASSERT_EQUAL(mkdir(at("approvals.lock"), 0700), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("approvals"), false, &a), 0);
        CU_ASSERT_TRUE(stk_appr_lock(&a, 0) < 0);
        stk_appr_close(&a);
        rm_tmp();
}

/* recall through a file with the given mode; the file holds both kinds */
static void recall_with_mode(mode_t file_mode, mode_t dir_mode, bool want_trusted)
{
        enum stk_appr_decision d;
        bool ignored;
        char why[256];

        CU_ASSERT_EQUAL(chmod(tmp, dir_mode), 0);
        put(at("approvals"), "allow command ls\ndeny command rm -rf /\n", file_mode);
        CU_ASSERT_EQUAL(stk_appr_recall(at("approvals"), STK_APPR_COMMAND, "ls", &d, &ignored, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(d, want_trusted ? STK_APPR_ALLOW : STK_APPR_NONE);
        CU_ASSERT_EQUAL(ignored, !want_trusted);
        if (!want_trusted)
                CU_ASSERT_PTR_NOT_NULL(strstr(why, tmp));
        /* a remembered DENY applies whatever the trust */
        CU_ASSERT_EQUAL(stk_appr_recall(at("approvals"), STK_APPR_COMMAND, "rm -rf /", &d, &ignored, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(d, STK_APPR_DENY);
        /* and nothing is written into an untrusted one */
        CU_ASSERT_EQUAL(stk_appr_remember(at("approvals"), STK_APPR_COMMAND, "id", true, why, sizeof(why)),
                        want_trusted ? 0 : -EPERM);
        CU_ASSERT_EQUAL(strstr(slurp(at("approvals")), "allow command id") != NULL, want_trusted);
        CU_ASSERT_EQUAL(chmod(tmp, 0700), 0);
}

static void test_insecure_refused(void)
{
        enum stk_appr_decision d;
        bool ignored;
        char why[256];

        make_tmp();
        recall_with_mode(0600, 0700, true);
        recall_with_mode(0620, 0700, false);   /* group-writable file */
        recall_with_mode(0602, 0700, false);   /* other-writable file */
        recall_with_mode(0600, 0770, false);   /* group-writable directory */
        recall_with_mode(0600, 01777, false);  /* a shared /tmp-like directory */
        /* a symlink is not followed */
        put(at("elsewhere"), "allow command ls\n", 0600);
        CU_ASSERT_EQUAL(unlink(at("approvals")), 0);
        CU_ASSERT_EQUAL(symlink(at("elsewhere"), at("approvals")), 0);
        CU_ASSERT_EQUAL(stk_appr_recall(at("approvals"), STK_APPR_COMMAND, "ls", &d, &ignored, why, sizeof(why)), -ELOOP);
        CU_ASSERT_EQUAL(d, STK_APPR_NONE);
        /* a malformed file: nothing from it, and the line is named */
        CU_ASSERT_EQUAL(unlink(at("approvals")), 0);
        put(at("approvals"), "allow command ls\nallow everything\n", 0600);
        CU_ASSERT_EQUAL(stk_appr_recall(at("approvals"), STK_APPR_COMMAND, "ls", &d, &ignored, why, sizeof(why)), -EBADMSG);
        CU_ASSERT_EQUAL(d, STK_APPR_NONE);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "approvals:2:"));
        CU_ASSERT_EQUAL(stk_appr_remember(at("approvals"), STK_APPR_COMMAND, "id", true, why, sizeof(why)), -EBADMSG);
        /* another owner (root can make one) */
        if (geteuid() == 0) {
                put(at("approvals"), "allow command ls\n", 0600);
                CU_ASSERT_EQUAL(chown(at("approvals"), 65534, 65534), 0);
                CU_ASSERT_EQUAL(stk_appr_recall(at("approvals"), STK_APPR_COMMAND, "ls", &d, &ignored, why, sizeof(why)), 0);
                CU_ASSERT_EQUAL(d, STK_APPR_NONE);
                CU_ASSERT_TRUE(ignored);
                CU_ASSERT_PTR_NOT_NULL(strstr(why, "belongs to uid 65534"));
        } else
                fprintf(stderr, "skip: a file of another owner needs root\n");
        rm_tmp();
}

static void test_remember_then_revoke(void)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        enum stk_appr_decision d;
        bool ignored;
        char why[256];

        make_tmp();
        CU_ASSERT_EQUAL(stk_appr_remember(at("st/approvals"), STK_APPR_COMMAND, "git push", true, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(stk_appr_remember(at("st/approvals"), STK_APPR_EGRESS, "example.com:443", false, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(stk_appr_remember(at("st/approvals"), STK_APPR_COMMAND, "not  canonical", true, why, sizeof(why)),
                        -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(slurp(at("st/approvals")), "\nallow command git push\ndeny egress example.com:443\n"));
        /* revoke the first, the way `stockade approvals revoke 1` does */
        CU_ASSERT_EQUAL_FATAL(stk_appr_open(at("st/approvals"), false, &s), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_lock(&s, 1000), 0);
        CU_ASSERT_EQUAL_FATAL(stk_appr_read(&s, &l, NULL), 0);
        CU_ASSERT_EQUAL(stk_appr_list_remove(&l, 0), 0);
        CU_ASSERT_EQUAL(stk_appr_write(&s, &l), 0);
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        CU_ASSERT_EQUAL(stk_appr_recall(at("st/approvals"), STK_APPR_COMMAND, "git push", &d, &ignored, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(d, STK_APPR_NONE);
        CU_ASSERT_EQUAL(stk_appr_recall(at("st/approvals"), STK_APPR_EGRESS, "example.com:443", &d, &ignored, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(d, STK_APPR_DENY);
        rm_tmp();
}

UNIT_SUITE(approvals_file,
           UNIT_TEST(test_command_key_round_trip),
           UNIT_TEST(test_command_key_canonical_only),
           UNIT_TEST(test_egress_key),
           UNIT_TEST(test_printable),
           UNIT_TEST(test_parse_format_round_trip),
           UNIT_TEST(test_parse_rejects),
           UNIT_TEST(test_set_decide_remove),
           UNIT_TEST(test_paths),
           UNIT_TEST(test_atomic_replace),
           UNIT_TEST(test_lock),
           UNIT_TEST(test_insecure_refused),
           UNIT_TEST(test_remember_then_revoke))
