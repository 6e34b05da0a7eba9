/* SPDX-License-Identifier: MIT */
/*
 * Protected paths (DESIGN.md): code-execution surfaces that stay read-only
 * inside every writable root, whether or not they exist yet (an absent one
 * must not become creatable).  Each root's own repository, those up to two
 * levels below it, their submodules and linked worktrees, the built-in
 * names, `protect:` names, and the user's startup files where a root holds
 * them (stockade.yaml(5)).
 *
 * Every step takes the run's state, struct protect_scan, and adds what it
 * finds with scan_add(); nothing is kept between runs.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gitconfig.h"
#include "policy_internal.h"
#include "util/util.h"

/* Each entry runs code when a person or a tool opens the directory. */
static const char *const protect_defaults[] = {
        ".stockade.yaml",          /* our own project layer: a command must not steer the next runs' policy */
        ".gitmodules",             /* submodule URLs and update commands */
        ".husky",                  /* hook scripts git runs via core.hooksPath */
        ".pre-commit-config.yaml", /* hooks pre-commit installs and runs */
        ".envrc",                  /* direnv executes it on cd */
        ".vscode",                 /* tasks.json, settings that run tools */
        ".idea",                   /* IDE run configurations */
        ".devcontainer",           /* container commands run by editors */
        ".mcp.json",               /* MCP servers an agent starts */
        ".claude",                 /* agent settings and hooks */
        ".cursor",
        ".gemini",                 /* Gemini CLI's project settings: MCP servers it starts */
        ".gitconfig",              /* git's per-user config, where the workspace is a home or dotfiles */
        ".ripgreprc",              /* rg options, --pre runs a command on every file searched */
        ".bashrc", ".bash_profile", ".bash_login", ".profile",
        ".zshrc", ".zshenv", ".zprofile", ".zlogin",
        NULL,
};

/* The bounds of the scans.  A command can make directories and
 * repositories, so what a bound leaves out is never silence: it is kept
 * read-only whole, or the run is refused with a message (each use says
 * which, and why). */
#define NESTED_ENTRIES 16384    /* directories looked at in a root's first two levels */
#define NESTED_REPOS 256        /* .git entries below one root */
#define MODULES_DEPTH 8         /* levels of a submodule name (x/y/z) and of nesting */
#define MODULES_MAX 256         /* submodule repositories in one repository */

/*
 * One run of core_protect_paths, passed to every step: the policy (read
 * only here), the list being built, and what the bounded scans have spent.
 * State of the run goes here; what a step learns of one repository goes
 * in struct git_repo.  Reading a repository's git config for the paths it
 * names (core.hooksPath, includes, filters, drivers, helpers) is one call
 * in protect_repo (protect_git_config, with protect_git.c); one that
 * protects stockade's own config and state directories, a call in
 * protect_root that starts from `env`.
 */
struct protect_scan {
        const struct core_policy *policy;
        char **paths;           /* the result: NULL-terminated, in the order found, each once */

        /* $HOME and git's XDG config directory, canonical, looked up on
         * first use (resolve_env).  home NULL: no home to speak of. */
        struct {
                bool resolved;
                char *home, *xdg;
        } env;

        /* The writable root whose nested repositories are being looked
         * for, and what that scan has spent of its bounds (protect_nested). */
        struct {
                const char *root;
                unsigned entries, repos, junk; /* junk: .git entries git would not use */
        } nested;

        /* Submodule repositories the current repository may still have
         * looked at (protect_modules). */
        unsigned modules_left;

        /* What git's config files name (protect_git_config). */
        struct gitcfg_run gitcfg;

        /* The tops of the repositories whose next host git can run hooks
         * (hooks_can_run): only there do the hook runners' configs name
         * code git runs (protect_names). */
        char **hooks_live;
};

/* A repository as git would see it from `root` (find_repo). */
struct git_repo {
        const char *root;       /* the directory holding .git */
        char *gitdir;           /* .git itself, or where its pointer or link leads */
        char *common;           /* where hooks and config come from: gitdir, or what its commondir names */
        bool pointer;           /* .git is a "gitdir:" file (a linked worktree) */
};

static void git_repo_done(struct git_repo *g)
{
        free(g->gitdir);
        free(g->common);
}

