/* SPDX-License-Identifier: MIT */
/* Plant .git/hooks/pre-commit: code the user's next `git commit` runs.
 * The fixture repository is never committed to, so nothing runs it. */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/.git/hooks/pre-commit", fixture("ESC_WS"));
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                contained("open(.git/hooks/pre-commit, O_CREAT): %s", ename(errno));
        write_or_contained(fd, ".git/hooks/pre-commit");
}
