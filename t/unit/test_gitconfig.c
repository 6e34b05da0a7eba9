/* SPDX-License-Identifier: MIT */
/*
 * git's config format (core/policy/gitconfig_parse.c), the keys that run
 * code (gitconfig_keys.c) and the files a repository's git reads
 * (protect_git.c).
 *
 * The parser cases each state what the entries are; where git is
 * installed, each is also given to `git config --file F --list -z`, and
 * both must agree on the entries or on the file being rejected: a parser
 * stricter or looser than git would protect the wrong files.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/stk_buf.h"
#include "policy/gitconfig.h"
#include "util/util.h"
#include "unit.h"

/* ---- the parser ------------------------------------------------------------ */

/* Entries as "key=value\n", or "key\n" for a bare key. */
static int collect(const struct gitcfg_item *it, void *userdata)
{
        struct stk_buf *b = userdata;

        stk_buf_adds(b, it->key);
        if (it->value) {
                stk_buf_addc(b, '=');
                stk_buf_adds(b, it->value);
        }
        stk_buf_addc(b, '\n');
        return b->err;
}

/* Our entries, or NULL for a file we reject (*err says where). */
static char *ours(const char *text, size_t len, struct gitcfg_error *err)
{
        struct stk_buf b = { 0 };
        int r = gitcfg_parse(text, len, collect, &b, err);

        if (r < 0) {
                stk_buf_done(&b);
                return NULL;
        }
        return stk_buf_take(&b);
}

static bool have_git(void)
{
        static int known = -1;

        if (known < 0)
                known = system("git --version >/dev/null 2>&1") == 0;
        return known;
}

/* git's entries for the same bytes, in our format; NULL where git rejects
 * the file.  *ran false where git could not be asked. */
static char *gits(const char *text, size_t len, bool *ran)
{
        char file[] = "/tmp/stk-gitcfg-XXXXXX", cmd[256];
        struct stk_buf b = { 0 };
        int fd = mkstemp(file), status, c;
        bool in_value = false;
        FILE *p;

        *ran = false;
        if (fd < 0 || write(fd, text, len) != (ssize_t) len || close(fd) < 0)
                return NULL;
        snprintf(cmd, sizeof(cmd), "HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 git config --file %s --list -z "
                 "2>/dev/null", file);
        p = popen(cmd, "r");
        if (!p) {
                unlink(file);
                return NULL;
        }
        /* -z: "key\nvalue\0", or "key\0" for a bare key */
        while ((c = fgetc(p)) != EOF) {
                if (c == '\n' && !in_value) {
                        stk_buf_addc(&b, '=');
                        in_value = true;
                } else if (c == '\0') {
                        stk_buf_addc(&b, '\n');
                        in_value = false;
                } else {
                        stk_buf_addc(&b, (char) c);
                }
        }
        status = pclose(p);
        unlink(file);
        *ran = true;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                stk_buf_done(&b);
                return NULL;
        }
        return stk_buf_take(&b);
}

/* text parses to want (NULL: rejected, at line:col if given), and git
 * agrees where it is there. */
static void parses_n(const char *text, size_t len, const char *want, unsigned line, unsigned col)
{
        struct gitcfg_error err;
        _cleanup_free_ char *got = ours(text, len, &err), *git = NULL;
        bool ran;

        if (want)
                CHECK(got && streq(got, want), "%s: parsed to [%s], expected [%s]", text, got ? got : "(rejected)",
                      want);
        else
                CHECK(!got && err.why && (!line || (err.line == line && err.col == col)),
                      "%s: expected a rejection at %u:%u, got [%s] (at %u:%u: %s)", text, line, col,
                      got ? got : "", err.line, err.col, err.why ? err.why : "");
        if (!have_git())
                return;
        git = gits(text, len, &ran);
        if (!ran)
                return;
        CHECK((git == NULL) == (got == NULL) && (!git || streq(git, got)), "%s: git says [%s], we say [%s]", text,
              git ? git : "(rejected)", got ? got : "(rejected)");
}

static void parses(const char *text, const char *want)
{
        parses_n(text, strlen(text), want, 0, 0);
}

static void rejects(const char *text, unsigned line, unsigned col)
{
        parses_n(text, strlen(text), NULL, line, col);
}

