/* SPDX-License-Identifier: MIT */
/*
 * Protected paths (DESIGN.md): code-execution surfaces that stay read-only
 * inside every writable root, whether or not they exist yet (an absent one
 * must not become creatable).  Only the top of each writable root is
 * considered: nested repositories are not searched (stockade.yaml(5)).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "policy.h"
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

static int push_joined(char ***v, const char *dir, const char *name)
{
        char *p;

        if (asprintf(&p, "%s/%s", streq(dir, "/") ? "" : dir, name) < 0)
                return -ENOMEM;
        if (strv_contains((const char *const *) *v, p)) {
                free(p);
                return 0;
        }
        return strv_push_take(v, p);
}

/* Read "gitdir: X" / a commondir file and resolve X against base. */
static int read_pointer(const char *file, const char *prefix, const char *base, char **ret)
{
        char buf[4096], *joined = NULL;
        /* Not blocking, and only a regular file: a fifo a command left as
         * commondir would hang every later run (found by review). */
        int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        ssize_t n;
        int r;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n < 0)
                return -EIO;
        buf[n] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        if (strncmp(buf, prefix, strlen(prefix)) != 0)
                return -EINVAL;
        const char *target = buf + strlen(prefix);
        if (target[0] == '/')
                joined = strdup(target);
        else if (asprintf(&joined, "%s/%s", base, target) < 0)
                joined = NULL;
        if (!joined)
                return -ENOMEM;
        r = path_canonicalize(joined, ret);
        free(joined);
        return r;
}

/* The writable roots of the policy being protected (core_protect_paths). */
static const struct core_policy *current;

/* A "gitdir:" pointer names a directory that becomes protected: one the
 * command wrote (a .git file it made) could name any directory, a writable
 * root itself (the whole workspace read-only from the next run on, found by
 * review).  Only a directory git would take for a repository (a HEAD file)
 * and that holds no writable root is taken. */
static int plausible_gitdir(const char *gitdir)
{
        _cleanup_free_ char *head = NULL;
        struct stat st;

        if (asprintf(&head, "%s/HEAD", gitdir) < 0)
                return -ENOMEM;
        if (lstat(head, &st) < 0 || !S_ISREG(st.st_mode))
                return -ENOTDIR;
        for (size_t i = 0; current && i < current->write.n; i++)
                if (stk_path_beneath(current->write.items[i].value, gitdir))
                        return -ELOOP;
        return 0;
}

/* The repository's gitdir and common dir (a linked worktree's .git is a
 * "gitdir:" pointer file; its hooks and config live in the common dir). */
