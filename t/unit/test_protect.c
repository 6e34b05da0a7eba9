/* SPDX-License-Identifier: MIT */
/*
 * core_protect_paths (core/policy/protect.c) on temporary trees: each test
 * builds what a workspace can hold (repositories, pointers, submodules,
 * junk a command left) and asserts the exact list of protected paths, as a
 * set, for a policy built here the way core_policy_load leaves one
 * (canonical writable roots, names relative to them).
 *
 * Every run is in a child process: the unreadable cases need a user that
 * permissions bind (root reads a chmod 000 directory, so as root the child
 * becomes nobody), a pointer that would block must fail the test rather
 * than hang it (alarm), and the messages on stderr are kept for asserting.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/gitconfig.h"
#include "policy/policy.h"
#include "util/util.h"
#include "unit.h"

#define NOBODY 65534
#define NO_RESULT (-100000) /* the child did not say: killed, or it could not run */

/* protect.c's built-in names (protect_defaults), in its order. */
static const char *const defaults[] = {
        ".stockade.yaml", ".gitmodules", ".husky", ".pre-commit-config.yaml", ".envrc", ".vscode", ".idea",
        ".devcontainer", ".mcp.json", ".claude", ".cursor", ".gemini", ".gitconfig", ".ripgreprc", ".bashrc",
        ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", NULL,
};

/* ---- the tree --------------------------------------------------------- */

static char tree[PATH_MAX];             /* this test's, canonical */
static char *saved_home, *saved_xdg;

/* tree/rel; a few at once stay valid (a ring). */
static const char *at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *at(const char *fmt, ...)
{
        static char ring[8][PATH_MAX * 2];
        static unsigned next;
        char rel[PATH_MAX];
        char *p = ring[next++ % ELEMENTSOF(ring)];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(rel, sizeof(rel), fmt, ap);
        va_end(ap);
        snprintf(p, PATH_MAX * 2, "%s/%s", tree, rel);
        return p;
}

