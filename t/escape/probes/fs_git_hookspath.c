/* SPDX-License-Identifier: MIT */
/* Plant a hook where the repository's core.hooksPath points (tools/hooks,
 * as a team that versions its hooks sets it): git runs it, not
 * .git/hooks, on the user's next commit (issue 13).  Nothing commits in
 * the fixture. */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/tools/hooks/pre-commit", fixture("ESC_WS"));
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                contained("open(tools/hooks/pre-commit, O_CREAT): %s", ename(errno));
        write_or_contained(fd, "tools/hooks/pre-commit (core.hooksPath)");
}