static void test_parse_basics(void)
{
        parses("[core]\n\thooksPath = .githooks\n", "core.hookspath=.githooks\n");
        parses("[CoRe]\nHooksPath=X", "core.hookspath=X\n");                /* no final newline */
        parses("[core] hooksPath = x\n", "core.hookspath=x\n");             /* on the header's line */
        parses("[core]\n\tbare\n\tbare = false\n", "core.bare\ncore.bare=false\n");
        parses("[core]\n\teditor =\n", "core.editor=\n");
        parses("# c\n; c\n[core] # c\n  ; c\n\tpager = less # c\n", "core.pager=less\n");
        parses("\xef\xbb\xbf[a]\r\nb = c\r\n", "a.b=c\n");                  /* BOM, CRLF */
        parses("", "");
        parses("[a]\n[b]\nk-1 = v\n", "b.k-1=v\n");
        parses("[a.b.c]\nk = v\n", "a.b.c.k=v\n");
}

static void test_parse_subsections(void)
{
        parses("[filter \"LFS\"]\n\tclean = a\n", "filter.LFS.clean=a\n");  /* kept as written */
        parses("[filter.LFS]\n\tclean = a\n", "filter.lfs.clean=a\n");      /* old style: lowercased */
        parses("[a \"x\\\"y\\\\z\"]\nk = v\n", "a.x\"y\\z.k=v\n");
        parses("[a \"x\\qy\"]\nk = v\n", "a.xqy.k=v\n");                   /* \q is q */
        parses("[a \"with.dots and spaces\"]\nk = v\n", "a.with.dots and spaces.k=v\n");
        parses("[includeIf \"gitdir:~/work/\"]\npath = w.inc\n", "includeif.gitdir:~/work/.path=w.inc\n");
        parses("[a   \"s\"]\nk = v\n", "a.s.k=v\n");
        rejects("[a \"s\" ]\nk = v\n", 1, 7);
        rejects("[a \"s\nk = v\n", 1, 6);
        rejects("[a s]\n", 1, 4);
        rejects("[a\n", 1, 3);
        rejects("[a_b]\n", 1, 3);
}

static void test_parse_values(void)
{
        parses("[a]\nk = \"x  y\" z # c\n", "a.k=x  y z\n");
        parses("[a]\nk = x \t y   \n", "a.k=x   y\n");        /* each blank a space, trailing gone */
        parses("[a]\nk = \" lead\"\n", "a.k= lead\n");
        parses("[a]\nk = \"a\\\"b\"\n", "a.k=a\"b\n");
        parses("[a]\nk = a\\tb\\nc\\\\d\\be\n", "a.k=a\tb\nc\\d\be\n");
        parses("[a]\nk = \"#not; a comment\"\n", "a.k=#not; a comment\n");
        parses("[a]\nk = one \\\n two\n", "a.k=one  two\n");   /* continuation */
        parses("[a]\nk = \"one \\\n two\"\n", "a.k=one  two\n");
        parses("[a]\nk = v\\", "a.k=v\n");                      /* a backslash at the very end */
        parses("[a]\nk = \"\" x\n", "a.k=x\n");
        parses("[a]\nk = ./x\"; rm -rf /\"\n", "a.k=./x; rm -rf /\n");
        rejects("[a]\nk = \"open\n", 2, 10);
        rejects("[a]\nk = a\\qb\n", 2, 7);
        rejects("[a]\nk # c\n", 2, 3);
        rejects("[a]\nk v\n", 2, 3);
        parses("k = v\n", "k=v\n");                     /* no section: git takes it, nothing reads it */
        rejects("[a]\n1k = v\n", 2, 1);
        rejects("[a]\n-k = v\n", 2, 1);
        rejects("[]\nk = v\n", 1, 2);
        parses("[ \"s\"]\nk = v\n", ".s.k=v\n");
        parses("[a.]\nk=v\n", "a..k=v\n");
        parses("[a \"s\"]x = 1\n[a]k=1\n", "a.s.x=1\na.k=1\n");
}

/* A NUL ends the string git's callbacks see: the value, or the key (git
 * builds section.sub.name in one buffer). */
