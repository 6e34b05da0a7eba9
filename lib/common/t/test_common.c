/* SPDX-License-Identifier: MIT */
/* lib/common's own tests: the buffer, string vectors, path predicates, the
 * hex digit, and the one trust rule every authority file passes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stk_buf.h"
#include "stk_path.h"
#include "stk_strv.h"
#include "stk_time.h"
#include "stk_trust.h"
#include "stk_util.h"
#include "unit.h"

/* ---- stk_buf ---------------------------------------------------------------- */

static void test_buf_grows_and_takes(void)
{
        struct stk_buf b = { 0 };
        char *s;

        CU_ASSERT_STRING_EQUAL((s = stk_buf_take(&b)), ""); /* nothing added: "", not NULL */
        free(s);
        for (int i = 0; i < 1000; i++)
                stk_buf_printf(&b, "%03d,", i);
        stk_buf_adds(&b, "end");
        stk_buf_addc(&b, '!');
        CU_ASSERT_EQUAL(b.len, 4000 + 4);
        s = stk_buf_take(&b);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL(strncmp(s, "000,001,", 8), 0);
        CU_ASSERT_STRING_EQUAL(s + 3996, "999,end!");
        CU_ASSERT_EQUAL(b.len, 0); /* emptied by take */
        free(s);
}

static void test_buf_max_truncates(void)
{
        struct stk_buf b = { .max = 10 };
        char *s;

        stk_buf_adds(&b, "0123456");
        CU_ASSERT_FALSE(b.truncated);
        stk_buf_adds(&b, "789abc");
        stk_buf_printf(&b, "%s", "more");
        CU_ASSERT_TRUE(b.truncated);
        CU_ASSERT_EQUAL(b.err, 0); /* a bound is not an error: what fits is kept */
        s = stk_buf_take(&b);
        CU_ASSERT_STRING_EQUAL(s, "0123456789");
        free(s);
        CU_ASSERT_EQUAL(b.max, 10); /* the bound survives take */
}

static void test_buf_truncate(void)
{
        struct stk_buf b = { 0 };

        stk_buf_adds(&b, "hello world");
        stk_buf_truncate(&b, 5);
        CU_ASSERT_STRING_EQUAL(b.s, "hello");
        stk_buf_truncate(&b, 50); /* longer than the text: nothing */
        CU_ASSERT_EQUAL(b.len, 5);
        stk_buf_done(&b);
        CU_ASSERT_PTR_NULL(b.s);
}

/* ---- strv, paths, hex -------------------------------------------------------- */

static void test_strv(void)
{
        _cleanup_strv_ char **v = NULL, **c = NULL;

        CU_ASSERT_EQUAL(strv_length(v), 0);
        CU_ASSERT_EQUAL(strv_push(&v, "a"), 0);
        CU_ASSERT_EQUAL(strv_push_take(&v, strdup("b")), 0);
        CU_ASSERT_EQUAL(strv_push_take(&v, NULL), -ENOMEM); /* a failed strdup is an error, not an entry */
        CU_ASSERT_EQUAL(strv_length(v), 2);
        CU_ASSERT_TRUE(strv_contains((const char *const *) v, "b"));
        CU_ASSERT_FALSE(strv_contains((const char *const *) v, "c"));
        c = strv_copy((const char *const *) v);
        CU_ASSERT_EQUAL(strv_length(c), 2);
        CU_ASSERT_PTR_NOT_EQUAL(c[0], v[0]);
        CU_ASSERT_STRING_EQUAL(c[1], "b");
}

