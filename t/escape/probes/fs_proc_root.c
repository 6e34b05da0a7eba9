/* SPDX-License-Identifier: MIT */
/* Reach the outside file through /proc/PID/root of every process this
 * probe can see: another process's root (the supervisor's, with a host
 * /proc) is the host's whole file system. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include "probe.h"

static int try_root(const char *pid, const char *target, int *first_err)
{
        char p[8192];
        int fd;

        snprintf(p, sizeof(p), "/proc/%s/root%s", pid, target);
        fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0 && !*first_err)
                *first_err = errno;
        return fd;
}

int main(void)
{
        const char *target = outside("target");
        int first_err = 0, tried = 1, fd;
        struct dirent *e;
        DIR *d;

        if (target[0] != '/')
                na("ESC_OUT is not absolute");
        fd = try_root("self", target, &first_err);
        if (fd >= 0)
                write_or_contained(fd, "/proc/self/root/<outside/target>");
        d = opendir("/proc");
        while (d && (e = readdir(d))) {
                if (!isdigit((unsigned char) e->d_name[0]))
                        continue;
                tried++;
                fd = try_root(e->d_name, target, &first_err);
                if (fd >= 0) {
                        char what[64];
                        snprintf(what, sizeof(what), "/proc/%.16s/root/<outside/target>", e->d_name);
                        write_or_contained(fd, what);
                }
        }
        contained("open(/proc/*/root/<outside/target>, O_WRONLY) fails for all %d: first %s", tried,
                  ename(first_err));
}