/* mkdir -p tree/rel */
static void mk(const char *rel)
{
        char p[PATH_MAX * 2];

        snprintf(p, sizeof(p), "%s", at("%s", rel));
        for (char *s = p + strlen(tree) + 1; (s = strchr(s, '/')); s++) {
                *s = '\0';
                CU_ASSERT_FATAL(mkdir(p, 0755) == 0 || errno == EEXIST);
                *s = '/';
        }
        CU_ASSERT_FATAL(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void mk_parent(const char *rel)
{
        char parent[PATH_MAX];
        char *slash;

        snprintf(parent, sizeof(parent), "%s", rel);
        slash = strrchr(parent, '/');
        if (slash) {
                *slash = '\0';
                mk(parent);
        }
}

static void put(const char *rel, const char *text)
{
        FILE *f;

        mk_parent(rel);
        f = fopen(at("%s", rel), "we");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT(fputs(text, f) >= 0);
        CU_ASSERT_FATAL(fclose(f) == 0);
        CU_ASSERT(chmod(at("%s", rel), 0644) == 0);
}

static void ln(const char *target, const char *rel)
{
        mk_parent(rel);
        CU_ASSERT_FATAL(symlink(target, at("%s", rel)) == 0);
}

static void fifo(const char *rel)
{
        mk_parent(rel);
        CU_ASSERT_FATAL(mkfifo(at("%s", rel), 0644) == 0);
}

/* A gitdir git takes for a repository (a HEAD), with its config and hooks. */
static void gitdir(const char *rel)
{
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/HEAD", rel);
        put(p, "ref: refs/heads/main\n");
        snprintf(p, sizeof(p), "%s/config", rel);
        put(p, "[core]\n\trepositoryformatversion = 0\n");
        snprintf(p, sizeof(p), "%s/hooks", rel);
        mk(p);
}

static void repo(const char *rel)
{
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/.git", rel);
        gitdir(p);
}

/* Google's repo tool: the gitdir in .repo/projects/<name>.git, and
 * rel/.git a relative symlink to it. */
static void repo_tool(const char *rel, const char *name)
{
        char target[PATH_MAX] = "", p[PATH_MAX];

        snprintf(p, sizeof(p), ".repo/projects/%s.git", name);
        gitdir(p);
        mk(rel);
        for (const char *c = rel; c; c = strchr(c + 1, '/'))
                strcat(target, "../");
        strcat(target, p);
        snprintf(p, sizeof(p), "%s/.git", rel);
        ln(target, p);
}

static void keep_env(char **saved, const char *name)
{
        const char *v = getenv(name);

        *saved = v ? strdup(v) : NULL;
}

static void restore_env(char **saved, const char *name)
{
        if (*saved)
                setenv(name, *saved, 1);
        else
                unsetenv(name);
        free(*saved);
        *saved = NULL;
}

/* A fresh tree.  HOME points into it (nowhere a root holds, unless a test
 * says so) and XDG_CONFIG_HOME is unset: the user's own would otherwise
 * decide what a run finds. */
static void tree_new(void)
{
        const char *tmp = getenv("TMPDIR");
        char tmpl[PATH_MAX];

        snprintf(tmpl, sizeof(tmpl), "%s/stk-protect-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
        CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tmpl, tree));
        CU_ASSERT_FATAL(chmod(tree, 0755) == 0); /* nobody looks through it too */
        keep_env(&saved_home, "HOME");
        keep_env(&saved_xdg, "XDG_CONFIG_HOME");
        setenv("HOME", at("no-home"), 1);
        unsetenv("XDG_CONFIG_HOME");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void tree_done(void)
{
        CU_ASSERT(nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
        restore_env(&saved_home, "HOME");
        restore_env(&saved_xdg, "XDG_CONFIG_HOME");
}

/* ---- the policy --------------------------------------------------------- */

struct pol {
        struct core_policy p;
        struct core_item write[8], protect[8];
        char roots[8][PATH_MAX * 2], names[8][PATH_MAX];
};

static void pol_init(struct pol *x, enum core_git_protect git, bool protect_defaults)
{
        memset(x, 0, sizeof(*x));
        x->p.git = git;
        x->p.protect_defaults = protect_defaults;
        x->p.write.items = x->write;
        x->p.protect.items = x->protect;
}

/* A writable root: tree/rel, or "/" itself. */
static void pol_write(struct pol *x, const char *rel)
{
        size_t i = x->p.write.n++;

        CU_ASSERT_FATAL(i < ELEMENTSOF(x->write));
        snprintf(x->roots[i], sizeof(x->roots[i]), "%s", streq(rel, "/") ? "/" : at("%s", rel));
        x->write[i].value = x->roots[i];
}

static void pol_protect(struct pol *x, const char *name)
{
        size_t i = x->p.protect.n++;

        CU_ASSERT_FATAL(i < ELEMENTSOF(x->protect));
        snprintf(x->names[i], sizeof(x->names[i]), "%s", name);
        x->protect[i].value = x->names[i];
}

/* ---- a run ---------------------------------------------------------------- */

struct run {
        int r;          /* core_protect_paths' return, or NO_RESULT */
        bool skipped;   /* as nobody, and nobody could not be */
        char **paths;   /* tree-relative where below the tree, else as returned */
        char *log;      /* the child's stderr */
};

static void run_done(struct run *res)
{
        strv_free(res->paths);
        free(res->log);
        *res = (struct run) { 0 };
}

/* In the child: nobody, where we are root (permissions do not bind root);
 * false where that cannot be, or nobody cannot reach the tree. */
static bool become_nobody(void)
{
        if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0))
                return false;
        return access(tree, R_OK | X_OK) == 0;
}

static void child(const struct pol *x, bool as_nobody, FILE *out, FILE *err)
{
        char **v = NULL;
        int r;

        if (dup2(fileno(err), STDERR_FILENO) < 0)
                _exit(2);
        alarm(30); /* a run that blocks (a fifo read) fails the test */
        if (as_nobody && !become_nobody()) {
                fputs("skip\n", out);
                fflush(out);
                _exit(0);
        }
        r = core_protect_paths(&x->p, &v);
        fprintf(out, "%d\n", r);
        for (size_t i = 0; r >= 0 && v[i]; i++)
                fprintf(out, "%s\n", v[i]);
        strv_free(v);
        fflush(out);
        /* exit, not _exit: with SANITIZE=1 the leak check runs at exit, and
         * a leak in the run fails the test (stdout was flushed before the
         * fork: nothing of the parent's is written twice) */
        exit(0);
}

static char *slurp(FILE *f)
{
        char *text = NULL;
        size_t len = 0;

        rewind(f);
        if (getdelim(&text, &len, '\0', f) < 0) {
                free(text);
                text = strdup("");
        }
        return text;
}

/* The child's answer: its return, then one path a line. */
static void parse(struct run *res, char *text)
{
        size_t n = strlen(tree);
        char *line, *save = NULL;

        res->paths = calloc(1, sizeof(char *));
        CU_ASSERT_PTR_NOT_NULL_FATAL(res->paths);
        line = strtok_r(text, "\n", &save);
        if (line && streq(line, "skip"))
                res->skipped = true;
        else if (line)
                res->r = atoi(line);
        while ((line = strtok_r(NULL, "\n", &save))) {
                bool below = strncmp(line, tree, n) == 0 && line[n] == '/';
                CU_ASSERT(strv_push(&res->paths, below ? line + n + 1 : line) == 0);
        }
}

static void run(const struct pol *x, bool as_nobody, struct run *res)
{
        FILE *out = tmpfile(), *err = tmpfile();
        _cleanup_free_ char *text = NULL;
        int status = 0;
        pid_t pid;

        *res = (struct run) { .r = NO_RESULT };
        CU_ASSERT_FATAL(out && err);
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0)
                child(x, as_nobody, out, err);
        CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
        text = slurp(out);
        res->log = slurp(err);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                parse(res, text);
        else
                res->paths = calloc(1, sizeof(char *));
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the run did not finish (status %#x): %s", status,
              res->log);
        fclose(out);
        fclose(err);
}