static void protect_scan_done(struct protect_scan *s)
{
        strv_free(s->paths);
        strv_free(s->hooks_live);
        gitcfg_run_done(&s->gitcfg);
        free(s->env.home);
        free(s->env.xdg);
}

static bool git_whole(const struct protect_scan *s)
{
        return s->policy->git == CORE_GIT_WHOLE;
}

/* dir/name, without a doubled slash under "/"; NULL: out of memory. */
static char *join(const char *dir, const char *name)
{
        return stk_path_join(dir, name);
}

/* Each path once: two roots, or a pointer and what it names, may reach the
 * same one. */
static int scan_add(struct protect_scan *s, const char *path)
{
        return strv_contains((const char *const *) s->paths, path) ? 0 : strv_push(&s->paths, path);
}

static int scan_add_joined(struct protect_scan *s, const char *dir, const char *name)
{
        _cleanup_free_ char *p = join(dir, name);

        return p ? scan_add(s, p) : -ENOMEM;
}

/* Only if it exists: the mask of a missing name is an empty directory,
 * which git cannot read as one of these files. */
static int scan_add_existing(struct protect_scan *s, const char *dir, const char *name)
{
        _cleanup_free_ char *p = join(dir, name);
        struct stat st;

        if (!p)
                return -ENOMEM;
        return lstat(p, &st) == 0 ? scan_add(s, p) : 0;
}

/* A directory that cannot be looked into (err: the errno of the open).
 * Gone, not a directory, a loop: nothing to protect there, said at debug
 * level (an error would let a command stop every later run with one
 * symlink, found by review).  No permission: the command may have made it
 * so (chmod 000 on .git/modules or on vendor/ in one run, to have nothing
 * protected below it in the next and chmod it back): the whole directory
 * is kept read-only instead, which also keeps its mode as it is. */
static int unreadable_dir(struct protect_scan *s, const char *dir, int err)
{
        if (err == ENOMEM)
                return -ENOMEM;
        if (err == EACCES || err == EPERM) {
                core_log(STK_LOG_WARNING, "%s cannot be read, so what it holds cannot be looked through: it is kept "
                         "read-only as a whole", dir);
                return scan_add(s, dir);
        }
        if (err != ENOENT)
                core_log(STK_LOG_DEBUG, "%s: not looked into: %s", dir, strerror(err));
        return 0;
}

/* <dir>/<name>, made canonical: a symlinked .git/modules must not give
 * paths that look inside the workspace and are not (fs_bwrap pins read-write
 * what is above an island: found by review).  NULL where it cannot be. */
static char *canonical_sub(const char *dir, const char *name)
{
        _cleanup_free_ char *p = join(dir, name);
        char *c = NULL;

        return p && path_canonicalize(p, &c) >= 0 ? c : NULL;
}

/* ---- .git pointers ------------------------------------------------------ */

/* The first line of a regular file.  Not blocking, and only a regular
 * file: a fifo a command left as commondir would hang every later run
 * (found by review). */
static int read_first_line(const char *file, char *buf, size_t size)
{
        _cleanup_close_ int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        ssize_t n;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return -EINVAL;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return -EIO;
        buf[n] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        return 0;
}

/* Read "gitdir: X" / a commondir file and resolve X against base. */
static int read_pointer(const char *file, const char *prefix, const char *base, char **ret)
{
        _cleanup_free_ char *joined = NULL;
        char buf[4096];
        int r = read_first_line(file, buf, sizeof(buf));

        if (r < 0)
                return r;
        if (strncmp(buf, prefix, strlen(prefix)) != 0)
                return -EINVAL;
        const char *target = buf + strlen(prefix);
        joined = target[0] == '/' ? strdup(target) : join(base, target);
        if (!joined)
                return -ENOMEM;
        return path_canonicalize(joined, ret);
}

/* A "gitdir:" pointer names a directory that becomes protected: one the
 * command wrote (a .git file it made) could name any directory, a writable
 * root itself (the whole workspace read-only from the next run on, found by
 * review).  Only a directory git would take for a repository (a HEAD file)
 * and that holds no writable root is taken. */
static int plausible_gitdir(const struct protect_scan *s, const char *gitdir)
{
        _cleanup_free_ char *head = join(gitdir, "HEAD");
        struct stat st;

        if (!head)
                return -ENOMEM;
        if (lstat(head, &st) < 0 || !S_ISREG(st.st_mode))
                return -ENOTDIR;
        for (size_t i = 0; i < s->policy->write.n; i++)
                if (stk_path_beneath(s->policy->write.items[i].value, gitdir))
                        return -ELOOP;
        return 0;
}

