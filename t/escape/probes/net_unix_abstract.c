/* SPDX-License-Identifier: MIT */
/* Connect to the harness's abstract unix socket: no file, no path check;
 * only a network namespace (or Landlock's scoping) separates it. */
#include <string.h>
#include <sys/un.h>
#include "probe.h"

int main(void)
{
        const char *name = fixture("ESC_ABSTRACT");
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        size_t n = strlen(name);
        int fd;

        if (n + 1 > sizeof(a.sun_path))
                na("abstract name too long");
        memcpy(a.sun_path + 1, name, n); /* sun_path[0] == 0: abstract */
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                contained("socket(AF_UNIX): %s", ename(errno));
        if (connect(fd, (struct sockaddr *) &a, (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0)
                contained("connect(@%s): %s", name, ename(errno));
        escaped("connected to the host's abstract unix socket @%s", name);
}
