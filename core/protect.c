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

#include "core.h"
#include "util.h"

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
        FILE *f = fopen(file, "re");
        size_t n;
        int r;

        if (!f)
                return -errno;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
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
        else if (S_ISREG(st.st_mode)) {
                r = read_pointer(dotgit, "gitdir: ", root, &gitdir);
                if (r < 0)
                        return r;
        } else
                return -ENOENT;
        if (!gitdir || asprintf(&commondir_file, "%s/commondir", gitdir) < 0) {
                free(gitdir);
                return -ENOMEM;
        }
        r = read_pointer(commondir_file, "", gitdir, &common);
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

/* Submodules keep their repositories in <gitdir>/modules/<name> (nested
 * ones in .../modules/<name>/modules/<name>): git runs their hooks and
 * reads their config when it works in a submodule, so under `git:
 * surfaces` those are surfaces too.  A missing hooks directory is masked as
 * an empty one, which git reads as no hooks.  Bounded: depth and count. */
static int protect_modules(const char *gitdir, char ***v, unsigned depth, unsigned *budget)
{
        _cleanup_free_ char *dir = NULL;
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth > 4 || asprintf(&dir, "%s/modules", gitdir) < 0)
                return depth > 4 ? 0 : -ENOMEM;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        while (r >= 0 && *budget > 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL, *head = NULL;
                struct stat st;

                if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
                        continue;
                if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0 || asprintf(&head, "%s/HEAD", sub) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (lstat(head, &st) < 0 || !S_ISREG(st.st_mode))
                        continue; /* not a repository: a directory of grouped names, or junk */
                (*budget)--;
                r = push_joined(v, sub, "hooks");
                if (r >= 0)
                        r = push_joined(v, sub, "config");
                if (r >= 0)
                        r = protect_modules(sub, v, depth + 1, budget);
        }
        closedir(d);
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
        if (mode == CORE_GIT_WHOLE) {
                r = push_joined(v, root, ".git");
                if (r >= 0 && !strv_contains((const char *const *) *v, gitdir))
                        r = strv_push(v, gitdir);
                if (r >= 0 && !strv_contains((const char *const *) *v, common))
                        r = strv_push(v, common);
                return r;
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
        if (r >= 0) {
                unsigned budget = 64;
                r = protect_modules(common, v, 0, &budget);
        }
        return r;
}

/* Repositories below a writable root (a workspace holding several clones,
 * a vendored one): git runs their hooks and reads their config when work
 * happens in them, so they get the root's own protection (fs_bwrap also
 * pins the directories above each, so none can be renamed away and
 * replaced).  Two levels down, no symlink followed, never into a .git or
 * node_modules.  This runs before every command, and a command can make
 * directories to push a repository out of any fixed budget, so the budget
 * is generous where it is cheap: every entry of the root is looked at (one
 * open and one stat), and the entries listed for the level below are the
 * oldest first (by ctime, which nobody can set back: a command's fresh
 * directories come last).  What a budget leaves out is said, not hidden. */
#define NESTED_LOOKS 4096       /* entries of a root looked at */
#define NESTED_LISTS 256        /* of those, directories listed for the level below */

struct nested_dir {
        char *path;
        time_t ctime;           /* seconds: st_ctim is not everywhere (macOS) */
};

/* `path/.git` is there: protect it as a repository, or, if git would not
 * take it for one (a .git file naming nothing, one we cannot read), keep
 * the name itself (whole mode) so it cannot become one.  Never an error
 * but ENOMEM: one stray file must not stop every later run. */
static int nested_repo(const char *path, enum core_git_protect mode, char ***v)
{
        int r = protect_git(path, mode, v);

        if (r >= 0 || r == -ENOMEM)
                return r;
        core_log(STK_LOG_DEBUG, "%s/.git: not a repository (%s)", path, strerror(-r));
        return mode == CORE_GIT_WHOLE ? push_joined(v, path, ".git") : 0;
}

