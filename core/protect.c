/* SPDX-License-Identifier: MIT */
/*
 * Protected paths (DESIGN.md): code-execution surfaces that stay read-only
 * inside every writable root, whether or not they exist yet (an absent one
 * must not become creatable).  Only the top of each writable root is
 * considered: nested repositories are not searched (stockade.yaml(5)).
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

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
 * happens in them, so they get the root's own protection.  Two levels
 * down, directories only (no symlink is followed), never into a .git or
 * node_modules, and at most NESTED_BUDGET directories looked at: this runs
 * before every command. */
#define NESTED_DEPTH 2
#define NESTED_BUDGET 128
static int protect_nested(const char *dir, enum core_git_protect mode, char ***v, unsigned depth, unsigned *budget)
{
        struct dirent *e;
        DIR *d = opendir(dir);
        int r = 0;

        if (!d)
                return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
        while (r >= 0 && *budget > 0 && (e = readdir(d))) {
                _cleanup_free_ char *sub = NULL, *dotgit = NULL;
                struct stat st;

#ifdef DT_DIR /* not POSIX: where it is missing, lstat below tells */
                if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
                        continue;
#endif
                if (streq(e->d_name, ".") || streq(e->d_name, "..") || streq(e->d_name, ".git") ||
                    streq(e->d_name, "node_modules"))
                        continue;
                if (asprintf(&sub, "%s/%s", streq(dir, "/") ? "" : dir, e->d_name) < 0 ||
                    asprintf(&dotgit, "%s/.git", sub) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                (*budget)--;
                if (lstat(dotgit, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
                        r = protect_git(sub, mode, v);
                if (r >= 0 && depth < NESTED_DEPTH)
                        r = protect_nested(sub, mode, v, depth + 1, budget);
        }
        closedir(d);
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
                        unsigned budget = NESTED_BUDGET;
                        r = protect_git(root, p->git, &v);
                        if (r >= 0)
                                r = protect_nested(root, p->git, &v, 1, &budget);
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
