/* SPDX-License-Identifier: MIT */
/* What the proxy tests' clients (hostile-helper, raw-helper) share: the
 * connection to the proxy named by $HTTP_PROXY, and sending it bytes. */
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A TCP connection to the proxy's port on 127.0.0.1, with TCP_NODELAY (a
 * small write is a segment of its own) and a receive timeout; -1. */
static inline int proxy_connect(void)
{
        const char *env = getenv("HTTP_PROXY");
        const char *colon = env ? strrchr(env, ':') : NULL;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct timeval tv = { 20, 0 };
        int one = 1, fd;

        if (!colon)
                return -1;
        a.sin_port = htons((uint16_t) atoi(colon + 1));
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                return -1;
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return fd;
}

/* All of it, or as much as the proxy took before it closed; bytewise: one
 * byte per write, 2 ms apart (a request split over the proxy's reads). */
static inline void send_bytes(int fd, const void *p, size_t len, bool bytewise)
{
        const char *c = p;

        while (len) {
                ssize_t n = send(fd, c, bytewise ? 1 : len, MSG_NOSIGNAL);
                if (n <= 0)
                        return;
                c += n;
                len -= (size_t) n;
                if (bytewise)
                        usleep(2000);
        }
}
