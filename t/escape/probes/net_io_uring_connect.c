/* SPDX-License-Identifier: MIT */
/* TCP connect to the host listener as an io_uring request: a seccomp
 * filter on connect(2) never sees it. */
#include <linux/io_uring.h>
#include "probe.h"

int main(void)
{
        struct sockaddr_storage sa;
        socklen_t len = listener_addr(AF_INET, "ESC_TCP4", &sa);
        struct ring *r = ring_open();
        struct io_uring_sqe *sqe;
        int fd, res;

        if (!r)
                ring_unavailable();
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                contained("socket(AF_INET): %s", ename(errno));
        sqe = ring_sqe(r);
        sqe->opcode = IORING_OP_CONNECT;
        sqe->fd = fd;
        sqe->addr = (unsigned long) &sa;
        sqe->off = len; /* the address length goes in `off` */
        res = ring_submit_wait(r);
        if (res < 0)
                contained("IORING_OP_CONNECT(127.0.0.1): %s", ename(-res));
        escaped("io_uring connected to the host's TCP listener on 127.0.0.1");
}