static void test_parse_nul(void)
{
        static const char value[] = "[a]\nk = ./x\0junk\n";
        static const char sub[] = "[core \"hookspath\0\"]\nk = .githooks\n";
        static const char key[] = "[a]\nk\0 = v\n";

        parses_n(value, sizeof(value) - 1, "a.k=./x\n", 0, 0);
        parses_n(sub, sizeof(sub) - 1, "core.hookspath=.githooks\n", 0, 0);
        parses_n(key, sizeof(key) - 1, NULL, 2, 2);
}

static void test_split_key(void)
{
        struct gitcfg_key k;

        CU_ASSERT(gitcfg_split_key("core.hookspath", &k) == 0);
        CU_ASSERT(k.section_len == 4 && !k.sub && streq(k.name, "hookspath"));
        CU_ASSERT(gitcfg_split_key("filter.a.b.clean", &k) == 0);
        CU_ASSERT(k.section_len == 6 && k.sub_len == 3 && strncmp(k.sub, "a.b", 3) == 0 && streq(k.name, "clean"));
        CU_ASSERT(gitcfg_split_key("nodot", &k) == -EINVAL);
}

/* ---- the keys -------------------------------------------------------------- */

static void test_classify(void)
{
        static const struct { const char *key, *value; enum gitcfg_kind kind; } cases[] = {
                { "core.hookspath", ".githooks", GITCFG_DIR },
                { "core.fsmonitor", "true", GITCFG_BOOL_OR_COMMAND },
                { "filter.lfs.clean", "git-lfs clean -- %f", GITCFG_COMMAND },
                { "filter.clean", "x", GITCFG_NOT_CODE },          /* no subsection: not a filter */
                { "diff.external", "x", GITCFG_COMMAND },
                { "diff.x.textconv", "x", GITCFG_COMMAND },
                { "merge.x.driver", "x", GITCFG_COMMAND },
                { "credential.helper", "store", GITCFG_COMMAND },
                { "credential.https://x.helper", "store", GITCFG_COMMAND },
                { "alias.st", "status", GITCFG_BANG },
                { "include.path", "x", GITCFG_INCLUDE },
                { "includeif.onbranch:main.path", "x", GITCFG_INCLUDE },
                { "core.worktree", "..", GITCFG_WORKTREE },
                { "foo.bar.cmd", "x", GITCFG_COMMAND },            /* git's naming convention */
                { "user.name", "./odd", GITCFG_COMMAND },          /* a value that looks like a path */
                { "user.name", "A Person", GITCFG_NOT_CODE },
        };
        const struct gitcfg_rule *rule;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                enum gitcfg_kind k = gitcfg_classify(cases[i].key, cases[i].value, &rule);
                CHECK(k == cases[i].kind, "%s = %s: kind %d, expected %d", cases[i].key, cases[i].value, k,
                      cases[i].kind);
        }
        for (const struct gitcfg_rule *r = gitcfg_rules; r->section; r++)
                CHECK(r->reason && r->reason[0] && r->name, "row %s.%s has a reason", r->section, r->name);
}

/* The words of a value that name files, as "w1|w2|". */
static bool exists_if_listed(const char *word, void *userdata)
{
        return streq(word, "exists.sh");
}

static int add_word(const char *word, bool sure, void *userdata)
{
        stk_buf_adds(userdata, word);
        stk_buf_addc(userdata, '|');
        return 0;
}

static void value_names(const char *key, const char *value, const char *want)
{
        struct stk_buf b = { 0 };
        _cleanup_free_ char *got = NULL;

        CU_ASSERT(gitcfg_value_paths(key, value, exists_if_listed, add_word, &b) == 0);
        got = stk_buf_take(&b);
        CHECK(got && streq(got, want), "%s = %s: [%s], expected [%s]", key, value, got ? got : "", want);
}