/* Google's repo tool: .git -> ../.repo/projects/x.git.  git follows it, so
 * the protection goes to where it points (the link itself is the command's
 * to replace: mounts follow links, stockade.yaml(5)). */
static int follow_dotgit_link(const struct protect_scan *s, const char *dotgit, char **ret)
{
        _cleanup_free_ char *gitdir = NULL;
        struct stat st;
        int r = path_canonicalize(dotgit, &gitdir);

        if (r < 0)
                return r;
        if (stat(gitdir, &st) < 0 || !S_ISDIR(st.st_mode))
                return -ENOENT;
        r = plausible_gitdir(s, gitdir);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(gitdir);
        return 0;
}

/* A linked worktree's .git: a "gitdir:" file, relative to the worktree. */
static int read_dotgit_file(const struct protect_scan *s, const char *root, const char *dotgit, char **ret)
{
        _cleanup_free_ char *gitdir = NULL;
        int r = read_pointer(dotgit, "gitdir: ", root, &gitdir);

        if (r >= 0)
                r = plausible_gitdir(s, gitdir);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(gitdir);
        return 0;
}

/* The gitdir root/.git leads to: -ENOENT where there is none git would use. */
static int find_gitdir(const struct protect_scan *s, struct git_repo *g)
{
        _cleanup_free_ char *dotgit = join(g->root, ".git");
        struct stat st;
        int r;

        if (!dotgit)
                return -ENOMEM;
        if (lstat(dotgit, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode)) {
                g->gitdir = TAKE_PTR(dotgit);
                return 0;
        }
        if (S_ISLNK(st.st_mode))
                return follow_dotgit_link(s, dotgit, &g->gitdir);
        if (!S_ISREG(st.st_mode))
                return -ENOENT; /* a fifo, a socket: git takes none for a repository */
        r = read_dotgit_file(s, g->root, dotgit, &g->gitdir);
        g->pointer = r >= 0;
        return r;
}

/* Where hooks and config come from: what the gitdir's commondir names (a
 * linked worktree's), if git would take it for a repository, else the
 * gitdir itself. */
static int find_common(const struct protect_scan *s, struct git_repo *g)
{
        _cleanup_free_ char *file = join(g->gitdir, "commondir");
        char *common = NULL;

        if (!file)
                return -ENOMEM;
        if (read_pointer(file, "", g->gitdir, &common) >= 0 && plausible_gitdir(s, common) < 0) {
                free(common);
                common = NULL;
        }
        g->common = common ? common : strdup(g->gitdir);
        return g->common ? 0 : -ENOMEM;
}

/* The repository's gitdir and common dir (a linked worktree's .git is a
 * "gitdir:" pointer file; its hooks and config live in the common dir). */
static int find_repo(const struct protect_scan *s, struct git_repo *g)
{
        int r = find_gitdir(s, g);

        return r < 0 ? r : find_common(s, g);
}

/* ---- one repository ----------------------------------------------------- */

static int resolve_env(struct protect_scan *s);

static int scan_modules(struct protect_scan *s, const char *dir, unsigned depth);

/* What each_subdir calls for every directory `sub` in `dir`: < 0 an error,
 * > 0 stops the walk of `dir` (and of it alone), 0 goes on. */
typedef int (*subdir_fn)(struct protect_scan *s, const char *dir, const char *sub, unsigned depth);

/* fn for each directory in dir (not a symlink to one). */
static int each_subdir(struct protect_scan *s, const char *dir, unsigned depth, subdir_fn fn)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        int r = 0;

        if (!d)
                return unreadable_dir(s, dir, errno);
        while (r == 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL;
                struct stat st;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                sub = join(dir, e->d_name);
                if (!sub)
                        r = -ENOMEM;
                else if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                        r = fn(s, dir, sub, depth);
        }
        closedir(d);
        return r < 0 ? r : 0;
}

/* A submodule repository `sub` in `dir`: its hooks and config, and its own
 * submodules.  Beyond the budget, the rest of `dir` is kept read-only whole
 * and its walk stops. */