/* A directory of `dfd` (no symlink), and whether it has a .git entry. */
static int look_at(int dfd, const char *name, struct stat *ret_st, bool *ret_git)
{
        struct stat g;
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0)
                return -errno; /* not a directory, a symlink, gone, unreadable */
        if (fstat(fd, ret_st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        *ret_git = fstatat(fd, ".git", &g, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISDIR(g.st_mode) || S_ISREG(g.st_mode));
        return fd;
}

static bool skipped_name(const char *n)
{
        return streq(n, ".") || streq(n, "..") || streq(n, ".git") || streq(n, "node_modules");
}

/* Every directory entry of `dir`: repositories protected; with `below`,
 * the directories collected for the next level (up to `max`). */
static int scan_level(const char *dir, enum core_git_protect mode, char ***v, struct nested_dir *below,
                      size_t max, size_t *n_below, bool *cut)
{
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = 0;
        unsigned looks = 0;
        struct dirent *e;
        DIR *d;

        if (dfd < 0)
                return errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP ? 0 : -errno;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        while (r >= 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL;
                struct stat st;
                bool git = false;
                int fd;

                if (skipped_name(e->d_name))
                        continue;
#ifdef DT_DIR /* not POSIX: where it is missing, the open below tells */
                if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
                        continue;
#endif
                if (++looks > NESTED_LOOKS) {
                        *cut = true;
                        break;
                }
                fd = look_at(dirfd(d), e->d_name, &st, &git);
                if (fd < 0)
                        continue;
                close(fd);
                if (asprintf(&sub, "%s/%s", streq(dir, "/") ? "" : dir, e->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (git)
                        r = nested_repo(sub, mode, v);
                if (r >= 0 && below && *n_below < max)
                        below[(*n_below)++] = (struct nested_dir) { TAKE_PTR(sub), st.st_ctime };
        }
        closedir(d);
        return r;
}

static int older_first(const void *a, const void *b)
{
        const struct nested_dir *x = a, *y = b;

        return (x->ctime > y->ctime) - (x->ctime < y->ctime);
}

static int protect_nested(const char *root, enum core_git_protect mode, char ***v)
{
        struct nested_dir *below = calloc(NESTED_LOOKS, sizeof(*below));
        size_t n = 0;
        bool cut = false;
        int r;

        if (!below)
                return -ENOMEM;
        r = scan_level(root, mode, v, below, NESTED_LOOKS, &n, &cut);
        if (r >= 0) {
                qsort(below, n, sizeof(*below), older_first);
                if (n > NESTED_LISTS)
                        cut = true;
        }
        for (size_t i = 0; r >= 0 && i < n && i < NESTED_LISTS; i++)
                r = scan_level(below[i].path, mode, v, NULL, 0, NULL, &cut);
        for (size_t i = 0; i < n; i++)
                free(below[i].path);
        free(below);
        if (r >= 0 && cut)
                core_log(STK_LOG_WARNING, "%s has more directories than stockade looks through for repositories "
                         "below it (%d entries a level, the %d oldest listed): a repository among the rest "
                         "has no protection of its hooks and config", root, NESTED_LOOKS, NESTED_LISTS);
        return r;
}

int core_protect_paths(const struct core_policy *p, char ***ret)
{
        char **v = calloc(1, sizeof(char *));
        int r = v ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < p->write.n; i++) {
                const char *root = p->write.items[i].value;
                if (streq(root, "/"))
                        continue; /* no sandbox for writes: nothing to protect inside */
                if (p->git != CORE_GIT_OFF) {
                        r = protect_git(root, p->git, &v);
                        if (r >= 0)
                                r = protect_nested(root, p->git, &v);
                }
                for (size_t k = 0; r >= 0 && p->protect_defaults && protect_defaults[k]; k++)
                        r = push_joined(&v, root, protect_defaults[k]);
                for (size_t k = 0; r >= 0 && k < p->protect.n; k++)
                        r = push_joined(&v, root, p->protect.items[k].value);
        }
        if (r < 0) {
                strv_free(v);
                return r;
        }
        *ret = v;
        return 0;
}