static void test_value_paths(void)
{
        value_names("core.hookspath", ".githooks", ".githooks|");
        value_names("core.hookspath", "~/hooks", "~/hooks|");
        value_names("core.fsmonitor", "true", "");
        value_names("core.fsmonitor", ".git/hooks/fsmonitor-watchman", ".git/hooks/fsmonitor-watchman|");
        value_names("core.pager", "less -R", "");
        value_names("filter.x.clean", "./tools/clean.sh --in %f", "./tools/clean.sh|");
        value_names("filter.x.clean", "git-lfs clean -- %f", "");
        value_names("filter.x.clean", "sh scripts/x.sh", "scripts/x.sh|");
        value_names("filter.x.clean", "python3 -u x.py %f", "x.py|");       /* absent, but a script */
        value_names("filter.x.clean", "python3 -m tool x.txt", "");
        value_names("filter.x.clean", "cat exists.sh other", "exists.sh|");
        value_names("diff.x.textconv", "env A=1 B=2 ./bin/conv", "./bin/conv|");
        value_names("diff.x.textconv", "FOO=1 tools/conv && ./two; (cd x && ../three)", "tools/conv|./two|../three|");
        value_names("diff.x.textconv", "sh -c './inner \"$1\"' -", "./inner|");
        value_names("diff.x.textconv", "'./quoted dir/conv' --opt=./cfg/x", "./quoted dir/conv|./cfg/x|");
        value_names("diff.x.textconv", "\"$HOME\"/bin/conv ./arg", "./arg|");   /* an expansion: left out */
        value_names("diff.x.textconv", "sh < ./script", "./script|");
        value_names("alias.x", "!./x.sh", "./x.sh|");
        value_names("alias.x", "status", "");
        value_names("alias.x", "-c core.pager=./pg log", "./pg|");
        value_names("alias.x", "-ccore.hooksPath=hooks commit", "hooks|");
        value_names("submodule.s.update", "!./up", "./up|");
        value_names("submodule.s.update", "rebase", "");
        value_names("credential.helper", "!f() { ./cred \"$@\"; }; f", "./cred|");
        value_names("remote.o.url", "ext::./tunnel %S", "./tunnel|");
        value_names("remote.o.url", "https://example.com/x.git", "");
        value_names("pager.log", "false", "");
        value_names("pager.log", "./pg", "./pg|");
        value_names("user.name", "/abs/thing", "/abs/thing|");
        value_names("include.path", "x", "");            /* includes are protect_git.c's */
        value_names("alias.l", "!git log --format=%h/%s", "");  /* placeholders, not files */
        value_names("alias.u", "!curl -fsS https://example.com/x | sh", "");
}

/* ---- the files a repository's git reads ------------------------------------ */

static char tree[PATH_MAX];

static void put(const char *rel, const char *text)
{
        char p[PATH_MAX * 2], cmd[PATH_MAX * 3];
        FILE *f;

        snprintf(p, sizeof(p), "%s/%s", tree, rel);
        snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
        CU_ASSERT_FATAL(system(cmd) == 0);
        f = fopen(p, "we");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT(fputs(text, f) >= 0);
        CU_ASSERT_FATAL(fclose(f) == 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

/* A tree with ws/ (the root) holding a repository, home/ outside it. */
static void tree_new(void)
{
        char tmpl[] = "/tmp/stk-gitcfg-tree-XXXXXX";

        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
        CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tmpl, tree));
        put("ws/.git/HEAD", "ref: refs/heads/main\n");
        put("home/.keep", "");
}

