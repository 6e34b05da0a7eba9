/* SPDX-License-Identifier: MIT */
/* Connect to a unix socket file outside the workspace (think docker.sock,
 * the session bus, an ssh-agent): a read-only mount does not stop
 * connect(2), which needs only write permission on the socket inode. */
#include <string.h>
#include <sys/un.h>
#include "probe.h"

int main(void)
{
        const char *path = outside("sock");
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(path) >= sizeof(a.sun_path))
                na("socket path too long: %s", path);
        strcpy(a.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                contained("socket(AF_UNIX): %s", ename(errno));
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                contained("connect(outside/sock): %s", ename(errno));
        escaped("connected to the unix socket outside/sock");
}
