/* SPDX-License-Identifier: MIT */
/* Append to the workspace's .git/config (core.fsmonitor & co run code). */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/.git/config", fixture("ESC_WS"));
        fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                contained("open(.git/config, O_WRONLY): %s", ename(errno));
        write_or_contained(fd, ".git/config");
}
