/* SPDX-License-Identifier: MIT */
/* Read a host process's command line (/proc/PID/cmdline: passwords and
 * tokens passed as arguments), here the victim's, recognised by its argv
 * so that a sandbox process that happens to have the same pid number is
 * not taken for it (issue 13, §4).  Landlock cannot close cmdline: the
 * landlock profile lists it under best_effort, t/integration/escape.sh as a
 * documented gap of that stack. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        char p[64], buf[4096];
        pid_t pid = victim_pid();
        ssize_t n;
        int fd;

        snprintf(p, sizeof(p), "/proc/%d/cmdline", (int) pid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                contained("open(/proc/victim/cmdline): %s", ename(errno));
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                contained("read(/proc/victim/cmdline): %s", ename(errno));
        buf[n] = '\0';
        /* argv[0] escape-fixture, argv[1] "victim" */
        if (n > 0 && (size_t) n > strlen(buf) + 1 && strcmp(buf + strlen(buf) + 1, "victim") == 0)
                escaped("read the victim's command line from /proc/%d/cmdline", (int) pid);
        contained("/proc/%d is another process here, not the victim", (int) pid);
}
