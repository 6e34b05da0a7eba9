/* SPDX-License-Identifier: MIT */
/*
 * fs_landlock's pure parts: the sibling-enumeration planner on a real
 * temp tree (and a fake lister where the tree cannot say it), the ABI
 * tables, the private /tmp directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_landlock_internal.h"
#include "unit.h"

#define EXEC_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)
#define MAKE_ANY (LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_SYM | \
                  LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR)

static char base[64]; /* "/tmp/stk-ll-unit.XXXXXX" */

static void mk(const char *rel, int dir)
{
        char p[PATH_MAX];
        int fd;

        snprintf(p, sizeof(p), "%s/%s", base, rel);
        if (dir) {
                CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
                return;
        }
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        CU_ASSERT_FATAL(fd >= 0);
        close(fd);
}

static const char *at(const char *rel)
{
        static char bufs[16][PATH_MAX];
        static int i;
        char *b = bufs[i++ % 16];

        snprintf(b, PATH_MAX, "%s%s%s", base, rel[0] ? "/" : "", rel);
        return b;
}

/*   base/a/f
 *   base/ws/{README, src/, link -> ../a, .git/{config, hooks/, objects/}}
 *   base/home/{visible, .ssh/id, .config/{gh/hosts, other/}}          */
static void make_tree(void)
{
        static const char *dirs[] = { "a", "ws", "ws/src", "ws/.git", "ws/.git/hooks", "ws/.git/objects",
                                      "home", "home/.ssh", "home/.config", "home/.config/gh", "home/.config/other" };
        static const char *files[] = { "a/f", "ws/README", "ws/.git/config", "home/visible", "home/.ssh/id",
                                       "home/.config/gh/hosts" };
        char link[PATH_MAX];

        snprintf(base, sizeof(base), "/tmp/stk-ll-unit.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(base) != NULL);
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                mk(dirs[i], 1);
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                mk(files[i], 0);
        snprintf(link, sizeof(link), "%s/ws/link", base);
        CU_ASSERT_FATAL(symlink("../a", link) == 0);
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(p) < 0 ? -1 : 0;
}

static void drop_tree(void)
{
        CU_ASSERT(nftw(base, rm_cb, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

static uint64_t rule_for(const struct ll_rules *r, const char *path)
{
        for (size_t i = 0; i < r->n; i++)
                if (strcmp(r->v[i].path, path) == 0)
                        return r->v[i].access;
        return 0;
}

/* The standard points of the tree: ws writable with .git and a missing
 * .gitmodules read-only; .ssh and .config/gh hidden. */
static size_t tree_points(struct ll_point *pts)
{
        size_t n = 0;

        pts[n++] = (struct ll_point){ at("ws"), LL_RW };
        pts[n++] = (struct ll_point){ at("ws/.git"), LL_READ };
        pts[n++] = (struct ll_point){ at("ws/.gitmodules"), LL_READ };
        pts[n++] = (struct ll_point){ at("home/.ssh"), LL_HIDE };
        pts[n++] = (struct ll_point){ at("home/.config/gh"), LL_HIDE };
        return n;
}

static void test_plan_islands_and_hidden(void)
{
        struct ll_point pts[8];
        struct ll_rules r = { 0 };
        size_t n;

        make_tree();
        n = tree_points(pts);
        CU_ASSERT_FATAL(ll_plan(base, LL_READ, pts, n, ll_list_dir, NULL, &r) == 0);
        /* READ_DIR is all the whole tree (hidden paths included) may share. */
        CU_ASSERT_EQUAL(rule_for(&r, at("")), LANDLOCK_ACCESS_FS_READ_DIR);
        CU_ASSERT_EQUAL(rule_for(&r, at("a")), EXEC_READ);
        /* ws: read here, write spread over its children but .git. */
        CU_ASSERT_EQUAL(rule_for(&r, at("ws")), EXEC_READ);
        CU_ASSERT_EQUAL(rule_for(&r, at("ws/src")), LL_WRITE);
        CU_ASSERT_EQUAL(rule_for(&r, at("ws/README")), LL_WRITE & LL_FILE_RIGHTS);
        CU_ASSERT_EQUAL(rule_for(&r, at("ws/.git")), 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("ws/link")), 0);      /* symlinks get nothing */
        CU_ASSERT_EQUAL(rule_for(&r, at("ws/.gitmodules")), 0);
        /* home: siblings of the hidden paths readable, hidden ones not. */
        CU_ASSERT_EQUAL(rule_for(&r, at("home")), 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("home/visible")), EXEC_READ);
        CU_ASSERT_EQUAL(rule_for(&r, at("home/.ssh")), 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("home/.config")), 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("home/.config/other")), EXEC_READ);
        CU_ASSERT_EQUAL(rule_for(&r, at("home/.config/gh")), 0);
        CU_ASSERT_EQUAL(r.n, 7);
        ll_rules_free(&r);
        drop_tree();
}

