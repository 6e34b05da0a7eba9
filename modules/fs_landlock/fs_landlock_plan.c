/* SPDX-License-Identifier: MIT */
/*
 * Rule planning: from "this path gets that access" points to Landlock rules.
 *
 * Landlock can only allow (Documentation/userspace-api/landlock.rst, "Access
 * rights"): a rule on a directory grants its rights to everything beneath
 * it, and the rights of one layer are the union of the rules on a file's
 * ancestors.  So to make R writable except the island R/a/b, no rule may
 * give write on R or R/a; instead every sibling of a inside R and every
 * sibling of b inside R/a gets write, and R, R/a, R/a/b keep read only.
 * The same construction hides a path: read on every sibling along the way
 * from "/", nothing on the hidden path.
 *
 * Generally: a rule on a node may grant only what its whole subtree wants
 * (the intersection of its own access and the access of every point beneath
 * it); what is left over is spread over its children, listing the directory
 * only when something is left over.
 *
 * Kept free of Landlock syscalls so the CUnit tests can drive it with a temp
 * tree.  Paths are the canonical absolute paths of the settings.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_landlock_internal.h"

struct plan {
        const struct ll_point *pts;
        size_t n;
        ll_list_fn list;
        void *list_userdata;
        struct ll_rules *out;
};

void ll_rules_free(struct ll_rules *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++)
                free(r->v[i].path);
        free(r->v);
        *r = (struct ll_rules){ 0 };
}

void ll_dirents_free(struct ll_dirent *v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i].name);
        free(v);
}

/* Is `p` strictly beneath directory `dir`? */
static int is_beneath(const char *p, const char *dir)
{
        size_t l = strlen(dir);

        if (l == 1 && dir[0] == '/')
                return p[0] == '/' && p[1] != '\0';
        return strncmp(p, dir, l) == 0 && p[l] == '/' && p[l + 1] != '\0';
}

/* The access of the points exactly at `path`, if any. */
static int point_at(const struct plan *pl, const char *path, uint64_t *ret)
{
        int found = 0;
        uint64_t m = ~0ULL;

        for (size_t i = 0; i < pl->n; i++)
                if (strcmp(pl->pts[i].path, path) == 0) {
                        m &= pl->pts[i].access;
                        found = 1;
                }
        if (found)
                *ret = m;
        return found;
}

/* Intersection of the access of every point strictly beneath `path`. */
static int points_beneath(const struct plan *pl, const char *path, uint64_t *ret)
{
        int any = 0;
        uint64_t m = ~0ULL;

        for (size_t i = 0; i < pl->n; i++)
                if (is_beneath(pl->pts[i].path, path)) {
                        m &= pl->pts[i].access;
                        any = 1;
                }
        *ret = m;
        return any;
}

static int emit(struct plan *pl, const char *path, uint64_t access)
{
        struct ll_rules *o = pl->out;

        if (access == 0)
                return 0;
        if (o->n == o->cap) {
                size_t cap = o->cap ? o->cap * 2 : 32;
                struct ll_rule *v = realloc(o->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                o->v = v;
                o->cap = cap;
        }
        o->v[o->n].path = strdup(path);
        if (!o->v[o->n].path)
                return -ENOMEM;
        o->v[o->n++].access = access;
        return 0;
}

static int join(char *buf, const char *dir, const char *name, size_t name_len)
{
        int r = snprintf(buf, PATH_MAX, "%s%s%.*s", dir, strcmp(dir, "/") == 0 ? "" : "/",
                         (int)name_len, name);

        return r < 0 || r >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int plan_node(struct plan *pl, const char *path, uint64_t granted, uint64_t desired);

/* Nothing is left to spread over siblings: go straight to the next path
 * component of each point beneath `path`, without listing the directory. */
static int plan_descend(struct plan *pl, const char *path, uint64_t granted, uint64_t desired)
{
        size_t base = strcmp(path, "/") == 0 ? 1 : strlen(path) + 1;
        char child[PATH_MAX];

        for (size_t i = 0; i < pl->n; i++) {
                const char *p = pl->pts[i].path, *comp, *end;
                int seen = 0;
                uint64_t d;

                if (!is_beneath(p, path))
                        continue;
                comp = p + base;
                end = strchrnul(comp, '/');
                for (size_t j = 0; j < i && !seen; j++)  /* one visit per component */
                        seen = is_beneath(pl->pts[j].path, path) &&
                               strncmp(pl->pts[j].path + base, comp, (size_t)(end - comp)) == 0 &&
                               (pl->pts[j].path[base + (size_t)(end - comp)] == '/' ||
                                pl->pts[j].path[base + (size_t)(end - comp)] == '\0');
                if (seen)
                        continue;
                int r = join(child, path, comp, (size_t)(end - comp));
                if (r < 0)
                        return r;
                if (!point_at(pl, child, &d))
                        d = desired;
                r = plan_node(pl, child, granted, d);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Something is left over: list `path` and hand it to every child.  A
 * symlink gets nothing: access is checked on the path it resolves to, and a
 * rule opened through it would land on its target. */
static int plan_siblings(struct plan *pl, const char *path, uint64_t granted, uint64_t desired)
{
        struct ll_dirent *ents = NULL;
        size_t n = 0;
        char child[PATH_MAX];
        int r = pl->list(pl->list_userdata, path, &ents, &n);

        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r >= 0; i++) {
                uint64_t d;

                if (ents[i].type == LL_ENT_LINK)
                        continue;
                r = join(child, path, ents[i].name, strlen(ents[i].name));
                if (r < 0)
                        break;
                if (!point_at(pl, child, &d))
                        d = desired;
                if (ents[i].type == LL_ENT_DIR)
                        r = plan_node(pl, child, granted, d);
                else
                        r = emit(pl, child, (d & ~granted) & LL_FILE_RIGHTS);
        }
        ll_dirents_free(ents, n);
        return r;
}

static int plan_node(struct plan *pl, const char *path, uint64_t granted, uint64_t desired)
{
        uint64_t beneath, common;
        int r;

        if (!points_beneath(pl, path, &beneath))
                return emit(pl, path, desired & ~granted);
        /* Grant here only what every point beneath also wants. */
        common = desired & beneath;
        r = emit(pl, path, common & ~granted);
        if (r < 0)
                return r;
        granted |= common;
        if (desired & ~granted)
                return plan_siblings(pl, path, granted, desired);
        return plan_descend(pl, path, granted, desired);
}

int ll_plan(const char *base, uint64_t base_access, const struct ll_point *pts, size_t n_pts,
            ll_list_fn list, void *list_userdata, struct ll_rules *ret)
{
        struct ll_rules out = { 0 };
        struct plan pl = { pts, n_pts, list, list_userdata, &out };
        uint64_t d;
        int r;

        if (!base || base[0] != '/' || !list || !ret)
                return -EINVAL;
        for (size_t i = 0; i < n_pts; i++) {
                size_t l = strlen(pts[i].path);
                if (pts[i].path[0] != '/' || (l > 1 && pts[i].path[l - 1] == '/'))
                        return -EINVAL;  /* not canonical: refuse rather than guess */
        }
        if (!point_at(&pl, base, &d))
                d = base_access;
        r = plan_node(&pl, base, 0, d);
        if (r < 0) {
                ll_rules_free(&out);
                return r;
        }
        *ret = out;
        return 0;
}