static int modules_repo(struct protect_scan *s, const char *dir, const char *sub, unsigned depth)
{
        _cleanup_free_ char *nested = join(sub, "modules");
        int r;

        if (!nested)
                return -ENOMEM;
        if (s->modules_left == 0) {
                core_log(STK_LOG_WARNING, "%s: more than %d submodule repositories; the rest of %s is kept "
                         "read-only as a whole", dir, MODULES_MAX, dir);
                r = scan_add(s, dir);
                return r < 0 ? r : 1;
        }
        s->modules_left--;
        r = scan_add_joined(s, sub, "hooks");
        if (r >= 0)
                r = scan_add_joined(s, sub, "config");
        if (r >= 0)
                r = scan_modules(s, nested, depth + 1);
        return r;
}

/* A directory with a HEAD is a repository; one without is part of a name
 * (modules/x/y for a submodule at x/y), and gone into. */
static int modules_entry(struct protect_scan *s, const char *dir, const char *sub, unsigned depth)
{
        _cleanup_free_ char *head = join(sub, "HEAD");
        struct stat st;

        if (!head)
                return -ENOMEM;
        if (lstat(head, &st) < 0 || !S_ISREG(st.st_mode))
                return scan_modules(s, sub, depth + 1);
        return modules_repo(s, dir, sub, depth);
}

static int scan_modules(struct protect_scan *s, const char *dir, unsigned depth)
{
        if (depth > MODULES_DEPTH) {
                /* not looked through: then kept read-only whole (an error would
                 * let one mkdir -p stop every later run, found by review) */
                core_log(STK_LOG_WARNING, "%s: submodule names deeper than %d levels; kept read-only as a whole",
                         dir, MODULES_DEPTH);
                return scan_add(s, dir);
        }
        return each_subdir(s, dir, depth, modules_entry);
}

/* Submodules keep their repositories in <gitdir>/modules/<name>, where the
 * name may hold slashes (modules/x/y/z for a submodule at x/y/z) and nested
 * ones go on in .../modules/<name>/modules/<name>: git runs their hooks and
 * reads their config when it works in a submodule, so under `git:
 * surfaces` those are surfaces too.  A missing hooks directory is masked as
 * an empty one, which git reads as no hooks.  Bounded, and what the bound
 * leaves out is kept read-only, not left out in silence: a command could
 * otherwise make 200 names to hide the 201st (found by review). */
static int protect_modules(struct protect_scan *s, const char *common)
{
        _cleanup_free_ char *dir = canonical_sub(common, "modules");

        if (!dir)
                return 0; /* common itself was readable (protect_repo) */
        s->modules_left = MODULES_MAX;
        return scan_modules(s, dir, 0);
}

static int worktree_entry(struct protect_scan *s, const char *dir, const char *sub, unsigned depth)
{
        static const char *const names[] = { "commondir", "gitdir", "config.worktree" };
        int r = 0;

        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(names); k++)
                r = scan_add_existing(s, sub, names[k]);
        return r;
}

/* Linked worktrees: <common>/worktrees/<id>/ holds each one's commondir,
 * gitdir and config.worktree; a commondir rewritten there points git, in a
 * worktree outside the workspace, at hooks of the command's making (found
 * by review). */
static int protect_worktrees(struct protect_scan *s, const char *common)
{
        _cleanup_free_ char *dir = canonical_sub(common, "worktrees");

        return dir ? each_subdir(s, dir, 0, worktree_entry) : 0;
}

/* .git, its gitdir and its common dir, read-only. */
static int protect_whole(struct protect_scan *s, const struct git_repo *g)
{
        int r = scan_add_joined(s, g->root, ".git");

        if (r >= 0)
                r = scan_add(s, g->gitdir);
        if (r >= 0)
                r = scan_add(s, g->common);
        return r;
}

/* A gitdir or common dir we cannot look into (a command's chmod 000, so
 * that its modules and worktrees go unseen): 1, said as a warning; 0 where
 * both can be read. */
static int repo_unreadable(const struct git_repo *g)
{
        const char *locked = access(g->gitdir, R_OK | X_OK) < 0 ? g->gitdir
                             : access(g->common, R_OK | X_OK) < 0 ? g->common : NULL;

        if (!locked)
                return 0;
        if (errno != EACCES && errno != EPERM)
                return -errno;
        core_log(STK_LOG_WARNING, "%s cannot be read: it is kept read-only as a whole (as git: whole would)", locked);
        return 1;
}

