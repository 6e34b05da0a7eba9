/* SPDX-License-Identifier: MIT */
/* Hard-link an outside file into the workspace, then write to the link:
 * the same inode, so the outside file changes. */
#include <fcntl.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        const char *link = scratch("hardlink");
        int fd;

        (void) unlink(link);
        if (link(outside("target"), link) < 0)
                contained("link(outside/target, workspace/scratch/hardlink): %s", ename(errno));
        fd = open(link, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                contained("link made, but open(O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "a hard link to outside/target");
}
