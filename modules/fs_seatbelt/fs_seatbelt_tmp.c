/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_tmp.c - the per-run TMPDIR of private_tmp.
 *
 * Seatbelt has no mount namespace, so no fresh /tmp can be put in place:
 * the supervisor makes BASE/stockade-sb.XXXXXX (mode 0700; BASE is
 * /private/tmp on macOS) before the command starts, the profile makes it
 * writable and the rest of the host's /tmp unreadable and unwritable, the
 * command finds it through TMPDIR, and fini removes it once the command has
 * ended.  Everything the command left inside is removed fd-relative with
 * O_NOFOLLOW, so a symlink it planted is unlinked, never followed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_seatbelt_internal.h"

int sb_tmp_create(const char *base, char **ret_path)
{
        char *p = NULL;

        if (!sb_path_valid(base))
                return -EINVAL;
        if (asprintf(&p, "%s/%s", streq(base, "/") ? "" : base, SB_TMP_NAME) < 0)
                return -ENOMEM;
        if (!mkdtemp(p)) { /* mode 0700 (POSIX) */
                int r = -errno;
                free(p);
                return r;
        }
        *ret_path = p;
        return 0;
}

static int remove_at(int dfd, const char *name, unsigned depth);

/* Empty the directory open as `fd` (consumed). */
static int empty_dir(int fd, unsigned depth)
{
        struct dirent *de;
        DIR *d = fdopendir(fd);
        int r = 0;

        if (!d) {
                r = -errno;
                (void) close(fd); /* a read-only directory fd: nothing to flush */
                return r;
        }
        for (errno = 0; (de = readdir(d)); errno = 0) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
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

static int remove_at(int dfd, const char *name, unsigned depth)
{
        int fd, r;

        if (unlinkat(dfd, name, 0) == 0)
                return 0;
        /* EPERM: a directory on macOS and Linux alike; EISDIR on Linux */
        if (errno != EISDIR && errno != EPERM)
                return errno == ENOENT ? 0 : -errno;
        if (depth > 256) /* the command can nest deeper than our stack should go */
                return -ELOOP;
        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                /* Unreadable (mode 0000) but perhaps empty.  No chmod to get
                 * in: it would follow a symlink swapped in meanwhile. */
                r = -errno;
                return unlinkat(dfd, name, AT_REMOVEDIR) == 0 ? 0 : r;
        }
        r = empty_dir(fd, depth);
        if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && r == 0)
                r = -errno;
        return r;
}

/* Only ever remove what sb_tmp_create made: one stockade-sb.* name right
 * beneath `base`. */
static bool ours(const char *base, const char *path)
{
        size_t n = streq(base, "/") ? 0 : strlen(base);
        const char *name = path + n + 1;

        return strncmp(path, base, n) == 0 && path[n] == '/' &&
               strncmp(name, SB_TMP_NAME, strlen(SB_TMP_NAME) - 6) == 0 &&
               strlen(name) == strlen(SB_TMP_NAME) && !strchr(name, '/');
}

int sb_tmp_remove(const char *base, const char *path)
{
        int dfd, r;

        if (!sb_path_valid(base) || !sb_path_valid(path) || !ours(base, path))
                return -EINVAL;
        dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        r = remove_at(dfd, strrchr(path, '/') + 1, 0);
        (void) close(dfd); /* read-only: nothing to flush */
        return r;
}