static int find_gitdirs(const char *root, char **ret_gitdir, char **ret_common, bool *ret_pointer)
{
        _cleanup_free_ char *dotgit = NULL, *commondir_file = NULL;
        char *gitdir = NULL, *common = NULL;
        struct stat st;
        int r;

        if (asprintf(&dotgit, "%s/.git", root) < 0)
                return -ENOMEM;
        if (lstat(dotgit, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                gitdir = strdup(dotgit);
        else if (S_ISLNK(st.st_mode)) {
                /* Google's repo tool: .git -> ../.repo/projects/x.git.  git
                 * follows it, so the protection goes to where it points
                 * (the link itself is the command's to replace: mounts
                 * follow links, stockade.yaml(5)). */
                r = path_canonicalize(dotgit, &gitdir);
                if (r >= 0 && (stat(gitdir, &st) < 0 || !S_ISDIR(st.st_mode)))
                        r = -ENOENT;
                if (r >= 0)
                        r = plausible_gitdir(gitdir);
                if (r < 0) {
                        free(gitdir);
                        return r;
                }
        } else if (S_ISREG(st.st_mode)) {
                r = read_pointer(dotgit, "gitdir: ", root, &gitdir);
                if (r < 0)
                        return r;
                r = plausible_gitdir(gitdir);
                if (r < 0) {
                        free(gitdir);
                        return r;
                }
        } else
                return -ENOENT;
        if (!gitdir || asprintf(&commondir_file, "%s/commondir", gitdir) < 0) {
                free(gitdir);
                return -ENOMEM;
        }
        r = read_pointer(commondir_file, "", gitdir, &common);
        if (r >= 0 && plausible_gitdir(common) < 0)
                r = -ENOTDIR, free(common), common = NULL;
        if (r < 0)
                common = strdup(gitdir);
        if (!common) {
                free(gitdir);
                return -ENOMEM;
        }
        *ret_gitdir = gitdir;
        *ret_common = common;
        *ret_pointer = S_ISREG(st.st_mode);
        return 0;
}

/* Submodules keep their repositories in <gitdir>/modules/<name>, where the
 * name may hold slashes (modules/x/y/z for a submodule at x/y/z) and nested
 * ones go on in .../modules/<name>/modules/<name>: git runs their hooks and
 * reads their config when it works in a submodule, so under `git:
 * surfaces` those are surfaces too.  A directory with a HEAD is a
 * repository; one without is part of a name, and gone into.  A missing
 * hooks directory is masked as an empty one, which git reads as no hooks.
 * Bounded, and what the bound leaves out is an error, not silence: a
 * command could otherwise make 200 names to hide the 201st (found by
 * review). */
/* A directory that cannot be looked into.  Gone, not a directory, a loop:
 * nothing to protect there, said at debug level (an error would let a
 * command stop every later run with one symlink, found by review).  No
 * permission: the command may have made it so (chmod 000 on .git/modules or
 * on vendor/ in one run, to have nothing protected below it in the next and
 * chmod it back): the whole directory is kept read-only instead, which also
 * keeps its mode as it is. */
static int unreadable_dir(const char *dir, char ***v)
{
        if (errno == ENOMEM)
                return -ENOMEM;
        if (errno == EACCES || errno == EPERM) {
                core_log(STK_LOG_WARNING, "%s cannot be read, so what it holds cannot be looked through: it is kept "
                         "read-only as a whole", dir);
                return strv_contains((const char *const *) *v, dir) ? 0 : strv_push(v, dir);
        }
        if (errno != ENOENT)
                core_log(STK_LOG_DEBUG, "%s: not looked into: %s", dir, strerror(errno));
        return 0;
}

#define MODULES_DEPTH 8
#define MODULES_MAX 256
static int scan_modules(const char *dir, char ***v, unsigned depth, unsigned *budget)
{
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth > MODULES_DEPTH) {
                /* not looked through: then kept read-only whole (an error would
                 * let one mkdir -p stop every later run, found by review) */
                core_log(STK_LOG_WARNING, "%s: submodule names deeper than %d levels; kept read-only as a whole",
                         dir, MODULES_DEPTH);
                return strv_contains((const char *const *) *v, dir) ? 0 : strv_push(v, dir);
        }
        d = opendir(dir);
        if (!d)
                return unreadable_dir(dir, v);
        while (r >= 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL, *head = NULL, *nested = NULL;
                struct stat st;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0 || asprintf(&head, "%s/HEAD", sub) < 0 ||
                    asprintf(&nested, "%s/modules", sub) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (lstat(head, &st) < 0 || !S_ISREG(st.st_mode)) {
                        r = scan_modules(sub, v, depth + 1, budget); /* a part of a name */
                        continue;
                }
                if (*budget == 0) {
                        core_log(STK_LOG_WARNING, "%s: more than %d submodule repositories; the rest of %s is kept "
                                 "read-only as a whole", dir, MODULES_MAX, dir);
                        r = strv_contains((const char *const *) *v, dir) ? 0 : strv_push(v, dir);
                        break;
                }
                (*budget)--;
                r = push_joined(v, sub, "hooks");
                if (r >= 0)
                        r = push_joined(v, sub, "config");
                if (r >= 0)
                        r = scan_modules(nested, v, depth + 1, budget);
        }
        closedir(d);
        return r;
}

/* <dir>/<name>, made canonical: a symlinked .git/modules must not give
 * paths that look inside the workspace and are not (fs_bwrap pins read-write
 * what is above an island: found by review).  NULL where it cannot be. */
static char *canonical_sub(const char *dir, const char *name)
{
        _cleanup_free_ char *p = NULL;
        char *c = NULL;

        if (asprintf(&p, "%s/%s", dir, name) < 0 || path_canonicalize(p, &c) < 0)
                return NULL;
        return c;
}

static int protect_modules(const char *gitdir, char ***v)
{
        _cleanup_free_ char *dir = canonical_sub(gitdir, "modules");
        unsigned budget = MODULES_MAX;

        return dir ? scan_modules(dir, v, 0, &budget) : 0; /* gitdir itself was readable (protect_git) */
}

/* Only if it exists: the mask of a missing name is an empty directory,
 * which git cannot read as one of these files. */
static int push_existing(char ***v, const char *dir, const char *name)
{
        _cleanup_free_ char *p = NULL;
        struct stat st;

        if (asprintf(&p, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        return lstat(p, &st) == 0 ? push_joined(v, dir, name) : 0;
}

/* Linked worktrees: <common>/worktrees/<id>/ holds each one's commondir,
 * gitdir and config.worktree; a commondir rewritten there points git, in a
 * worktree outside the workspace, at hooks of the command's making (found
 * by review). */
static int protect_worktrees(const char *common, char ***v)
{
        _cleanup_free_ char *dir = canonical_sub(common, "worktrees");
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (!dir)
                return 0;
        d = opendir(dir);
        if (!d)
                return unreadable_dir(dir, v);
        while (r >= 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL;
                struct stat st;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                r = push_existing(v, sub, "commondir");
                if (r >= 0)
                        r = push_existing(v, sub, "gitdir");
                if (r >= 0)
                        r = push_existing(v, sub, "config.worktree");
        }
        closedir(d);
        return r;
}

/* .git, its gitdir and its common dir, read-only. */
static int protect_whole(const char *root, const char *gitdir, const char *common, char ***v)
{
        int r = push_joined(v, root, ".git");

        if (r >= 0 && !strv_contains((const char *const *) *v, gitdir))
                r = strv_push(v, gitdir);
        if (r >= 0 && !strv_contains((const char *const *) *v, common))
                r = strv_push(v, common);
        return r;
}

static int protect_git(const char *root, enum core_git_protect mode, char ***v)
{
        _cleanup_free_ char *gitdir = NULL, *common = NULL;
        bool pointer = false;
        int r = find_gitdirs(root, &gitdir, &common, &pointer);

        if (r == -ENOENT)
                /* No repository: in whole mode .git itself may not be created
                 * (a repository made by the command could carry hooks). */
                return mode == CORE_GIT_WHOLE ? push_joined(v, root, ".git") : 0;
        if (r < 0)
                return r;
        if (mode == CORE_GIT_WHOLE)
                return protect_whole(root, gitdir, common, v);
        /* Surfaces, but a gitdir we cannot look into (a command's chmod 000,
         * so that its modules and worktrees go unseen): read-only whole. */
        if (access(gitdir, R_OK | X_OK) < 0 || access(common, R_OK | X_OK) < 0) {
                if (errno != EACCES && errno != EPERM)
                        return -errno;
                core_log(STK_LOG_WARNING, "%s cannot be read: it is kept read-only as a whole (as git: whole would)",
                         access(gitdir, R_OK | X_OK) < 0 ? gitdir : common);
                return protect_whole(root, gitdir, common, v);
        }
        /* Surfaces only: a linked worktree's "gitdir:" pointer file too, since
         * rewriting it would point git at a repository of the command's
         * making; a real .git directory stays writable for git commit. */
        if (pointer)
                r = push_joined(v, root, ".git");
        if (r >= 0)
                r = push_joined(v, common, "hooks");
        if (r >= 0)
                r = push_joined(v, common, "config");
        if (r >= 0)
                r = push_joined(v, gitdir, "config");
        if (r >= 0)
                r = push_joined(v, gitdir, "config.worktree");
        /* commondir points git at the directory its hooks and config come
         * from: rewritten by the command, it is a repository of the
         * command's making again (found by a review: fsmonitor ran).  Only
         * where it exists (a linked worktree's gitdir): the mask of a missing
         * name is an empty directory, and git dies on a commondir that is
         * one, or an empty file.  A new one in a main .git stays possible in
         * this mode (stockade.yaml(5)). */
        if (r >= 0 && !streq(common, gitdir))
                r = push_joined(v, gitdir, "commondir");
        if (r >= 0)
                r = protect_modules(common, v);
        if (r >= 0)
                r = protect_worktrees(common, v);
        return r;
}

/* Repositories below a writable root (a workspace holding several clones,
 * a vendored one): git runs their hooks and reads their config when work
 * happens in them, so they get the root's own protection (fs_bwrap also
 * pins the directories above each, so none can be renamed away and
 * replaced).  Two levels down, no symlink followed, never into a .git or
 * node_modules.  A command can make directories and repositories, so no
 * budget may leave a real repository out in silence: every directory is
 * looked at up to the bounds below, and a workspace beyond them is refused
 * with a message saying so (git: off runs it unprotected).  Found by
 * review: a first version listed the 256 oldest directories, and a command
 * can renew a directory's ctime. */
#define NESTED_ENTRIES 16384    /* directories looked at, both levels */
#define NESTED_REPOS 256        /* .git entries below one root */

struct nested_scan {
        const char *root;
        enum core_git_protect mode;
        unsigned entries, repos, junk;  /* junk: .git entries git would not use */
};

/* `path/.git` is there: protect it as a repository, or, if git would not
 * take it for one (a .git file naming nothing, or a writable root), keep
 * the name itself (whole mode) so it cannot become one.  Never an error
 * but ENOMEM: one stray file must not stop every later run. */
static int nested_repo(struct nested_scan *n, const char *path, char ***v)
{
        int r;

        if (n->repos + n->junk >= NESTED_REPOS) {
                core_log(STK_LOG_ERROR, "%s: more than %d .git entries below it (%u repositories; the last one "
                         "seen %s/.git; a command may have made them); stockade protects at most that many: "
                         "remove what should not be there, narrow the workspace, or set git: off to run "
                         "unprotected", n->root, NESTED_REPOS, n->repos, path);
                return -E2BIG;
        }
        r = protect_git(path, n->mode, v);
        if (r >= 0) {
                n->repos++;
                return r;
        }
        if (r == -ENOMEM || r == -E2BIG)
                return r;
        n->junk++;
        core_log(STK_LOG_DEBUG, "%s/.git: not a repository (%s)", path, strerror(-r));
        return n->mode == CORE_GIT_WHOLE ? push_joined(v, path, ".git") : 0;
}

/* A directory of `dfd` (no symlink), and whether it has a .git entry (a
 * symlinked .git too: git follows it, and protect_git resolves it). */
static int look_at(int dfd, const char *name, bool *ret_git)
{
        struct stat g;
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0)
                return -errno; /* not a directory, a symlink, gone, unreadable */
        *ret_git = fstatat(fd, ".git", &g, 0) == 0 && (S_ISDIR(g.st_mode) || S_ISREG(g.st_mode));
        return fd;
}

static bool skipped_name(const char *n)
{
        return streq(n, ".") || streq(n, "..") || streq(n, ".git") || streq(n, "node_modules");
}

static int scan_level(struct nested_scan *n, const char *dir, unsigned depth, char ***v)
{
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = 0;
        struct dirent *e;
        DIR *d;

        if (dfd < 0)
                return unreadable_dir(dir, v);
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        while (r >= 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL;
                bool git = false;
                int fd;

                if (skipped_name(e->d_name))
                        continue;
#ifdef DT_DIR /* not POSIX: where it is missing, the open below tells */
                if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
                        continue;
#endif
                fd = look_at(dirfd(d), e->d_name, &git);
                if (fd == -EACCES || fd == -EPERM) {
                        _cleanup_free_ char *locked = NULL;
                        if (asprintf(&locked, "%s/%s", streq(dir, "/") ? "" : dir, e->d_name) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        errno = -fd;
                        r = unreadable_dir(locked, v);
                        continue;
                }
                if (fd < 0)
                        continue;
                close(fd);
                if (++n->entries > NESTED_ENTRIES) {
                        core_log(STK_LOG_ERROR, "%s: more than %d directories in its first two levels; stockade "
                                 "looks through at most that many for repositories to protect (narrow the "
                                 "workspace, or git: off to run it unprotected)", n->root, NESTED_ENTRIES);
                        r = -E2BIG;
                        break;
                }
                if (asprintf(&sub, "%s/%s", streq(dir, "/") ? "" : dir, e->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (git)
                        r = nested_repo(n, sub, v);
                if (r >= 0 && depth < 2)
                        r = scan_level(n, sub, depth + 1, v);
        }
        closedir(d);
        return r;
}

static int protect_nested(const char *root, enum core_git_protect mode, char ***v)
{
        struct nested_scan n = { .root = root, .mode = mode };

        return scan_level(&n, root, 1, v);
}

/* The user's own startup files when a writable root holds them: the
 * built-in names at $HOME too when HOME is below the root (write: [/home]),
 * and git's XDG config wherever a root holds it (~/.config/git/config: a
 * core.fsmonitor there runs on the user's next git status, found by
 * review).  Paths as the environment names them, made canonical. */
static int protect_home(const char *root, char ***v)
{
        _cleanup_free_ char *home = NULL, *xdg = NULL, *raw = NULL;
        const char *h = getenv("HOME"), *x = getenv("XDG_CONFIG_HOME");
        int r = 0;

        if (!h || h[0] != '/' || path_canonicalize(h, &home) < 0)
                return 0; /* no home to speak of */
        if (x && x[0] == '/')
                raw = strdup(x);
        else if (asprintf(&raw, "%s/.config", home) < 0)
                raw = NULL;
        if (!raw || path_canonicalize(raw, &xdg) < 0)
                return -ENOMEM;
        if (stk_path_beneath(home, root) && !streq(home, root))
                for (size_t k = 0; r >= 0 && protect_defaults[k]; k++)
                        r = push_joined(v, home, protect_defaults[k]);
        /* Both: git reads $XDG_CONFIG_HOME/git/config, or ~/.config/git/config
         * where that is unset, and the user's next shell may differ from ours. */
        for (int k = 0; r >= 0 && k < 2; k++) {
                _cleanup_free_ char *git = NULL;
                if (k == 0 ? asprintf(&git, "%s/git", xdg) < 0 : asprintf(&git, "%s/.config/git", home) < 0)
                        return -ENOMEM;
                if (!stk_path_beneath(git, root))
                        continue;
                r = push_joined(v, git, "config");
                if (r >= 0)
                        r = push_joined(v, git, "attributes");
        }
        return r;
}

int core_protect_paths(const struct core_policy *p, char ***ret)
{
        char **v = calloc(1, sizeof(char *));
        int r = v ? 0 : -ENOMEM;

        current = p;

        for (size_t i = 0; r >= 0 && i < p->write.n; i++) {
                const char *root = p->write.items[i].value;
                if (streq(root, "/"))
                        continue; /* no sandbox for writes: nothing to protect inside */
                if (p->git != CORE_GIT_OFF) {
                        r = protect_git(root, p->git, &v);
                        if (r < 0 && r != -ENOMEM) {
                                /* a .git git would not use (one a command made where
                                 * there was none, under surfaces): its name only,
                                 * never a run that cannot start (found by review) */
                                core_log(STK_LOG_DEBUG, "%s/.git: not a repository (%s)", root, strerror(-r));
                                r = p->git == CORE_GIT_WHOLE ? push_joined(&v, root, ".git") : 0;
                        }
                        if (r >= 0)
                                r = protect_nested(root, p->git, &v);
                }
                for (size_t k = 0; r >= 0 && p->protect_defaults && protect_defaults[k]; k++)
                        r = push_joined(&v, root, protect_defaults[k]);
                if (r >= 0 && p->protect_defaults)
                        r = protect_home(root, &v);
                for (size_t k = 0; r >= 0 && k < p->protect.n; k++)
                        r = push_joined(&v, root, p->protect.items[k].value);
        }
        current = NULL;
        if (r < 0) {
                strv_free(v);
                return r;
        }
        *ret = v;
        return 0;
}