static void test_paths(void)
{
        CU_ASSERT_TRUE(stk_path_valid("/"));
        CU_ASSERT_TRUE(stk_path_valid("/a/b.c/..d"));
        CU_ASSERT_FALSE(stk_path_valid("a/b"));
        CU_ASSERT_FALSE(stk_path_valid("/a//b"));
        CU_ASSERT_FALSE(stk_path_valid("/a/./b"));
        CU_ASSERT_FALSE(stk_path_valid("/a/../b"));
        CU_ASSERT_FALSE(stk_path_valid("/a/"));
        CU_ASSERT_FALSE(stk_path_valid(NULL));
        CU_ASSERT_TRUE(stk_path_beneath("/a/b", "/a"));
        CU_ASSERT_TRUE(stk_path_beneath("/a", "/a"));
        CU_ASSERT_TRUE(stk_path_beneath("/a/b", "/a/")); /* a trailing slash on the root is ignored */
        CU_ASSERT_FALSE(stk_path_beneath("/ab", "/a"));
        CU_ASSERT_TRUE(stk_path_beneath("/x", "/"));
        CU_ASSERT_FALSE(stk_path_strictly_beneath("/a", "/a"));
        CU_ASSERT_TRUE(stk_path_strictly_beneath("/a/b", "/a"));
        {
                char *j1 = stk_path_join("/a", "b/c"), *j2 = stk_path_join("/", "x");
                CU_ASSERT(j1 && strcmp(j1, "/a/b/c") == 0);
                CU_ASSERT(j2 && strcmp(j2, "/x") == 0); /* no doubled slash under / */
                free(j1);
                free(j2);
        }
        CU_ASSERT_EQUAL(stk_hex_value('7'), 7);
        CU_ASSERT_EQUAL(stk_hex_value('b'), 11);
        CU_ASSERT_EQUAL(stk_hex_value('F'), 15);
        CU_ASSERT_EQUAL(stk_hex_value('g'), -1);
}

/* The one rule for stockade's cache directory: XDG first, HOME after,
 * neither relative; the tail appended; a short buffer is an error. */
static void test_stockade_cache(void)
{
        char buf[64];

        setenv("XDG_CACHE_HOME", "/x/cache", 1);
        setenv("HOME", "/h", 1);
        CU_ASSERT_EQUAL(stk_path_stockade_cache(buf, sizeof(buf), "/sandbox-caches"), 0);
        CU_ASSERT_STRING_EQUAL(buf, "/x/cache/stockade/sandbox-caches");
        setenv("XDG_CACHE_HOME", "relative", 1);
        CU_ASSERT_EQUAL(stk_path_stockade_cache(buf, sizeof(buf), ""), 0);
        CU_ASSERT_STRING_EQUAL(buf, "/h/.cache/stockade");
        CU_ASSERT_EQUAL(stk_path_stockade_cache(buf, 8, ""), -ENAMETOOLONG);
        unsetenv("XDG_CACHE_HOME");
        setenv("HOME", "h", 1);
        CU_ASSERT_EQUAL(stk_path_stockade_cache(buf, sizeof(buf), ""), -ENOENT);
}

/* ---- the trust rule ---------------------------------------------------------- */

static struct stat st_of(mode_t mode, uid_t uid)
{
        struct stat st = { .st_mode = mode, .st_uid = uid };
        return st;
}

static void test_trust_stat(void)
{
        const char *why = NULL;
        struct stat st;

        st = st_of(S_IFREG | 0644, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_REGULAR, &why), 0);
        st = st_of(S_IFREG | 0644, 0);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), 0); /* root's is fine */
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_OWNER_ONLY, &why), -EPERM); /* but not for private state */
        st = st_of(S_IFREG | 0644, 1001);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), -EPERM);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "owned by"));
        /* every write bit beyond the owner's, each alone */
        st = st_of(S_IFREG | 0664, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), -EPERM);
        CU_ASSERT_STRING_EQUAL(why, "writable by group or others");
        st = st_of(S_IFREG | 0646, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), -EPERM);
        st = st_of(S_IFREG | 0620, 0);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), -EPERM);
        /* kinds */
        st = st_of(S_IFDIR | 0755, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_REGULAR, &why), -EACCES);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_DIRECTORY, &why), 0);
        st = st_of(S_IFREG | 0644, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_DIRECTORY, &why), -EACCES);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_EXECUTABLE, &why), -EACCES);
        st = st_of(S_IFREG | 0755, 1000);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_EXECUTABLE, &why), 0);
        /* the sticky exception: root's sticky directory, and only where asked */
        st = st_of(S_IFDIR | 01777, 0);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_STICKY_OK, &why), 0);
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, 0, &why), -EPERM);
        st = st_of(S_IFDIR | 01777, 1001); /* sticky but another user's */
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_STICKY_OK, &why), -EPERM);
        st = st_of(S_IFDIR | 0777, 0); /* world-writable, not sticky */
        CU_ASSERT_EQUAL(stk_trust_stat(&st, 1000, STK_TRUST_STICKY_OK, &why), -EPERM);
}

