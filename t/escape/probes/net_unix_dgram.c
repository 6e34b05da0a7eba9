/* SPDX-License-Identifier: MIT */
/* Send a datagram to a unix socket file outside the workspace (think
 * /dev/log, journald's or systemd's notify socket) without connect(2):
 * sendmsg(2) with msg_name.  A connect guard alone misses it, and so does
 * refusing sendto(2) with an address: seccomp cannot read msg_name.  Tried
 * on socket(2) and on one end of a socketpair(2), whose connected peer does
 * not stop a datagram to another address.  SOCK_RAW too: the kernel
 * makes that one a datagram socket. */
#include <string.h>
#include <sys/un.h>
#include "probe.h"

static const char *try_send(int fd, const struct sockaddr_un *a)
{
        char byte = 'x';
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        struct msghdr m = { .msg_name = (void *) a, .msg_namelen = sizeof(*a), .msg_iov = &iov, .msg_iovlen = 1 };

        return sendmsg(fd, &m, MSG_DONTWAIT) == 1 ? NULL : ename(errno);
}

/* NULL when the datagram went out, else why not. */
static const char *send_from(int fd, const struct sockaddr_un *a)
{
        return fd < 0 ? ename(errno) : try_send(fd, a);
}

int main(void)
{
        const char *path = outside("dgram");
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        const char *why_socket, *why_pair, *why_raw;
        int sv[2] = { -1, -1 };

        if (strlen(path) >= sizeof(a.sun_path))
                na("socket path too long: %s", path);
        strcpy(a.sun_path, path);
        why_socket = send_from(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), &a);
        if (!why_socket)
                escaped("sendmsg from socket(AF_UNIX, SOCK_DGRAM) reached outside/dgram");
        why_pair = send_from(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0 ? -1 : sv[0], &a);
        if (!why_pair)
                escaped("sendmsg from socketpair(AF_UNIX, SOCK_DGRAM) reached outside/dgram");
        /* The kernel makes a SOCK_RAW unix socket a datagram one. */
        why_raw = send_from(socket(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0), &a);
        if (!why_raw)
                escaped("sendmsg from socket(AF_UNIX, SOCK_RAW) reached outside/dgram");
        contained("socket: %s; socketpair: %s; SOCK_RAW: %s", why_socket, why_pair, why_raw);
}