/* git: surfaces: what runs code or points git elsewhere; a real .git
 * directory stays writable for git commit. */
static int protect_surfaces(struct protect_scan *s, const struct git_repo *g)
{
        int r = 0;

        /* a linked worktree's "gitdir:" pointer file, since rewriting it would
         * point git at a repository of the command's making */
        if (g->pointer)
                r = scan_add_joined(s, g->root, ".git");
        if (r >= 0)
                r = scan_add_joined(s, g->common, "hooks");
        if (r >= 0)
                r = scan_add_joined(s, g->common, "config");
        if (r >= 0)
                r = scan_add_joined(s, g->gitdir, "config");
        if (r >= 0)
                r = scan_add_joined(s, g->gitdir, "config.worktree");
        /* commondir points git at the directory its hooks and config come
         * from: rewritten by the command, it is a repository of the
         * command's making again (found by a review: fsmonitor ran).  Only
         * where it exists (a linked worktree's gitdir): the mask of a missing
         * name is an empty directory, and git dies on a commondir that is
         * one, or an empty file.  A new one in a main .git stays possible in
         * this mode (stockade.yaml(5)). */
        if (r >= 0 && !streq(g->common, g->gitdir))
                r = scan_add_joined(s, g->gitdir, "commondir");
        if (r >= 0)
                r = protect_modules(s, g->common);
        if (r >= 0)
                r = protect_worktrees(s, g->common);
        return r;
}

/* The hook runners' configs at the top of a repository below a writable
 * root, where they exist (a root's own are among the built-in names, missing
 * ones too; a mount point for each missing name in each of up to 256
 * repositories would cost more than the run, stockade.yaml(5)). */
static int protect_nested_runners(struct protect_scan *s, const char *top)
{
        int r = 0;

        for (size_t i = 0; i < s->policy->write.n; i++)
                if (streq(s->policy->write.items[i].value, top) || !s->policy->protect_defaults)
                        return 0;
        for (size_t k = 0; r >= 0 && gitcfg_runner_names[k]; k++)
                r = scan_add_existing(s, top, gitcfg_runner_names[k]);
        return r;
}

/* Whether the common dir's hooks/ holds a hook: anything but git's own
 * *.sample files (a runner's `install` puts its script there).  One that
 * cannot be read counts as holding one. */
static bool hook_name(const char *n)
{
        size_t len = strlen(n);

        return !streq(n, ".") && !streq(n, "..") && !(len >= 7 && streq(n + len - 7, ".sample"));
}

static bool hooks_installed(const struct git_repo *g)
{
        _cleanup_free_ char *hooks = join(g->common, "hooks");
        DIR *d = hooks ? opendir(hooks) : NULL;
        struct dirent *e;
        bool found = false;

        if (!d)
                return !hooks || errno != ENOENT;
        errno = 0;
        while (!found && (e = readdir(d)))
                found = hook_name(e->d_name);
        found = found || errno != 0;
        closedir(d);
        return found;
}

/* top's next host git can run hooks: the hook runners' configs there
 * name code it runs (protect_names). */
static int hooks_live(struct protect_scan *s, const char *top)
{
        return strv_contains((const char *const *) s->hooks_live, top) ? 0 : strv_push(&s->hooks_live, top);
}

/* What the git config files of the repository at top name as code in a
 * writable root (protect_git.c: core.hooksPath, filters, includes...); g
 * NULL where top holds none (the system and global files still name
 * paths relative to it, for a repository made there).  A file git reads
 * that cannot be read or parsed keeps the gitdir read-only as a whole. */
static int protect_git_config(struct protect_scan *s, const char *top, const struct git_repo *g)
{
        bool hooks_path = false;
        struct gitcfg_repo repo = { .top = top, .gitdir = g ? g->gitdir : NULL, .common = g ? g->common : NULL,
                                    .hooks_path = &hooks_path };
        _cleanup_strv_ char **found = NULL;
        int r = resolve_env(s);

        if (!s->gitcfg.roots)
                for (size_t i = 0; r >= 0 && i < s->policy->write.n; i++)
                        r = strv_push(&s->gitcfg.roots, s->policy->write.items[i].value);
        if (r < 0)
                return r;
        s->gitcfg.home = s->env.home;
        s->gitcfg.xdg = s->env.xdg;
        r = gitcfg_repo_paths(&s->gitcfg, &repo, &found);
        for (size_t i = 0; r >= 0 && found && found[i]; i++)
                r = scan_add(s, found[i]) < 0 ? -ENOMEM : r;
        if (r >= 0 && g)
                r = protect_nested_runners(s, top) < 0 ? -ENOMEM : r;
        if (r >= 0 && g && (r == 1 || hooks_path || hooks_installed(g)))
                r = hooks_live(s, top) < 0 ? -ENOMEM : r;
        return r == 1 && g ? protect_whole(s, g) : r < 0 ? r : 0;
}

