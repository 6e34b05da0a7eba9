/* SPDX-License-Identifier: MIT */
/* Open and write an outside file with io_uring requests: they run in
 * kernel workers, where a seccomp filter on openat/write never looks. */
#include <fcntl.h>
#include <string.h>
#include <linux/io_uring.h>
#include "probe.h"

int main(void)
{
        struct ring *r = ring_open();
        struct io_uring_sqe *sqe;
        int fd, n;

        if (!r)
                ring_unavailable();
        sqe = ring_sqe(r);
        sqe->opcode = IORING_OP_OPENAT;
        sqe->fd = AT_FDCWD;
        sqe->addr = (unsigned long) outside("target");
        sqe->open_flags = O_WRONLY | O_APPEND | O_CLOEXEC;
        fd = ring_submit_wait(r);
        if (fd < 0)
                contained("IORING_OP_OPENAT(outside/target, O_WRONLY): %s", ename(-fd));
        sqe = ring_sqe(r);
        sqe->opcode = IORING_OP_WRITE;
        sqe->fd = fd;
        sqe->addr = (unsigned long) probe_marker;
        sqe->len = (unsigned) strlen(probe_marker);
        sqe->off = (unsigned long long) -1; /* the file position (O_APPEND) */
        n = ring_submit_wait(r);
        if (n < 0)
                contained("IORING_OP_OPENAT worked, IORING_OP_WRITE: %s", ename(-n));
        escaped("io_uring opened and wrote %d bytes to outside/target", n);
}