/* ---- what is expected ----------------------------------------------------- */

/* A list of tree-relative paths: NULL-terminated arguments. */
static char **want(const char *first, ...)
{
        char **v = calloc(1, sizeof(char *));
        va_list ap;

        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        va_start(ap, first);
        for (const char *s = first; s; s = va_arg(ap, const char *))
                CU_ASSERT(strv_push(&v, s) == 0);
        va_end(ap);
        return v;
}

/* What git: surfaces protects of a gitdir that is its own common dir. */
static const char *const surfaces[] = { "hooks", "config", "config.worktree", NULL };

/* dir/name for each of names (NULL-terminated), added to v. */
static void want_in(char ***v, const char *dir, const char *const *names)
{
        for (size_t k = 0; names[k]; k++) {
                char p[PATH_MAX];
                snprintf(p, sizeof(p), "%s/%s", dir, names[k]);
                CU_ASSERT(strv_push(v, p) == 0);
        }
}

/* The built-in names in dir: protect.c's own and the hook runners'
 * configs (protect_git.c). */
static void want_defaults(char ***v, const char *dir)
{
        want_in(v, dir, defaults);
}

/* The hook runners' configs, every name: where a hook can run. */
static void want_runners(char ***v, const char *dir)
{
        want_in(v, dir, gitcfg_runner_names);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void join_lines(char *buf, size_t size, char **v)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; v[i] && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, " %s", v[i]);
}

/* The run returned r and protected exactly the paths of w (freed), each
 * once. */
static void expect(struct run *res, int r, char **w, const char *what)
{
        size_t n = strv_length(w), got = strv_length(res->paths);
        bool same = n == got;
        char gs[900], ws[900];

        qsort(w, n, sizeof(char *), cmp_str);
        qsort(res->paths, got, sizeof(char *), cmp_str);
        for (size_t i = 0; same && i < n; i++)
                same = streq(w[i], res->paths[i]);
        join_lines(gs, sizeof(gs), res->paths);
        join_lines(ws, sizeof(ws), w);
        CHECK(res->r == r, "%s: returned %d, expected %d; log: %s", what, res->r, r, res->log);
        CHECK(same, "%.100s: protected%s\n    expected%s", what, gs, ws);
        strv_free(w);
}

/* Run the policy and expect r and the paths of w. */
static void check_run(const struct pol *x, int r, char **w, const char *what)
{
        struct run res;

        run(x, false, &res);
        expect(&res, r, w, what);
        run_done(&res);
}

static bool logged(const struct run *res, const char *needle, const char *what)
{
        bool found = res->log && strstr(res->log, needle);

        CHECK(found, "%s: no \"%s\" in the messages: %s", what, needle, res->log ? res->log : "");
        return found;
}

