/* SPDX-License-Identifier: MIT */
/* The same swap one level down: rename a repository below the workspace
 * (vendor/lib) away and make a new one in its place, with a hook.  Its .git
 * is protected, but not, unless pinned, the directory holding it; the
 * harness puts the real one back (vendor/lib.swapped). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include "probe.h"

int main(void)
{
        char repo[4096], away[4096], path[4096];
        const char *ws = fixture("ESC_WS");
        int fd;

        snprintf(repo, sizeof(repo), "%s/vendor/lib", ws);
        snprintf(away, sizeof(away), "%s/vendor/lib.swapped", ws);
        if (rename(repo, away) < 0)
                contained("rename(vendor/lib, vendor/lib.swapped): %s", ename(errno));
        snprintf(path, sizeof(path), "%.4000s/.git", repo);
        if (mkdir(repo, 0755) < 0 || mkdir(path, 0755) < 0)
                contained("mkdir(vendor/lib/.git) after the rename: %s", ename(errno));
        snprintf(path, sizeof(path), "%.4000s/.git/hooks", repo);
        if (mkdir(path, 0755) < 0)
                contained("mkdir(vendor/lib/.git/hooks): %s", ename(errno));
        snprintf(path, sizeof(path), "%.4000s/.git/hooks/pre-commit", repo);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                contained("open(new vendor/lib/.git/hooks/pre-commit): %s", ename(errno));
        write_or_contained(fd, "a hook in a repository put in vendor/lib's place");
}