/* The repository's gitdir as the policy's git: mode asks; 1 where it
 * cannot be read (kept whole, said once: its config is not read then). */
static int protect_gitdir(struct protect_scan *s, const struct git_repo *g)
{
        int r;

        if (git_whole(s))
                return protect_whole(s, g);
        r = repo_unreadable(g);
        if (r != 0)
                return r < 0 ? r : protect_whole(s, g) < 0 ? -ENOMEM : 1;
        return protect_surfaces(s, g);
}

/* The repository at root/.git, and what its config names; -errno where
 * .git is one git would not use. */
static int protect_repo(struct protect_scan *s, const char *root)
{
        _cleanup_(git_repo_done) struct git_repo g = { .root = root };
        int r = find_repo(s, &g);

        if (r == -ENOENT) {
                /* No repository: in whole mode .git itself may not be created
                 * (a repository made by the command could carry hooks). */
                r = git_whole(s) ? scan_add_joined(s, root, ".git") : 0;
                return r < 0 ? r : protect_git_config(s, root, NULL);
        }
        if (r < 0)
                return r;
        r = protect_gitdir(s, &g);
        if (r == 1 && hooks_live(s, root) < 0) /* unreadable: its hooks cannot be looked at */
                return -ENOMEM;
        return r < 0 ? r : protect_git_config(s, root, r == 1 ? NULL : &g);
}

/* A .git git would not use (a .git file naming nothing, or a writable
 * root; one a command made where there was none): its name only, in whole
 * mode so that it cannot become one, and never a run that cannot start
 * (found by review). */
static int not_a_repo(struct protect_scan *s, const char *path, int err)
{
        core_log(STK_LOG_DEBUG, "%s/.git: not a repository (%s)", path, strerror(-err));
        return git_whole(s) ? scan_add_joined(s, path, ".git") : 0;
}

/* ---- repositories below a root ------------------------------------------ */

/* `path/.git` is there: protect it as a repository, or as not_a_repo
 * does.  Never an error but ENOMEM and the bound. */
static int nested_repo(struct protect_scan *s, const char *path)
{
        int r;

        if (s->nested.repos + s->nested.junk >= NESTED_REPOS) {
                core_log(STK_LOG_ERROR, "%s: more than %d .git entries below it (%u repositories; the last one "
                         "seen %s/.git; a command may have made them); stockade protects at most that many: "
                         "remove what should not be there, narrow the workspace, or set git: off to run "
                         "unprotected", s->nested.root, NESTED_REPOS, s->nested.repos, path);
                return -E2BIG;
        }
        r = protect_repo(s, path);
        if (r >= 0) {
                s->nested.repos++;
                return r;
        }
        if (r == -ENOMEM || r == -E2BIG)
                return r;
        s->nested.junk++;
        return not_a_repo(s, path, r);
}

/* A directory of `dfd` (no symlink), and whether it has a .git entry (a
 * symlinked .git too: git follows it, and find_gitdir resolves it). */
static int look_at(int dfd, const char *name, bool *ret_git)
{
        struct stat g;
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0)
                return -errno; /* not a directory, a symlink, gone, unreadable */
        *ret_git = fstatat(fd, ".git", &g, 0) == 0 && (S_ISDIR(g.st_mode) || S_ISREG(g.st_mode));
        return fd;
}

/* Never gone into: a repository's own insides, and JavaScript packages
 * (thousands of directories, none a repository git works in). */
static bool skipped_name(const char *n)
{
        return streq(n, ".") || streq(n, "..") || streq(n, ".git") || streq(n, "node_modules");
}

/* d_type rules out what is surely no directory; where it is missing (not
 * POSIX) or unknown, the open in look_at tells. */