/* A missing protected path must not become creatable: nothing on ws or
 * above may carry a MAKE_* or REMOVE_* right (they are inherited). */
static void test_plan_missing_island_not_creatable(void)
{
        struct ll_point pts[8];
        struct ll_rules r = { 0 };

        make_tree();
        CU_ASSERT_FATAL(ll_plan(base, LL_READ, pts, tree_points(pts), ll_list_dir, NULL, &r) == 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("ws")) & MAKE_ANY, 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("")) & MAKE_ANY, 0);
        ll_rules_free(&r);
        drop_tree();
}

/* Which points decide `path`: the deepest at or above it, else the base. */
static uint64_t desired(const struct ll_point *pts, size_t n, const char *path)
{
        size_t best = 0;
        uint64_t m = LL_READ;

        for (size_t i = 0; i < n; i++) {
                size_t l = strlen(pts[i].path);
                if (strncmp(path, pts[i].path, l) == 0 && (path[l] == '/' || path[l] == '\0') && l >= best) {
                        m = l > best ? pts[i].access : m & pts[i].access;
                        best = l;
                }
        }
        return m;
}

static struct {
        const struct ll_rules *r;
        const struct ll_point *pts;
        size_t n;
        unsigned checked, bad;
} walk;

/* The Landlock semantics: a path gets the union of the rules on it and its
 * ancestors.  The spec: every path gets its desired access, except that a
 * directory on the way to a point gets only what that point also wants
 * (anything more would be inherited by the point: the trade-off of
 * stockade-fs_landlock(8)). */
static int check_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        uint64_t eff = 0, want = desired(walk.pts, walk.n, p);

        if (S_ISLNK(st->st_mode))
                return 0;
        for (size_t i = 0; i < walk.n; i++) {
                size_t l = strlen(p);
                if (strncmp(walk.pts[i].path, p, l) == 0 && walk.pts[i].path[l] == '/')
                        want &= walk.pts[i].access;
        }
        for (size_t i = 0; i < walk.r->n; i++) {
                size_t l = strlen(walk.r->v[i].path);
                if (strncmp(p, walk.r->v[i].path, l) == 0 && (p[l] == '/' || p[l] == '\0'))
                        eff |= walk.r->v[i].access;
        }
        if (!S_ISDIR(st->st_mode)) {
                eff &= LL_FILE_RIGHTS;
                want &= LL_FILE_RIGHTS;
        }
        walk.checked++;
        if (eff != want) {
                walk.bad++;
                fprintf(stderr, "\n  %s: effective 0x%llx, want 0x%llx", p, (unsigned long long)eff,
                        (unsigned long long)want);
        }
        return 0;
}

/* The invariant, on every file and directory of the tree. */
static void test_plan_union_equals_desired(void)
{
        struct ll_point pts[8];
        struct ll_rules r = { 0 };
        size_t n;

        make_tree();
        n = tree_points(pts);
        CU_ASSERT_FATAL(ll_plan(base, LL_READ, pts, n, ll_list_dir, NULL, &r) == 0);
        walk.r = &r;
        walk.pts = pts;
        walk.n = n;
        walk.checked = walk.bad = 0;
        CU_ASSERT(nftw(base, check_cb, 16, FTW_PHYS) == 0);
        CU_ASSERT(walk.checked >= 17);
        CU_ASSERT_EQUAL(walk.bad, 0);
        ll_rules_free(&r);
        drop_tree();
}

