/* SPDX-License-Identifier: MIT */
/*
 * The per-run "private /tmp" of fs_landlock.  Landlock has no mount
 * namespace, so there is no fresh tmpfs to put on /tmp: the supervisor makes
 * /tmp/stockade-ll.XXXXXX (mode 0700) in init, the command gets it as
 * TMPDIR with write access, host /tmp itself is hidden, and fini removes the
 * directory when the command has ended.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_landlock_internal.h"
#include "common/stk_remove_tree.h"

/* One of ours: /tmp/stockade-ll.<6 chars>, no further slash. */
static int is_ours(const char *p)
{
        return p && strncmp(p, "/tmp/stockade-ll.", 17) == 0 && strlen(p) == 23 && !strchr(p + 5, '/');
}

int ll_tmp_create(const char *want, char **ret_path)
{
        char tmpl[] = "/tmp/stockade-ll.XXXXXX";
        char *p;

        /* Inside a wrapper's private /tmp, the inner helper re-creates the
         * directory the supervisor already named in the plan's TMPDIR, so
         * the command's environment needs no change. */
        if (is_ours(want) && mkdir(want, 0700) == 0)
                memcpy(tmpl, want, sizeof(tmpl));
        else if (!mkdtemp(tmpl))  /* mode 0700 (POSIX) */
                return -errno;
        p = strdup(tmpl);
        if (!p) {
                (void)rmdir(tmpl); /* best effort: we are already failing with ENOMEM */
                return -ENOMEM;
        }
        *ret_path = p;
        return 0;
}


int ll_tmp_remove(const char *path)
{
        int dfd, r;

        if (!is_ours(path))  /* only ever remove what ll_tmp_create made */
                return -EINVAL;
        dfd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        r = stk_remove_tree_at(dfd, path + 5);
        close(dfd);
        return r;
}