static bool maybe_dir(const struct dirent *e)
{
#ifdef DT_DIR
        return e->d_type == DT_DIR || e->d_type == DT_UNKNOWN;
#else
        (void) e;
        return true;
#endif
}

static int too_many_dirs(const struct protect_scan *s)
{
        core_log(STK_LOG_ERROR, "%s: more than %d directories in its first two levels; stockade looks through at "
                 "most that many for repositories to protect (narrow the workspace, or git: off to run it "
                 "unprotected)", s->nested.root, NESTED_ENTRIES);
        return -E2BIG;
}

static int scan_level(struct protect_scan *s, const char *dir, unsigned depth);

/* One entry of a level: a directory counts against the bound, is
 * protected if it holds a .git, and is gone into at the first level. */
static int scan_entry(struct protect_scan *s, int dfd, const char *dir, const char *name, unsigned depth)
{
        _cleanup_free_ char *sub = join(dir, name);
        bool git = false;
        int fd, r = 0;

        if (!sub)
                return -ENOMEM;
        fd = look_at(dfd, name, &git);
        if (fd == -EACCES || fd == -EPERM)
                return unreadable_dir(s, sub, -fd);
        if (fd < 0)
                return 0;
        close(fd);
        if (++s->nested.entries > NESTED_ENTRIES)
                return too_many_dirs(s);
        if (git)
                r = nested_repo(s, sub);
        if (r >= 0 && depth < 2)
                r = scan_level(s, sub, depth + 1);
        return r;
}

static int scan_level(struct protect_scan *s, const char *dir, unsigned depth)
{
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = 0;
        struct dirent *e;
        DIR *d;

        if (dfd < 0)
                return unreadable_dir(s, dir, errno);
        d = fdopendir(dfd);
        if (!d) {
                r = -errno;
                close(dfd);
                return r;
        }
        while (r >= 0 && (e = readdir(d)))
                if (!skipped_name(e->d_name) && maybe_dir(e))
                        r = scan_entry(s, dirfd(d), dir, e->d_name, depth);
        closedir(d);
        return r;
}

/* Repositories below a writable root (a workspace holding several clones,
 * a vendored one): git runs their hooks and reads their config when work
 * happens in them, so they get the root's own protection (fs_bwrap also
 * pins the directories above each, so none can be renamed away and
 * replaced).  Two levels down, no symlink followed, never into a .git or
 * node_modules.  A command can make directories and repositories, so no
 * budget may leave a real repository out in silence: every directory is
 * looked at up to the bounds, and a workspace beyond them is refused with
 * a message saying so (git: off runs it unprotected).  Found by review: a
 * first version listed the 256 oldest directories, and a command can renew
 * a directory's ctime. */
static int protect_nested(struct protect_scan *s, const char *root)
{
        s->nested.root = root;
        s->nested.entries = s->nested.repos = s->nested.junk = 0;
        return scan_level(s, root, 1);
}

/* ---- the user's startup files ------------------------------------------- */

/* $HOME and $XDG_CONFIG_HOME (else ~/.config) as the environment names
 * them, made canonical, once a run. */
static int resolve_env(struct protect_scan *s)
{
        _cleanup_free_ char *home = NULL, *raw = NULL;
        const char *h = getenv("HOME"), *x = getenv("XDG_CONFIG_HOME");

        if (s->env.resolved)
                return 0;
        if (!h || h[0] != '/' || path_canonicalize(h, &home) < 0) {
                s->env.resolved = true;
                return 0; /* no home to speak of */
        }
        raw = x && x[0] == '/' ? strdup(x) : join(home, ".config");
        if (!raw || path_canonicalize(raw, &s->env.xdg) < 0)
                return -ENOMEM;
        s->env.home = TAKE_PTR(home);
        s->env.resolved = true;
        return 0;
}

/* The built-in names at dir, and the hook runners' configs: those name
 * what git's hooks run, so every name, missing ones too (uncreatable),
 * where dir's next host git can run a hook; elsewhere only the ones that
 * exist (the configs the user may yet install hooks for), since a mount
 * for each of ~80 missing names is most of a run's start-up (bench/startup)
 * and guards nothing: no hook is there to read them, and the command
 * cannot add one (.git/hooks and core.hooksPath are protected). */
