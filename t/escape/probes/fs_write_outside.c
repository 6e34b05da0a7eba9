/* SPDX-License-Identifier: MIT */
/* Append to a file outside every writable root. */
#include <fcntl.h>
#include "probe.h"

int main(void)
{
        int fd = open(outside("target"), O_WRONLY | O_APPEND | O_CLOEXEC);

        if (fd < 0)
                contained("open(outside/target, O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "outside/target");
}
