/* SPDX-License-Identifier: MIT */
/* A symlink inside the workspace pointing outside, then a write through
 * it: path checks must follow the link, not trust where it lives. */
#include <fcntl.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        const char *lnk = scratch("link"), *target = outside("target");
        int fd;

        (void) unlink(lnk);
        if (symlink(target, lnk) < 0)
                contained("symlink(outside/target, workspace/scratch/link): %s", ename(errno));
        fd = open(lnk, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                contained("open(workspace/scratch/link -> outside/target, O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "workspace/scratch/link -> outside/target");
}