/* How many protected paths start with prefix (tree-relative). */
static size_t count_prefix(const struct run *res, const char *prefix)
{
        size_t n = 0;

        for (size_t i = 0; res->paths[i]; i++)
                n += strncmp(res->paths[i], prefix, strlen(prefix)) == 0;
        return n;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_plain_repo(void)
{
        struct pol x;

        tree_new();
        repo("ws");
        mk("empty");
        pol_init(&x, CORE_GIT_WHOLE, false);
        pol_write(&x, "ws");
        check_run(&x, 0, want("ws/.git", NULL), "whole");
        x.p.git = CORE_GIT_SURFACES;
        check_run(&x, 0, want("ws/.git/hooks", "ws/.git/config", "ws/.git/config.worktree", NULL), "surfaces");
        x.p.git = CORE_GIT_OFF;
        check_run(&x, 0, want(NULL), "off");
        /* No repository: whole keeps .git from being made, surfaces has none. */
        pol_init(&x, CORE_GIT_WHOLE, false);
        pol_write(&x, "empty");
        check_run(&x, 0, want("empty/.git", NULL), "no repository, whole");
        x.p.git = CORE_GIT_SURFACES;
        check_run(&x, 0, want(NULL), "no repository, surfaces");
        tree_done();
}

/* main/.git/worktrees/{wt,other}: wt is the writable root, its .git a
 * relative "gitdir:" pointer; its gitdir's commondir leads back to main. */
static void make_worktrees(void)
{
        repo("main");
        put("main/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
        put("main/.git/worktrees/wt/commondir", "../..\n");
        put("main/.git/worktrees/wt/gitdir", at("wt/.git\n"));
        put("wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
        put("main/.git/worktrees/other/HEAD", "ref: refs/heads/other\n");
        put("main/.git/worktrees/other/commondir", "../..\n");
        put("main/.git/worktrees/other/gitdir", "/elsewhere/other/.git\n");
        put("main/.git/worktrees/other/config.worktree", "");
        mk("main/.git/worktrees/empty");
        put("main/.git/worktrees/stray-file", "");
}

static void test_linked_worktree(void)
{
        char pointer[PATH_MAX * 2 + 16];
        struct pol x;

        tree_new();
        make_worktrees();
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "wt");
        check_run(&x, 0,
                  want("wt/.git", "main/.git/hooks", "main/.git/config", "main/.git/worktrees/wt/config",
                       "main/.git/worktrees/wt/config.worktree", "main/.git/worktrees/wt/commondir",
                       "main/.git/worktrees/wt/gitdir", "main/.git/worktrees/other/commondir",
                       "main/.git/worktrees/other/gitdir", "main/.git/worktrees/other/config.worktree", NULL),
                  "surfaces");
        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0, want("wt/.git", "main/.git/worktrees/wt", "main/.git", NULL), "whole");
        /* A commondir naming no repository: the gitdir is the common dir. */
        put("main/.git/worktrees/wt/commondir", "../../../nothing-here\n");
        x.p.git = CORE_GIT_SURFACES;
        check_run(&x, 0,
                  want("wt/.git", "main/.git/worktrees/wt/hooks", "main/.git/worktrees/wt/config",
                       "main/.git/worktrees/wt/config.worktree", NULL),
                  "commondir naming no repository");

        /* A gitdir outside main's worktrees/, named by an absolute pointer:
         * its commondir is protected as its own surface, not as one of
         * main's worktrees. */
        snprintf(pointer, sizeof(pointer), "gitdir: %s\n", at("gd2"));
        gitdir("gd2");
        put("gd2/commondir", "../main/.git\n");
        put("wt2/.git", pointer);
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "wt2");
        check_run(&x, 0,
                  want("wt2/.git", "main/.git/hooks", "main/.git/config", "gd2/config", "gd2/config.worktree",
                       "gd2/commondir", "main/.git/worktrees/wt/commondir", "main/.git/worktrees/wt/gitdir",
                       "main/.git/worktrees/other/commondir", "main/.git/worktrees/other/gitdir",
                       "main/.git/worktrees/other/config.worktree", NULL),
                  "a gitdir outside the common dir");
        tree_done();
}

static void test_submodules(void)
{
        struct pol x;

        tree_new();
        repo("ws");
        gitdir("ws/.git/modules/lib");
        put("ws/.git/modules/x/y/z/HEAD", "ref: refs/heads/main\n");        /* a submodule at x/y/z */
        put("ws/.git/modules/lib/modules/inner/HEAD", "ref: refs/heads/main\n"); /* lib's own submodule */
        put("ws/.git/modules/README", "");                                  /* not a directory */
        ln("lib", "ws/.git/modules/alias");                                 /* not followed */
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        check_run(&x, 0,
                  want("ws/.git/hooks", "ws/.git/config", "ws/.git/config.worktree", "ws/.git/modules/lib/hooks",
                       "ws/.git/modules/lib/config", "ws/.git/modules/x/y/z/hooks", "ws/.git/modules/x/y/z/config",
                       "ws/.git/modules/lib/modules/inner/hooks", "ws/.git/modules/lib/modules/inner/config", NULL),
                  "surfaces");
        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0, want("ws/.git", NULL), "whole");
        tree_done();
}

/* A name of 9 levels is looked through; one of 10 is kept read-only whole
 * from its 9th level on, with a warning.  The 9-level one's own modules/
 * is one level too deep to be looked into, so it is kept whole too, though
 * it does not exist (as protect.c has it: the depth is checked before the
 * directory is opened). */
static void test_submodule_depth(void)
{
        struct run res;
        struct pol x;

        tree_new();
        repo("ws");
        put("ws/.git/modules/a/b/c/d/e/f/g/h/i/HEAD", "ref: refs/heads/main\n");
        put("ws/.git/modules/1/2/3/4/5/6/7/8/9/10/HEAD", "ref: refs/heads/main\n");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        run(&x, false, &res);
        expect(&res, 0,
               want("ws/.git/hooks", "ws/.git/config", "ws/.git/config.worktree",
                    "ws/.git/modules/a/b/c/d/e/f/g/h/i/hooks", "ws/.git/modules/a/b/c/d/e/f/g/h/i/config",
                    "ws/.git/modules/a/b/c/d/e/f/g/h/i/modules", "ws/.git/modules/1/2/3/4/5/6/7/8/9", NULL),
               "depth");
        logged(&res, "submodule names deeper than 8 levels", "depth");
        run_done(&res);
        tree_done();
}

