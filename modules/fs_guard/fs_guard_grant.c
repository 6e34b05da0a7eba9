/* SPDX-License-Identifier: MIT */
/*
 * What Landlock grants beneath the writable roots, so that guard_top can
 * answer CONTINUE there at once (issue 15: every file a build makes in
 * src/ went through the supervisor, which opened it itself).
 *
 * fs_landlock cannot grant a writable root that holds a protected path
 * (an island, a hidden path, a protected name): it grants each of the
 * root's entries instead, one by one, as they exist when it plans, and
 * carves the same way into every entry that is an ancestor of a protected
 * path (stockade-fs_landlock(8), fs_landlock_plan.c).  A root with nothing
 * protected beneath it is granted whole.  The snapshot here is the same
 * construction, made at the same moment (both modules' probe, before the
 * fork; once per warm session, as fs_landlock's plan): the paths whose
 * entry carries a write rule.
 *
 * A rule sits on an inode, found by its path when the rules are made.
 * So an entry renamed or removed since is forgotten here (fs_guard sees
 * every rename, unlink and rmdir first), and a path is covered while it is
 * one of these or beneath one.  Covered is a hint for speed, never a
 * permission: CONTINUE lets the kernel decide with Landlock's own rules,
 * which refuse what they do not grant whatever this says; and guard_top
 * still refuses a protected path (with the settings of the run) before it
 * looks here.  Wrong, it costs an EACCES that the supervisor could have
 * spared (a host process changing the workspace while the run starts).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_guard_internal.h"
#include "common/stk_path.h"

struct fg_lists {
        const char *const *read_only, *const *hide;
};

bool fg_beneath_protected(const char *p, const char *const *read_only, const char *const *hide)
{
        const char *const *lists[2] = { read_only, hide };

        for (size_t k = 0; k < 2; k++)
                for (size_t i = 0; lists[k] && lists[k][i]; i++)
                        if (stk_path_beneath(p, lists[k][i]))
                                return true;
        return false;
}

bool fg_holds_protected(const char *dir, const char *const *read_only, const char *const *hide)
{
        const char *const *lists[2] = { read_only, hide };

        for (size_t k = 0; k < 2; k++)
                for (size_t i = 0; lists[k] && lists[k][i]; i++)
                        if (stk_path_strictly_beneath(lists[k][i], dir))
                                return true;
        return false;
}

static int add(struct fg_grants *g, const char *path)
{
        char **v, *copy;

        if (g->n == g->cap) {
                size_t cap = g->cap ? g->cap * 2 : 32;
                v = realloc(g->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                g->v = v;
                g->cap = cap;
        }
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        g->v[g->n++] = copy;
        return 0;
}

static int grant_dir(struct fg_grants *g, const char *dir, const struct fg_lists *l, unsigned depth);

/* One entry of a directory being carved: a symlink gets no rule (its
 * target is judged where it is), a protected one none, an ancestor of a
 * protected path is carved in turn, anything else is granted. */
static int grant_entry(struct fg_grants *g, int dfd, const char *dir, const struct dirent *de,
                       const struct fg_lists *l, unsigned depth)
{
        unsigned char type = de->d_type;
        char *path;
        int r = 0;

        if (type == DT_UNKNOWN) {
                struct stat st;
                if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return 0; /* gone meanwhile: nothing to grant */
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
        }
        if (type == DT_LNK)
                return 0;
        path = stk_path_join(dir, de->d_name);
        if (!path)
                return -ENOMEM;
        if (fg_beneath_protected(path, l->read_only, l->hide))
                r = 0;
        else if (type == DT_DIR && fg_holds_protected(path, l->read_only, l->hide))
                r = grant_dir(g, path, l, depth + 1);
        else
                r = add(g, path);
        free(path);
        return r;
}

static int grant_dir(struct fg_grants *g, const char *dir, const struct fg_lists *l, unsigned depth)
{
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (depth > 64)
                return 0; /* deeper than any protected name: left to the supervisor */
        d = opendir(dir);
        if (!d)
                return 0; /* unreadable: nothing known granted, the supervisor decides there */
        while (r >= 0 && (de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        r = grant_entry(g, dirfd(d), dir, de, l, depth);
        closedir(d);
        return r;
}

static int by_path(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int fg_grants_snapshot(struct fg_grants *g, const char *const *write, const char *const *read_only,
                       const char *const *hide)
{
        const struct fg_lists l = { read_only, hide };
        int r = 0;

        fg_grants_free(g);
        for (size_t i = 0; r >= 0 && write && write[i]; i++) {
                if (fg_beneath_protected(write[i], read_only, hide))
                        continue;
                r = fg_holds_protected(write[i], read_only, hide) ? grant_dir(g, write[i], &l, 0) : add(g, write[i]);
        }
        if (r < 0) {
                fg_grants_free(g);
                return r;
        }
        if (g->n)
                qsort(g->v, g->n, sizeof(*g->v), by_path);
        return 0;
}

static bool has(const struct fg_grants *g, const char *path)
{
        return g->n && bsearch(&path, g->v, g->n, sizeof(*g->v), by_path);
}

bool fg_grants_cover(const struct fg_grants *g, const char *path)
{
        char p[PATH_MAX], *slash;

        if (!g || !g->n || path[0] != '/' || strlen(path) >= sizeof(p))
                return false;
        strcpy(p, path);
        for (;;) {
                if (has(g, p))
                        return true;
                slash = strrchr(p, '/');
                if (!slash || slash == p)
                        return false; /* "/" is never a writable root here */
                *slash = '\0';
        }
}

void fg_grants_forget(struct fg_grants *g, const char *path)
{
        size_t kept = 0;

        if (!g)
                return;
        for (size_t i = 0; i < g->n; i++) {
                if (stk_path_beneath(g->v[i], path))
                        free(g->v[i]);
                else
                        g->v[kept++] = g->v[i];
        }
        g->n = kept;
}

void fg_grants_free(struct fg_grants *g)
{
        for (size_t i = 0; g && i < g->n; i++)
                free(g->v[i]);
        if (g) {
                free(g->v);
                *g = (struct fg_grants) { 0 };
        }
}
