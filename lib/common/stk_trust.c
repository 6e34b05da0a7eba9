/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stk_trust.h"
#include "stk_util.h"

#ifndef O_PATH
#define O_PATH O_RDONLY /* macOS: a read-only open of a directory does the same here */
#endif

int stk_trust_stat(const struct stat *st, uid_t uid, unsigned flags, const char **ret_why)
{
        bool dir = S_ISDIR(st->st_mode);

        if ((flags & STK_TRUST_DIRECTORY) && !dir) {
                *ret_why = "not a directory";
                return -EACCES;
        }
        if ((flags & (STK_TRUST_REGULAR | STK_TRUST_EXECUTABLE)) && !S_ISREG(st->st_mode)) {
                *ret_why = "not a regular file";
                return -EACCES;
        }
        if ((flags & STK_TRUST_EXECUTABLE) && !(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
                *ret_why = "not executable";
                return -EACCES;
        }
        if ((flags & STK_TRUST_STICKY_OK) && dir && st->st_uid == 0 && (st->st_mode & S_ISVTX))
                return 0;
        if (st->st_uid != uid && ((flags & STK_TRUST_OWNER_ONLY) || st->st_uid != 0)) {
                *ret_why = flags & STK_TRUST_OWNER_ONLY ? "owned by another user" : "owned by neither root nor the user";
                return -EPERM;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                *ret_why = "writable by group or others";
                return -EPERM;
        }
        return 0;
}

int stk_trust_fd(int fd, uid_t uid, unsigned flags, const char **ret_why)
{
        struct stat st;

        if (fstat(fd, &st) < 0) {
                *ret_why = "cannot be examined (fstat)";
                return -errno;
        }
        return stk_trust_stat(&st, uid, flags, ret_why);
}

/* Check the directory open as dfd, named by path[0..len). */
static int check_dir(int dfd, const char *path, size_t len, uid_t uid, char **ret_dir, const char **ret_why)
{
        int r = stk_trust_fd(dfd, uid, STK_TRUST_DIRECTORY | STK_TRUST_STICKY_OK, ret_why);

        if (r < 0 && ret_dir)
                *ret_dir = len ? strndup(path, len) : strdup("/");
        return r;
}

int stk_trust_ancestors(const char *path, uid_t uid, char **ret_dir, const char **ret_why)
{
        _cleanup_close_ int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        const char *p = path, *last = strrchr(path, '/');
        int r;

        if (path[0] != '/' || !last) {
                *ret_why = "not an absolute path";
                return -EINVAL;
        }
        if (dfd < 0) {
                *ret_why = "cannot open /";
                return -errno;
        }
        r = check_dir(dfd, path, 0, uid, ret_dir, ret_why);
        while (r >= 0 && p < last) {
                const char *start = p + 1, *end = strchr(start, '/');
                _cleanup_free_ char *name = strndup(start, (size_t) (end - start));
                int next;

                if (!name)
                        return -ENOMEM;
                p = end;
                if (!*name || streq(name, "."))
                        continue;
                if (streq(name, "..")) {
                        *ret_why = "not canonical (a .. component)";
                        return -EINVAL;
                }
                next = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0) {
                        *ret_why = errno == ELOOP || errno == ENOTDIR ? "a symlink or not a directory"
                                                                       : "cannot be opened";
                        if (ret_dir)
                                *ret_dir = strndup(path, (size_t) (end - path));
                        return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
                }
                closep(&dfd);
                dfd = next;
                r = check_dir(dfd, path, (size_t) (end - path), uid, ret_dir, ret_why);
        }
        return r;
}