static int list_must_not_run(void *ud, const char *dir, struct ll_dirent **ret, size_t *ret_n)
{
        CU_FAIL("listed a directory although nothing was left to spread");
        return -EIO;
}

/* No island, no hidden path: no directory is listed at all. */
static void test_plan_no_listing_when_nothing_left(void)
{
        struct ll_point pts[] = { { "/srv/ws", LL_RW }, { "/dev/null", LL_DEV_W } };
        struct ll_rules r = { 0 };

        CU_ASSERT_FATAL(ll_plan("/", LL_READ, pts, 2, list_must_not_run, NULL, &r) == 0);
        CU_ASSERT_EQUAL(r.n, 3);
        CU_ASSERT_EQUAL(rule_for(&r, "/"), LL_READ);
        CU_ASSERT_EQUAL(rule_for(&r, "/srv"), 0);
        CU_ASSERT_EQUAL(rule_for(&r, "/srv/ws"), LL_WRITE);
        CU_ASSERT_EQUAL(rule_for(&r, "/dev/null"), LL_DEV_W & ~LL_READ);
        ll_rules_free(&r);
}

static void test_plan_same_path_most_restrictive(void)
{
        struct ll_point pts[] = { { "/srv/ws", LL_RW }, { "/srv/ws", LL_READ } };
        struct ll_rules r = { 0 };

        CU_ASSERT_FATAL(ll_plan("/", LL_READ, pts, 2, list_must_not_run, NULL, &r) == 0);
        CU_ASSERT_EQUAL(r.n, 1);
        CU_ASSERT_EQUAL(rule_for(&r, "/"), LL_READ);
        ll_rules_free(&r);
}

static int list_eacces(void *ud, const char *dir, struct ll_dirent **ret, size_t *ret_n)
{
        return -EACCES;
}

static void test_plan_errors(void)
{
        struct ll_point hidden[] = { { "/home/u/.ssh", LL_HIDE } };
        struct ll_point slash[] = { { "/srv/ws/", LL_RW } };
        struct ll_point rel[] = { { "srv/ws", LL_RW } };
        struct ll_rules r = { 0 };

        /* A directory we cannot list cannot be carved: fail, do not guess. */
        CU_ASSERT_EQUAL(ll_plan("/", LL_READ, hidden, 1, list_eacces, NULL, &r), -EACCES);
        CU_ASSERT_EQUAL(r.n, 0);
        CU_ASSERT_EQUAL(ll_plan("/", LL_READ, slash, 1, list_eacces, NULL, &r), -EINVAL);
        CU_ASSERT_EQUAL(ll_plan("/", LL_READ, rel, 1, list_eacces, NULL, &r), -EINVAL);
}

/* A point inside a directory that does not exist: listing it is an empty
 * directory, the rule for the missing path is left to the applier. */
static void test_plan_missing_directory(void)
{
        struct ll_point pts[2];
        struct ll_rules r = { 0 };

        make_tree();
        pts[0] = (struct ll_point){ at("nope/deeper"), LL_HIDE };
        pts[1] = (struct ll_point){ at("nope/deeper/ws"), LL_RW };
        CU_ASSERT_FATAL(ll_plan(base, LL_READ, pts, 2, ll_list_dir, NULL, &r) == 0);
        CU_ASSERT_EQUAL(rule_for(&r, at("a")), EXEC_READ);
        CU_ASSERT_EQUAL(rule_for(&r, at("nope")), 0);
        ll_rules_free(&r);
        drop_tree();
}

