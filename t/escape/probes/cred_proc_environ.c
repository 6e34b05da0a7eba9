/* SPDX-License-Identifier: MIT */
/* The same credential read from an ancestor's /proc/PID/environ: the
 * supervisor and the shell that started it still hold it even when the
 * command's own environment is clean. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probe.h"

static pid_t parent_of(pid_t pid)
{
        char p[64], line[256];
        int ppid = 0;
        FILE *f;

        snprintf(p, sizeof(p), "/proc/%d/status", (int) pid);
        f = fopen(p, "re");
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "PPid: %d", &ppid) == 1)
                        break;
        if (f)
                fclose(f);
        return ppid;
}

/* 1: the token is there, 0: not, -errno: unreadable */
static int environ_has_token(pid_t pid)
{
        static char buf[1 << 16];
        static const char key[] = "ESCAPE_FIXTURE_TOKEN=";
        char p[64];
        ssize_t n, len = 0;
        int fd;

        snprintf(p, sizeof(p), "/proc/%d/environ", (int) pid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        while (len < (ssize_t) sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t) len)) > 0)
                len += n;
        if (n < 0 && len == 0) {
                n = -errno;
                close(fd);
                return (int) n;
        }
        close(fd);
        buf[len] = '\0';
        for (ssize_t i = 0; i < len; i += (ssize_t) strlen(buf + i) + 1) {
                if (strncmp(buf + i, key, sizeof(key) - 1) == 0)
                        return 1;
        }
        return 0;
}

int main(void)
{
        char seen[512] = "";
        size_t used = 0;

        for (pid_t pid = getppid(); pid > 0; pid = parent_of(pid)) {
                int r = environ_has_token(pid);
                if (r == 1)
                        escaped("ESCAPE_FIXTURE_TOKEN read from /proc/%d/environ (an ancestor)", (int) pid);
                if (used < sizeof(seen) - 64)
                        used += (size_t) snprintf(seen + used, sizeof(seen) - used, "%s%d:%s", used ? " " : "",
                                                  (int) pid, r == 0 ? "clean" : ename(-r));
        }
        contained("no ancestor's /proc/PID/environ holds it (%s)", seen[0] ? seen : "no ancestor visible");
}
