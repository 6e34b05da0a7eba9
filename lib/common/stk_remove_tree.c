/* SPDX-License-Identifier: MIT */
/* The per-run private temp directories of fs_landlock and fs_seatbelt are
 * removed after the command, which may have filled them with anything. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stk_remove_tree.h"

static int remove_at(int dfd, const char *name, unsigned depth);

/* Empty the directory open as `fd` (consumed). */
static int empty_dir(int fd, unsigned depth)
{
        struct dirent *de;
        int r = 0;
        DIR *d = fdopendir(fd);

        if (!d) {
                r = -errno;
                (void) close(fd); /* a read-only directory fd: nothing to flush */
                return r;
        }
        for (errno = 0; (de = readdir(d)); errno = 0) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                int k = remove_at(dirfd(d), de->d_name, depth + 1);
                if (k < 0 && r == 0)
                        r = k; /* go on: remove as much as we can */
        }
        if (errno != 0 && r == 0)
                r = -errno;
        (void) closedir(d); /* as above */
        return r;
}

/* The command may have left directories it made unreadable or unwritable
 * (chmod 000): as their owner we may give ourselves the rights back.  By
 * now the command and everything it started are gone, so nobody can swap
 * the name for a symlink between the calls (unlinkat said EISDIR, and a
 * symlink would have been unlinked). */
static int open_dir_for_removal(int dfd, const char *name)
{
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0 && errno == EACCES && fchmodat(dfd, name, 0700, 0) == 0)
                fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fchmod(fd, 0700) < 0 && errno != EPERM) { /* EPERM: not ours; root needs no rights */
                int r = -errno;
                (void) close(fd);
                return r;
        }
        return fd;
}

static int remove_at(int dfd, const char *name, unsigned depth)
{
        int fd, r;

        if (unlinkat(dfd, name, 0) == 0)
                return 0;
        /* EISDIR on Linux, EPERM on macOS (and Linux for some filesystems) */
        if (errno != EISDIR && errno != EPERM)
                return errno == ENOENT ? 0 : -errno;
        if (depth > 256) /* the command can nest deeper than our stack should go */
                return -ELOOP;
        fd = open_dir_for_removal(dfd, name);
        if (fd < 0)
                return fd;
        r = empty_dir(fd, depth);
        if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && r == 0)
                r = -errno;
        return r;
}

int stk_remove_tree_at(int dfd, const char *name)
{
        return remove_at(dfd, name, 0);
}