static void test_abi_tables(void)
{
        CU_ASSERT_EQUAL(ll_abi_fs_rights(0), 0);
        CU_ASSERT_EQUAL(ll_abi_fs_rights(1), 0x1fff);
        CU_ASSERT_EQUAL(ll_abi_fs_rights(2), 0x3fff);
        CU_ASSERT_EQUAL(ll_abi_fs_rights(4), 0x7fff);
        CU_ASSERT_EQUAL(ll_abi_fs_rights(7), 0xffff);
        CU_ASSERT_EQUAL(ll_abi_net_rights(3), 0);
        CU_ASSERT_EQUAL(ll_abi_net_rights(4), 3);
        CU_ASSERT_EQUAL(ll_abi_scopes(5), 0);
        CU_ASSERT_EQUAL(ll_abi_scopes(6), 3);
        CU_ASSERT_EQUAL(ll_abi_covers(2) & STK_COVER_WRITE, 0); /* truncate(2) unrestricted */
        CU_ASSERT(ll_abi_covers(3) & STK_COVER_READ_ONLY);
        CU_ASSERT_EQUAL(ll_abi_covers(5) & (STK_COVER_PROCESS | STK_COVER_NET_ABSTRACT), 0);
        CU_ASSERT_EQUAL(ll_abi_covers(6) & (STK_COVER_PROCESS | STK_COVER_NET_ABSTRACT),
                        STK_COVER_PROCESS | STK_COVER_NET_ABSTRACT);
        CU_ASSERT_EQUAL(ll_abi_covers(7) & (STK_COVER_NET_OTHER | STK_COVER_NET_UNIX | STK_COVER_KERNEL), 0);
        CU_ASSERT_STRING_EQUAL(ll_cover_name(STK_COVER_NET_TCP), "net_tcp");
        /* Every right we plan with is one the newest ABI knows. */
        CU_ASSERT_EQUAL((LL_RW | LL_DEV_TTY) & ~ll_abi_fs_rights(7), 0);
        CU_ASSERT_EQUAL(LL_WRITE & (LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                                    LANDLOCK_ACCESS_FS_IOCTL_DEV), 0);
}

static void test_tmp_create_remove(void)
{
        char *dir = NULL, *p2 = NULL, p[PATH_MAX], victim[] = "/tmp/stk-ll-victim.XXXXXX";
        int fd = mkstemp(victim);
        struct stat st;

        CU_ASSERT_FATAL(fd >= 0);
        close(fd);
        CU_ASSERT_FATAL(ll_tmp_create(NULL, &dir) == 0);
        CU_ASSERT(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
        snprintf(p, sizeof(p), "%s/d", dir);
        CU_ASSERT(mkdir(p, 0755) == 0);
        snprintf(p, sizeof(p), "%s/d/ln", dir);
        CU_ASSERT(symlink(victim, p) == 0);   /* must be unlinked, never followed */
        snprintf(p, sizeof(p), "%s/d/e", dir);
        CU_ASSERT(mkdir(p, 0) == 0);
        CU_ASSERT_EQUAL(ll_tmp_remove(dir), 0);
        CU_ASSERT(stat(dir, &st) < 0 && errno == ENOENT);
        CU_ASSERT(stat(victim, &st) == 0);
        CU_ASSERT_EQUAL(ll_tmp_remove("/tmp/other"), -EINVAL);
        CU_ASSERT_EQUAL(ll_tmp_remove("/tmp/stockade-ll.x/../../etc"), -EINVAL);
        CU_ASSERT_EQUAL(ll_tmp_remove("/tmp/stockade-ll.abcdef/x"), -EINVAL);
        /* A wanted name is taken as is when it is one of ours and free... */
        CU_ASSERT_FATAL(ll_tmp_create(dir, &p2) == 0);
        CU_ASSERT_STRING_EQUAL(p2, dir);
        CU_ASSERT_EQUAL(ll_tmp_remove(p2), 0);
        free(p2);
        /* ...and ignored otherwise. */
        CU_ASSERT_FATAL(ll_tmp_create("/etc/x", &p2) == 0);
        CU_ASSERT(strncmp(p2, "/tmp/stockade-ll.", 17) == 0);
        CU_ASSERT_EQUAL(ll_tmp_remove(p2), 0);
        free(p2);
        unlink(victim);
        free(dir);
}

UNIT_SUITE(fs_landlock_plan,
           UNIT_TEST(test_plan_islands_and_hidden),
           UNIT_TEST(test_plan_missing_island_not_creatable),
           UNIT_TEST(test_plan_union_equals_desired),
           UNIT_TEST(test_plan_no_listing_when_nothing_left),
           UNIT_TEST(test_plan_same_path_most_restrictive),
           UNIT_TEST(test_plan_errors),
           UNIT_TEST(test_plan_missing_directory),
           UNIT_TEST(test_abi_tables),
           UNIT_TEST(test_tmp_create_remove))
