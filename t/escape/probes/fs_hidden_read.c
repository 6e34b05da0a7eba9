/* SPDX-License-Identifier: MIT */
/* Read the fake HOME's ~/.ssh/id_rsa, a hidden credential. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        char p[4096], buf[256];
        ssize_t n;
        int fd;

        snprintf(p, sizeof(p), "%s/.ssh/id_rsa", fixture("ESC_HOME"));
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                contained("open(~/.ssh/id_rsa): %s", ename(errno));
        n = read(fd, buf, sizeof(buf));
        if (n < 0)
                contained("read(~/.ssh/id_rsa): %s", ename(errno));
        if (n == 0)
                contained("~/.ssh/id_rsa reads as empty");
        escaped("read %zd bytes of ~/.ssh/id_rsa", n);
}
