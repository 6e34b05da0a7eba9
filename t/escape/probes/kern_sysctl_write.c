/* SPDX-License-Identifier: MIT */
/* Write a global kernel setting through /proc/sys: the harness names a
 * harmless one ($ESC_SYSCTL, fs.lease-break-time) and puts it back.  Run
 * as root, bwrap maps the sandbox's uid 0 to host uid 0, and procfs lets
 * that uid write root-owned sysctls whatever the capabilities: the same
 * write to kernel.core_pattern made the host's kernel run a helper as host
 * root (issue 21). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        const char *path = fixture("ESC_SYSCTL");
        char buf[32] = "", value[32];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                na("open(%s, O_RDONLY): %s", path, ename(errno));
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                na("read(%s): %s", path, n < 0 ? ename(errno) : "empty");
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                contained("open(%s, O_WRONLY): %s", path, ename(errno));
        n = snprintf(value, sizeof(value), "%ld\n", strtol(buf, NULL, 10) + 1);
        if (write(fd, value, (size_t) n) != n)
                contained("write(%s): %s", path, ename(errno));
        escaped("wrote %s: a host kernel setting", path);
}