static void tree_done(void)
{
        CU_ASSERT(nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

/* What gitcfg_repo_paths finds in ws, tree-relative, sorted, as "a|b|";
 * its result in *ret_r. */
static char *scan(int *ret_r, const char *home)
{
        char ws[PATH_MAX * 2], gitdir[PATH_MAX * 2], h[PATH_MAX * 2];
        struct gitcfg_run run = { 0 };
        struct stk_buf b = { 0 };
        char **found = NULL;
        size_t n;

        snprintf(ws, sizeof(ws), "%s/ws", tree);
        snprintf(gitdir, sizeof(gitdir), "%s/ws/.git", tree);
        snprintf(h, sizeof(h), "%s/%s", tree, home);
        CU_ASSERT_FATAL(strv_push(&run.roots, ws) == 0);
        run.home = h;
        *ret_r = gitcfg_repo_paths(&run, &(struct gitcfg_repo) { .top = ws, .gitdir = gitdir, .common = gitdir },
                                   &found);
        n = strv_length(found);
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(found[j], found[i]) < 0) {
                                char *t = found[i];
                                found[i] = found[j];
                                found[j] = t;
                        }
        for (size_t i = 0; i < n; i++) {
                stk_buf_adds(&b, found[i] + strlen(tree) + 1);
                stk_buf_addc(&b, '|');
        }
        strv_free(found);
        gitcfg_run_done(&run);
        return stk_buf_take(&b);
}

static void expect_scan(int r, const char *want, const char *what)
{
        int got_r;
        _cleanup_free_ char *got = scan(&got_r, "home");

        CHECK(got_r == r && got && streq(got, want), "%s: %d [%s], expected %d [%s]", what, got_r, got, r, want);
}

static void test_repo_includes(void)
{
        char inc[PATH_MAX * 3];

        tree_new();
        put("ws/.git/config", "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../cfg/one.inc\n"
                              "[includeIf \"onbranch:nope\"]\n\tpath = ../cfg/two.inc\n");
        put("ws/cfg/one.inc", "[filter \"x\"]\n\tclean = ./tools/clean.sh\n[include]\n\tpath = nested.inc\n");
        put("ws/cfg/nested.inc", "[diff \"y\"]\n\ttextconv = ./tools/conv\n");
        /* two.inc does not exist: protected all the same (else the command makes it) */
        expect_scan(0, "ws/.githooks|ws/cfg/nested.inc|ws/cfg/one.inc|ws/cfg/two.inc|ws/tools/clean.sh|"
                       "ws/tools/conv|", "includes, relative to the including file");

        /* an include outside the roots is read, not listed; ~/ is $HOME */
        snprintf(inc, sizeof(inc), "[include]\n\tpath = ~/x.inc\n[include]\n\tpath = %s/ws/abs.inc\n", tree);
        put("ws/.git/config", inc);
        put("home/x.inc", "[core]\n\tfsmonitor = ./fsm\n");
        expect_scan(0, "ws/abs.inc|ws/fsm|", "~/ and an absolute include");

        /* a loop stops at git's depth, said once, and the repository is kept whole */
        put("ws/.git/config", "[include]\n\tpath = loop.inc\n");
        put("ws/.git/loop.inc", "[include]\n\tpath = loop.inc\n");
        expect_scan(1, "ws/.git/loop.inc|", "an include loop");
        tree_done();
}

static void test_repo_sources(void)
{
        tree_new();
        /* the global files name paths relative to the repository */
        put("home/.gitconfig", "[core]\n\thooksPath = .team-hooks\n");
        put("home/.config/git/config", "[alias]\n\tx = !scripts/x.sh\n");
        put("ws/.git/config.worktree", "[core]\n\tsshCommand = ./ssh-wrap\n");
        expect_scan(0, "ws/.team-hooks|ws/scripts/x.sh|ws/ssh-wrap|", "global, XDG and config.worktree");

        /* core.worktree moves where relative paths are taken from */
        put("ws/.git/config", "[core]\n\tworktree = ../sub\n");
        expect_scan(0, "ws/.team-hooks|ws/scripts/x.sh|ws/ssh-wrap|ws/sub/.team-hooks|ws/sub/scripts/x.sh|"
                       "ws/sub/ssh-wrap|", "core.worktree");

        /* a value naming the root itself is never protected (the workspace read-only) */
        put("ws/.git/config", "[core]\n\thooksPath = .\n");
        put("home/.gitconfig", "");
        put("home/.config/git/config", "");
        put("ws/.git/config.worktree", "");
        expect_scan(0, "", "the root itself");
        tree_done();
}

static void test_repo_fail_closed(void)
{
        tree_new();
        put("ws/.git/config", "[core]\n\thooksPath = \"open\n");
        expect_scan(1, "", "a config git would not read");
        put("ws/.git/config", "");
        put("ws/.git/config.worktree/x", "");              /* a directory where a file should be */
        expect_scan(1, "", "a config that is a directory");
        tree_done();
}

UNIT_SUITE(test_gitconfig,
           UNIT_TEST(test_parse_basics),
           UNIT_TEST(test_parse_subsections),
           UNIT_TEST(test_parse_values),
           UNIT_TEST(test_parse_nul),
           UNIT_TEST(test_split_key),
           UNIT_TEST(test_classify),
           UNIT_TEST(test_value_paths),
           UNIT_TEST(test_repo_includes),
           UNIT_TEST(test_repo_sources),
           UNIT_TEST(test_repo_fail_closed))
