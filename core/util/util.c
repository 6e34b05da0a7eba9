/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>

#include <sys/stat.h>

#include "os/os.h"
#include "util.h"

static int canonicalize_walk(const char *path, char **ret)
{
        _cleanup_free_ char *head = NULL;
        char *resolved, *slash;

        if (path[0] != '/')
                return -EINVAL;
        head = strdup(path);
        if (!head)
                return -ENOMEM;
        /* Walk up until a prefix exists, then re-append what did not. */
        for (;;) {
                resolved = realpath(head, NULL);
                if (resolved)
                        break;
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                slash = strrchr(head, '/');
                if (!slash || slash == head) {
                        resolved = strdup("/");
                        if (!resolved)
                                return -ENOMEM;
                        break;
                }
                *slash = '\0';
        }
        const char *rest = path + strlen(head);
        if (*rest) {
                /* A leftover ".." could climb out of what realpath resolved. */
                if (strstr(rest, "/../") || strstr(rest, "/./") ||
                    (strlen(rest) >= 3 && streq(rest + strlen(rest) - 3, "/..")) ||
                    (strlen(rest) >= 2 && streq(rest + strlen(rest) - 2, "/."))) {
                        free(resolved);
                        return -EINVAL;
                }
                char *joined;
                if (asprintf(&joined, "%s%s", streq(resolved, "/") ? "" : resolved, rest) < 0) {
                        free(resolved);
                        return -ENOMEM;
                }
                free(resolved);
                resolved = joined;
        }
        *ret = resolved;
        return 0;
}

/* Directories already made canonical while a policy loads.  Most paths of a
 * policy share a handful of parents (the workspace, $HOME, .git), and
 * realpath(3) walks every component with a readlink(2) each: 7 to 13 us a
 * path here, most of the policy's load time.  Only between
 * path_memo_begin() and path_memo_end(), so nothing resolved once can go
 * stale over a long-lived operation. */
static struct { char *in, *out; } memo[16];
static bool memo_on;

void path_memo_begin(void)
{
        memo_on = true;
}

void path_memo_end(void)
{
        for (size_t i = 0; i < ELEMENTSOF(memo); i++) {
                free(memo[i].in);
                free(memo[i].out);
                memo[i].in = memo[i].out = NULL;
        }
        memo_on = false;
}

static const char *memo_find(const char *dir)
{
        for (size_t i = 0; i < ELEMENTSOF(memo) && memo[i].in; i++)
                if (streq(memo[i].in, dir))
                        return memo[i].out;
        return NULL;
}

static void memo_add(const char *dir, const char *canon)
{
        for (size_t i = 0; i < ELEMENTSOF(memo); i++)
                if (!memo[i].in) {
                        memo[i].in = strdup(dir);
                        memo[i].out = strdup(canon);
                        if (!memo[i].in || !memo[i].out) { /* no memo then; nothing is wrong */
                                free(memo[i].in);
                                free(memo[i].out);
                                memo[i].in = memo[i].out = NULL;
                        }
                        return;
                }
}

/* The parent made canonical (memoized), then the last component looked at
 * alone: a directory or file is appended, so is a name that does not exist
 * (as canonicalize_walk keeps it).  A symlink, ".", ".." or anything odd
 * takes the full walk.  1 when answered, 0 to take the walk, -errno. */
static int canonicalize_memo(const char *path, char **ret)
{
        const char *slash = strrchr(path, '/'), *leaf = slash + 1, *canon;
        _cleanup_free_ char *dir = NULL, *dir_canon = NULL;
        struct stat st;
        char *joined;
        int r;

        if (slash == path || !*leaf || streq(leaf, ".") || streq(leaf, ".."))
                return 0;
        dir = strndup(path, (size_t) (slash - path));
        if (!dir)
                return -ENOMEM;
        canon = memo_find(dir);
        if (!canon) {
                r = path_canonicalize(dir, &dir_canon);
                if (r < 0)
                        return r;
                memo_add(dir, dir_canon);
                canon = dir_canon;
        }
        if (asprintf(&joined, "%s/%s", streq(canon, "/") ? "" : canon, leaf) < 0)
                return -ENOMEM;
        if (lstat(joined, &st) == 0 ? !S_ISLNK(st.st_mode) : errno == ENOENT) {
                *ret = joined;
                return 1;
        }
        free(joined);
        return 0;
}

int path_canonicalize(const char *path, char **ret)
{
        if (path[0] != '/')
                return -EINVAL;
        if (memo_on) {
                int r = canonicalize_memo(path, ret);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        return canonicalize_walk(path, ret);
}

int path_canonicalize_parent(const char *path, char **ret)
{
        _cleanup_free_ char *dir = NULL, *cdir = NULL;
        const char *base;
        char *slash;
        int r;

        if (path[0] != '/')
                return -EINVAL;
        slash = strrchr(path, '/');
        base = slash + 1;
        if (!*base || streq(base, ".") || streq(base, ".."))
                return path_canonicalize(path, ret);
        dir = strndup(path, (size_t) (slash - path));
        if (!dir)
                return -ENOMEM;
        r = path_canonicalize(*dir ? dir : "/", &cdir);
        if (r < 0)
                return r;
        return asprintf(ret, "%s/%s", streq(cdir, "/") ? "" : cdir, base) < 0 ? -ENOMEM : 0;
}

static int cmp_int(const void *a, const void *b)
{
        return *(const int *)a - *(const int *)b;
}

int close_fds_except(int from, const int *keep, size_t n_keep)
{
        int sorted[64];

        if (n_keep > ELEMENTSOF(sorted))
                return -E2BIG;
        memcpy(sorted, keep, n_keep * sizeof(int));
        qsort(sorted, n_keep, sizeof(int), cmp_int);
        return os_close_fds_except(from, sorted, n_keep);
}

/* name, or name:/socket */
static bool sink_named(const char *spec, const char *name, const char **ret_rest)
{
        size_t n = strlen(name);

        if (strncmp(spec, name, n) != 0 || (spec[n] != '\0' && spec[n] != ':'))
                return false;
        *ret_rest = spec[n] ? spec + n + 1 : NULL;
        return true;
}

int core_audit_kind(const char *spec, const char **ret_socket)
{
        static const struct { const char *name, *socket; enum core_audit_kind kind; } sinks[] = {
                { "syslog", "/dev/log", CORE_AUDIT_SYSLOG },
                { "journal", "/run/systemd/journal/socket", CORE_AUDIT_JOURNAL },
        };
        const char *rest;

        for (size_t i = 0; i < ELEMENTSOF(sinks); i++) {
                if (!sink_named(spec, sinks[i].name, &rest))
                        continue;
                if (rest && rest[0] != '/')
                        return -EINVAL;
                if (ret_socket)
                        *ret_socket = rest ? rest : sinks[i].socket;
                return sinks[i].kind;
        }
        return CORE_AUDIT_FILE;
}
