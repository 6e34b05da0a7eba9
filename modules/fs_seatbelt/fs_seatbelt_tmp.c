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
#include "common/stk_remove_tree.h"

int sb_tmp_create(const char *base, char **ret_path)
{
        char *p = NULL;

        if (!stk_path_valid(base))
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

        if (!stk_path_valid(base) || !stk_path_valid(path) || !ours(base, path))
                return -EINVAL;
        dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        r = stk_remove_tree_at(dfd, strrchr(path, '/') + 1);
        (void) close(dfd); /* read-only: nothing to flush */
        return r;
}