/* 256 submodule repositories are protected one by one; one more and the
 * rest of modules/ is kept read-only whole, with a warning. */
static void test_submodule_budget(void)
{
        struct run res;
        struct pol x;

        tree_new();
        repo("ws");
        for (int i = 0; i < 256; i++) {
                char p[64];
                snprintf(p, sizeof(p), "ws/.git/modules/m%03d/HEAD", i);
                put(p, "ref: refs/heads/main\n");
        }
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        run(&x, false, &res);
        CU_ASSERT_EQUAL(res.r, 0);
        CU_ASSERT_EQUAL(count_prefix(&res, "ws/.git/modules/"), 2 * 256);
        CU_ASSERT_FALSE(strv_contains((const char *const *) res.paths, "ws/.git/modules"));
        run_done(&res);
        put("ws/.git/modules/m256/HEAD", "ref: refs/heads/main\n");
        run(&x, false, &res);
        CU_ASSERT_EQUAL(res.r, 0);
        CU_ASSERT_TRUE(strv_contains((const char *const *) res.paths, "ws/.git/modules"));
        CU_ASSERT_EQUAL(count_prefix(&res, "ws/.git/modules/"), 2 * 256);
        logged(&res, "more than 256 submodule repositories", "budget");
        run_done(&res);
        tree_done();
}

/* Google's repo tool: .git is a symlink into .repo/projects. */
static void test_symlinked_dotgit(void)
{
        struct pol x;

        tree_new();
        repo_tool("ws", "ws");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        check_run(&x, 0,
                  want(".repo/projects/ws.git/hooks", ".repo/projects/ws.git/config",
                       ".repo/projects/ws.git/config.worktree", NULL),
                  "surfaces");
        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0, want("ws/.git", ".repo/projects/ws.git", NULL), "whole");
        tree_done();
}

/* Junk a command could leave as .git: never a run that cannot start, never
 * a block, and in whole mode the name stays uncreatable. */
static void make_junk(struct pol *x)
{
        static const char *const roots[] = { "j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8" };

        put("j1/.git", "not a pointer\n");
        put("j2/.git", "gitdir: ../nowhere\n");
        fifo("j3/.git");
        mk("empty");
        ln("../empty", "j4/.git");                      /* no HEAD there */
        put("j5/HEAD", "ref: refs/heads/main\n");
        put("j5/.git", "gitdir: .\n");                  /* a writable root itself */
        gitdir("gd");
        fifo("gd/commondir");                           /* must not block */
        put("j6/.git", "gitdir: ../gd\n");
        ln("../gone", "j7/.git");                       /* dangling */
        put("j8/.git", "");
        for (size_t i = 0; i < ELEMENTSOF(roots); i++)
                pol_write(x, roots[i]);
}

static void test_junk_dotgit(void)
{
        struct pol x;

        tree_new();
        pol_init(&x, CORE_GIT_SURFACES, false);
        make_junk(&x);
        check_run(&x, 0, want("j6/.git", "gd/hooks", "gd/config", "gd/config.worktree", NULL), "surfaces");
        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0,
                  want("j1/.git", "j2/.git", "j3/.git", "j4/.git", "j5/.git", "j6/.git", "gd", "j7/.git",
                       "j8/.git", NULL),
                  "whole");
        tree_done();
}

/* Run as a user permissions bind; false (said) where there is none. */
static bool run_as_nobody(const struct pol *x, struct run *res, const char *what)
{
        run(x, true, res);
        if (res->skipped)
                fprintf(stderr, "skip: %s: no user that permissions bind (setuid to %d failed, or it cannot reach "
                        "%s)\n", what, NOBODY, tree);
        return !res->skipped;
}

static void test_unreadable(void)
{
        struct run res;
        struct pol x;

        tree_new();
        repo("ws");
        mk("ws/.git/modules");
        mk("ws/vendor");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        CU_ASSERT_FATAL(chmod(at("ws/.git"), 0) == 0);
        if (run_as_nobody(&x, &res, "an unreadable gitdir")) {
                expect(&res, 0, want("ws/.git", NULL), "unreadable gitdir");
                logged(&res, "cannot be read: it is kept read-only as a whole", "unreadable gitdir");
        }
        run_done(&res);
        CU_ASSERT_FATAL(chmod(at("ws/.git"), 0755) == 0);
        CU_ASSERT_FATAL(chmod(at("ws/.git/modules"), 0) == 0);
        CU_ASSERT_FATAL(chmod(at("ws/vendor"), 0) == 0);
        if (run_as_nobody(&x, &res, "unreadable directories")) {
                expect(&res, 0,
                       want("ws/.git/hooks", "ws/.git/config", "ws/.git/config.worktree", "ws/.git/modules",
                            "ws/vendor", NULL),
                       "unreadable directories");
                logged(&res, "cannot be read, so what it holds cannot be looked through", "unreadable directories");
        }
        run_done(&res);
        CU_ASSERT(chmod(at("ws/.git/modules"), 0755) == 0);
        CU_ASSERT(chmod(at("ws/vendor"), 0755) == 0);
        tree_done();
}