static int protect_names(struct protect_scan *s, const char *dir)
{
        bool live = strv_contains((const char *const *) s->hooks_live, dir);
        int r = 0;

        for (size_t k = 0; r >= 0 && protect_defaults[k]; k++)
                r = scan_add_joined(s, dir, protect_defaults[k]);
        for (size_t k = 0; r >= 0 && gitcfg_runner_names[k]; k++)
                r = live ? scan_add_joined(s, dir, gitcfg_runner_names[k])
                         : scan_add_existing(s, dir, gitcfg_runner_names[k]);
        return r;
}

/* git's config and attributes in its XDG directory wherever a root holds
 * it (~/.config/git/config: a core.fsmonitor there runs on the user's next
 * git status, found by review).  Both places: git reads
 * $XDG_CONFIG_HOME/git/config, or ~/.config/git/config where that is unset,
 * and the user's next shell may differ from ours. */
static int protect_git_xdg(struct protect_scan *s, const char *root)
{
        int r = 0;

        for (int k = 0; r >= 0 && k < 2; k++) {
                _cleanup_free_ char *git = k == 0 ? join(s->env.xdg, "git") : join(s->env.home, ".config/git");

                if (!git)
                        return -ENOMEM;
                if (!stk_path_beneath(git, root))
                        continue;
                r = scan_add_joined(s, git, "config");
                if (r >= 0)
                        r = scan_add_joined(s, git, "attributes");
        }
        return r;
}

/* The user's own startup files when a writable root holds them: the
 * built-in names at $HOME too when HOME is below the root (write: [/home]),
 * and git's XDG config (protect_git_xdg). */
static int protect_home(struct protect_scan *s, const char *root)
{
        int r = resolve_env(s);

        if (r < 0 || !s->env.home)
                return r;
        if (stk_path_strictly_beneath(s->env.home, root))
                r = protect_names(s, s->env.home);
        return r < 0 ? r : protect_git_xdg(s, root);
}

/* ---- the policy --------------------------------------------------------- */

/* The root's own repository, then those below it.  At the top a .git git
 * would not use is not_a_repo's too (one a command made where there was
 * none): never a run that cannot start. */
static int protect_root_git(struct protect_scan *s, const char *root)
{
        int r = protect_repo(s, root);

        if (r < 0 && r != -ENOMEM)
                r = not_a_repo(s, root, r);
        return r < 0 ? r : protect_nested(s, root);
}

/* What one writable root holds: its repositories, the built-in names, the
 * user's files when it holds them, the policy's `protect:` names. */
static int protect_root(struct protect_scan *s, const char *root)
{
        const struct core_policy *p = s->policy;
        int r = 0;

        if (p->git != CORE_GIT_OFF)
                r = protect_root_git(s, root);
        if (r >= 0 && p->protect_defaults)
                r = protect_names(s, root);
        if (r >= 0 && p->protect_defaults)
                r = protect_home(s, root);
        for (size_t k = 0; r >= 0 && k < p->protect.n; k++)
                r = scan_add_joined(s, root, p->protect.items[k].value);
        return r;
}

/* stockade's own files the root holds (protect_control.c), whatever the
 * policy's git and protect_defaults say. */
static int protect_control(struct protect_scan *s, const char *root)
{
        _cleanup_strv_ char **v = NULL;
        int r = pprotect_control(s->policy, root, &v);

        for (size_t i = 0; r >= 0 && v[i]; i++)
                r = scan_add(s, v[i]);
        return r;
}

/* Not where nothing would enforce an island (full-access builds no
 * sandbox), nor under a `write: [/]` a policy wrote to give up confining
 * writes; but a workspace of / (--allow-broad-workspace) is a sandbox's. */
static bool control_applies(const struct core_policy *p, const char *root)
{
        if (core_policy_no_sandbox(p))
                return false;
        return !streq(root, "/") || (p->workspace && streq(p->workspace, "/"));
}

int core_protect_paths(const struct core_policy *p, char ***ret)
{
        _cleanup_(protect_scan_done) struct protect_scan s = { .policy = p, .paths = calloc(1, sizeof(char *)) };
        int r = s.paths ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < p->write.n; i++) {
                const char *root = p->write.items[i].value;
                if (control_applies(p, root))
                        r = protect_control(&s, root);
                if (r >= 0 && !streq(root, "/")) /* no sandbox for writes: nothing else to protect inside */
                        r = protect_root(&s, root);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s.paths);
        return 0;
}
