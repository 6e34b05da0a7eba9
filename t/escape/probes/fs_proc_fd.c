/* SPDX-License-Identifier: MIT */
/* Reopen the inherited fd 9 for writing through /proc/self/fd/9. */
#include <fcntl.h>
#include "probe.h"

int main(void)
{
        int fd = open("/proc/self/fd/9", O_WRONLY | O_APPEND | O_CLOEXEC);

        if (fd < 0)
                contained("open(/proc/self/fd/9, O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "/proc/self/fd/9");
}
