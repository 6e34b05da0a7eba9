/* SPDX-License-Identifier: MIT */
/* Plant a hook in a repository below the workspace (vendor/lib: a vendored
 * clone, or one of several repositories a workspace holds): git runs it
 * when the user next commits there.  Nothing commits in the fixture. */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/vendor/lib/.git/hooks/pre-commit", fixture("ESC_WS"));
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                contained("open(vendor/lib/.git/hooks/pre-commit, O_CREAT): %s", ename(errno));
        write_or_contained(fd, "vendor/lib/.git/hooks/pre-commit");
}