/* Repositories one and two levels below a root, not three, nor in
 * node_modules, nor through a symlink. */
static void test_nested_repos(void)
{
        struct pol x;
        char **w;

        tree_new();
        mk("ws");
        repo("ws/a");
        repo("ws/a/sub");
        repo("ws/b/c");
        repo("ws/d/e/f");
        repo("ws/node_modules/x");
        repo("outside");
        ln("../outside", "ws/link");
        put("ws/j/.git", "junk\n");
        repo_tool("ws/r", "r");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        w = want(NULL);
        want_in(&w, "ws/a/.git", surfaces);
        want_in(&w, "ws/a/sub/.git", surfaces);
        want_in(&w, "ws/b/c/.git", surfaces);
        want_in(&w, ".repo/projects/r.git", surfaces);
        check_run(&x, 0, w, "surfaces");
        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0,
                  want("ws/.git", "ws/a/.git", "ws/a/sub/.git", "ws/b/c/.git", "ws/j/.git", "ws/r/.git",
                       ".repo/projects/r.git", NULL),
                  "whole");
        tree_done();
}

/* 16384 directories in the first two levels are looked through; one more
 * and the run is refused, with a message (git: off still runs). */
static void test_bound_directories(void)
{
        struct run res;
        struct pol x;

        tree_new();
        for (int i = 0; i < 128; i++)
                for (int j = 0; j < 127; j++) {
                        char p[64];
                        snprintf(p, sizeof(p), "ws/d%03d/e%03d", i, j);
                        mk(p);
                }
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        check_run(&x, 0, want(NULL), "16384 directories");
        mk("ws/one-more");
        run(&x, false, &res);
        expect(&res, -E2BIG, want(NULL), "16385 directories");
        logged(&res, "more than 16384 directories in its first two levels", "16385 directories");
        run_done(&res);
        x.p.git = CORE_GIT_OFF;
        check_run(&x, 0, want(NULL), "16385 directories, git: off");
        tree_done();
}

/* 256 .git entries below a root, repositories and junk alike, are looked
 * at; one more and the run is refused, with a message. */
static void test_bound_repositories(void)
{
        struct run res;
        struct pol x;

        tree_new();
        for (int i = 0; i < 256; i++) {
                char p[64];
                snprintf(p, sizeof(p), "ws/r%03d/.git", i);
                if (i < 200)
                        mk(p);
                else
                        put(p, "junk\n");
        }
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        run(&x, false, &res);
        CU_ASSERT_EQUAL(res.r, 0);
        CU_ASSERT_EQUAL(strv_length(res.paths), 3 * 200);
        run_done(&res);
        put("ws/r256/.git", "junk\n");
        run(&x, false, &res);
        expect(&res, -E2BIG, want(NULL), "257 .git entries");
        logged(&res, "more than 256 .git entries below it", "257 .git entries");
        run_done(&res);
        tree_done();
}

/* The built-in names at HOME too when a root holds HOME below it, and git's
 * XDG config wherever a root holds it. */
static void test_home(void)
{
        struct pol x;
        char **w;

        tree_new();
        mk("home/user");
        setenv("HOME", at("home/user"), 1);
        pol_init(&x, CORE_GIT_OFF, true);
        pol_write(&x, "home");
        w = want("home/user/.config/git/config", "home/user/.config/git/attributes", NULL);
        want_defaults(&w, "home");
        want_defaults(&w, "home/user");
        check_run(&x, 0, w, "a root above HOME");

        pol_init(&x, CORE_GIT_OFF, true);
        pol_write(&x, "home/user");
        w = want("home/user/.config/git/config", "home/user/.config/git/attributes", NULL);
        want_defaults(&w, "home/user");
        check_run(&x, 0, w, "HOME as the root");

        setenv("XDG_CONFIG_HOME", at("xdg"), 1);
        pol_init(&x, CORE_GIT_OFF, true);
        pol_write(&x, "home");
        pol_write(&x, "xdg");
        w = want("home/user/.config/git/config", "home/user/.config/git/attributes", "xdg/git/config",
                 "xdg/git/attributes", NULL);
        want_defaults(&w, "home");
        want_defaults(&w, "home/user");
        want_defaults(&w, "xdg");
        check_run(&x, 0, w, "XDG_CONFIG_HOME elsewhere");

        x.p.protect_defaults = false;
        check_run(&x, 0, want(NULL), "protect_defaults: false");
        tree_done();
}

