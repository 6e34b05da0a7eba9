/* SPDX-License-Identifier: MIT */
/* Hard-dst an outside file into the workspace, then write to the dst:
 * the same inode, so the outside file changes. */
#include <fcntl.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        const char *dst = scratch("hardlink");
        int fd;

        (void) unlink(dst);
        if (link(outside("target"), dst) < 0)
                contained("link(outside/target, workspace/scratch/hardlink): %s", ename(errno));
        fd = open(dst, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                contained("link made, but open(O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "a hard link to outside/target");
}