static char tmp[] = "/var/tmp/stk-trust.XXXXXX";

static void test_trust_ancestors(void)
{
        char path[256], link[256], *bad = NULL;
        const char *why = NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
        CU_ASSERT_EQUAL(chmod(tmp, 0755), 0);
        snprintf(link, sizeof(link), "%s/a", tmp);
        snprintf(path, sizeof(path), "%s/a/b", tmp);
        CU_ASSERT_EQUAL(mkdir(link, 0755), 0);
        CU_ASSERT_EQUAL(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/a/b/file", tmp);
        /* /var/tmp is root's and sticky, the rest ours: trusted */
        CU_ASSERT_EQUAL(stk_trust_ancestors(path, geteuid(), &bad, &why), 0);
        /* a group-writable directory on the way is named */
        snprintf(link, sizeof(link), "%s/a", tmp);
        CU_ASSERT_EQUAL(chmod(link, 0775), 0);
        CU_ASSERT_EQUAL(stk_trust_ancestors(path, geteuid(), &bad, &why), -EPERM);
        CU_ASSERT_STRING_EQUAL(bad, link);
        free(bad);
        bad = NULL;
        CU_ASSERT_EQUAL(chmod(link, 0755), 0);
        /* a symlink on the way is refused: the path must be canonical */
        snprintf(link, sizeof(link), "%s/l", tmp);
        CU_ASSERT_EQUAL(symlink("a", link), 0);
        snprintf(path, sizeof(path), "%s/l/b/file", tmp);
        CU_ASSERT_EQUAL(stk_trust_ancestors(path, geteuid(), &bad, &why), -EPERM);
        CU_ASSERT_STRING_EQUAL(bad, link);
        free(bad);
        CU_ASSERT_EQUAL(stk_trust_ancestors("relative/x", geteuid(), NULL, &why), -EINVAL);
        snprintf(path, sizeof(path), "%s/a/../a/b", tmp);
        CU_ASSERT_EQUAL(stk_trust_ancestors(path, geteuid(), NULL, &why), -EINVAL);
        snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
        CU_ASSERT_EQUAL(system(path), 0);
}

/* The audit log's time format, and its edges. */
static void test_time_iso(void)
{
        struct timespec ts = { .tv_sec = 1767323045, .tv_nsec = 678999999 };
        char buf[STK_TIME_ISO_MAX];

        CU_ASSERT_EQUAL(stk_time_iso(&ts, buf, sizeof(buf)), 24);
        CU_ASSERT_STRING_EQUAL(buf, "2026-01-02T03:04:05.678Z");
        ts = (struct timespec) { 0, 0 };
        CU_ASSERT_EQUAL(stk_time_iso(&ts, buf, sizeof(buf)), 24);
        CU_ASSERT_STRING_EQUAL(buf, "1970-01-01T00:00:00.000Z");
        CU_ASSERT_EQUAL(stk_time_iso(&ts, buf, 24), -1); /* no room for the NUL */
        CU_ASSERT_EQUAL(stk_time_iso(&ts, buf, 10), -1);
}

UNIT_SUITE(common, UNIT_TEST(test_buf_grows_and_takes), UNIT_TEST(test_buf_max_truncates), UNIT_TEST(test_buf_truncate),
           UNIT_TEST(test_strv), UNIT_TEST(test_paths), UNIT_TEST(test_stockade_cache), UNIT_TEST(test_trust_stat), UNIT_TEST(test_trust_ancestors),
           UNIT_TEST(test_time_iso))