/* `protect:` names at every root, with or without the built-in ones; a
 * root of "/" has nothing protected in it. */
static void test_protect_names(void)
{
        struct pol x;
        char **w;

        tree_new();
        mk("ws");
        mk("ws2");
        pol_init(&x, CORE_GIT_OFF, false);
        pol_write(&x, "ws");
        pol_write(&x, "ws2");
        pol_protect(&x, ".tool-versions");
        pol_protect(&x, "scripts/run.sh");
        check_run(&x, 0, want("ws/.tool-versions", "ws/scripts/run.sh", "ws2/.tool-versions", "ws2/scripts/run.sh",
                              NULL),
                  "protect_defaults: false");

        pol_init(&x, CORE_GIT_OFF, true);
        pol_write(&x, "ws");
        pol_protect(&x, ".envrc");              /* a built-in one: once */
        pol_protect(&x, ".tool-versions");
        w = want("ws/.tool-versions", NULL);
        want_defaults(&w, "ws");
        check_run(&x, 0, w, "protect_defaults: true");

        pol_init(&x, CORE_GIT_WHOLE, false);
        pol_write(&x, "/");
        pol_write(&x, "ws");
        pol_protect(&x, ".tool-versions");
        check_run(&x, 0, want("ws/.git", "ws/.tool-versions", NULL), "a root of /");
        tree_done();
}

/* The hook runners' configs name what git's hooks run: every name (missing
 * ones uncreatable) where the next host git can run a hook (one installed
 * in .git/hooks, a core.hooksPath, a gitdir that cannot be read), and only
 * the ones that exist elsewhere (git's *.sample hooks run nothing). */
/* What a surfaces run protects in ws: the gitdir's surfaces, the built-in
 * names, and every runner name (live) or only ws/lefthook.yml. */
static char **want_gate(bool live)
{
        char **w = want(live ? NULL : "ws/lefthook.yml", NULL);

        want_in(&w, "ws/.git", surfaces);
        want_defaults(&w, "ws");
        if (live)
                want_runners(&w, "ws");
        return w;
}

