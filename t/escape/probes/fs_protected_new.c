/* SPDX-License-Identifier: MIT */
/* Create .envrc in the workspace: a protected name that does not exist yet
 * (direnv runs it on the user's next cd). */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/.envrc", fixture("ESC_WS"));
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                contained("open(workspace/.envrc, O_CREAT): %s", ename(errno));
        write_or_contained(fd, "workspace/.envrc");
}