static void test_runner_gate(void)
{
        struct pol x;

        tree_new();
        unsetenv("GIT_CONFIG_GLOBAL");
        unsetenv("GIT_CONFIG_SYSTEM");
        repo("ws");
        put("ws/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
        put("ws/lefthook.yml", "");
        pol_init(&x, CORE_GIT_SURFACES, true);
        pol_write(&x, "ws");
        check_run(&x, 0, want_gate(false), "only *.sample hooks: the runner configs that exist");

        put("ws/.git/hooks/pre-commit", "#!/bin/sh\nlefthook run pre-commit\n");
        check_run(&x, 0, want_gate(true), "an installed hook: every runner name");

        CU_ASSERT(unlink(at("ws/.git/hooks/pre-commit")) == 0);
        put("ws/.git/config", "[core]\n\thooksPath = /nowhere\n");
        check_run(&x, 0, want_gate(true), "a core.hooksPath outside the roots: every runner name");

        put("ws/.git/config", "[core]\n\tbare = false\n");
        check_run(&x, 0, want_gate(false), "the hooksPath gone: the runner configs that exist");

        x.p.git = CORE_GIT_OFF;
        {
                char **w = want("ws/lefthook.yml", NULL);
                want_defaults(&w, "ws");
                check_run(&x, 0, w, "git: off: the runner configs that exist");
        }
        tree_done();
}

/* stockade's own files (protect_control.c, issue 13 §1) wherever a root
 * holds them, whatever git and protect_defaults say; a stack that builds
 * no sandbox (full-access) gets none; a root of "/" holds them all. */
static void test_control(void)
{
        struct core_line line = { .phase = STK_PHASE_IN_SANDBOX, .module = (char *) "fs_bwrap" };
        struct core_item file;
        struct pol x;
        struct run res;

        tree_new();
        mk("home/user/.cache/stockade/sandbox-caches");
        mk("home/user/.cache/stockade/other");
        mk("state");
        unsetenv("XDG_CACHE_HOME");
        unsetenv("XDG_RUNTIME_DIR");
        setenv("XDG_STATE_HOME", at("state"), 1);
        setenv("HOME", at("home/user"), 1);
        pol_init(&x, CORE_GIT_OFF, false);
        pol_write(&x, "home/user");
        pol_write(&x, "state");
        file = (struct core_item) { .value = (char *) at("home/user/p.yaml") };
        x.p.files = &file;
        x.p.n_files = 1;
        x.p.lines = &line;
        x.p.n_lines = 1;
        check_run(&x, 0, want("home/user/.config/stockade", "home/user/.local/state/stockade", "state/stockade",
                              "home/user/.cache/stockade/fs_bwrap.probe", "home/user/.cache/stockade/other",
                              "home/user/p.yaml", NULL),
                  "a home workspace");

        x.p.n_lines = 0;
        check_run(&x, 0, want(NULL), "no sandbox");

        pol_init(&x, CORE_GIT_OFF, false);
        x.p.lines = &line;
        x.p.n_lines = 1;
        pol_write(&x, "/");
        check_run(&x, 0, want(NULL), "write: [/] gives up confining writes");
        x.p.workspace = (char *) "/";
        run(&x, false, &res);
        CHECK(strv_contains((const char *const *) res.paths, STK_SYSCONFDIR "/stockade"), "a workspace of /: no %s",
              STK_SYSCONFDIR "/stockade");
        CHECK(strv_contains((const char *const *) res.paths, "home/user/.config/stockade"),
              "a workspace of /: no user layer");
        run_done(&res);
        unsetenv("XDG_STATE_HOME");
        tree_done();
}

/* What the repositories' git config names (protect_git.c), through
 * core_protect_paths: the root's own and a nested repository's, under both
 * modes; a config that cannot be parsed keeps the gitdir whole (issue 13). */
static void test_git_config(void)
{
        struct pol x;
        char **w;

        tree_new();
        unsetenv("GIT_CONFIG_GLOBAL");
        unsetenv("GIT_CONFIG_SYSTEM");
        repo("ws");
        put("ws/.git/config", "[core]\n\thooksPath = tools/hooks\n[filter \"x\"]\n\tclean = ./bin/clean\n");
        repo("ws/vendor/lib");
        put("ws/vendor/lib/.git/config", "[include]\n\tpath = ../lib.inc\n");
        put("ws/vendor/lib/lib.inc", "[core]\n\tfsmonitor = ./fsm\n");
        put("ws/vendor/lib/lefthook.yml", "");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        w = want("ws/tools/hooks", "ws/bin/clean", "ws/vendor/lib/lib.inc", "ws/vendor/lib/fsm", NULL);
        want_in(&w, "ws/.git", surfaces);
        want_in(&w, "ws/vendor/lib/.git", surfaces);
        check_run(&x, 0, w, "surfaces, protect_defaults: false");

        x.p.git = CORE_GIT_WHOLE;
        check_run(&x, 0, want("ws/.git", "ws/tools/hooks", "ws/bin/clean", "ws/vendor/lib/.git",
                              "ws/vendor/lib/lib.inc", "ws/vendor/lib/fsm", NULL), "whole");

        /* a nested repository's hook runner names: where they exist */
        pol_init(&x, CORE_GIT_SURFACES, true);
        pol_write(&x, "ws");
        w = want("ws/tools/hooks", "ws/bin/clean", "ws/vendor/lib/lib.inc", "ws/vendor/lib/fsm",
                 "ws/vendor/lib/lefthook.yml", NULL);
        want_in(&w, "ws/.git", surfaces);
        want_in(&w, "ws/vendor/lib/.git", surfaces);
        want_defaults(&w, "ws");
        want_runners(&w, "ws"); /* its core.hooksPath: hooks run there */
        check_run(&x, 0, w, "surfaces, protect_defaults: true");

        /* junk in a config: that gitdir whole, one warning, the run goes on */
        put("ws/vendor/lib/lib.inc", "[core\n");
        pol_init(&x, CORE_GIT_SURFACES, false);
        pol_write(&x, "ws");
        w = want("ws/tools/hooks", "ws/bin/clean", "ws/vendor/lib/lib.inc", "ws/vendor/lib/.git", NULL);
        want_in(&w, "ws/.git", surfaces);
        want_in(&w, "ws/vendor/lib/.git", surfaces);
        {
                struct run res;
                run(&x, false, &res);
                expect(&res, 0, w, "an include git would not read");
                logged(&res, "lib.inc: 1:6: not a config git would read", "an include git would not read");
                run_done(&res);
        }
        tree_done();
}

UNIT_SUITE(test_protect,
           UNIT_TEST(test_plain_repo),
           UNIT_TEST(test_linked_worktree),
           UNIT_TEST(test_submodules),
           UNIT_TEST(test_submodule_depth),
           UNIT_TEST(test_submodule_budget),
           UNIT_TEST(test_symlinked_dotgit),
           UNIT_TEST(test_junk_dotgit),
           UNIT_TEST(test_unreadable),
           UNIT_TEST(test_nested_repos),
           UNIT_TEST(test_bound_directories),
           UNIT_TEST(test_bound_repositories),
           UNIT_TEST(test_home),
           UNIT_TEST(test_runner_gate),
           UNIT_TEST(test_protect_names),
           UNIT_TEST(test_control),
           UNIT_TEST(test_git_config))
