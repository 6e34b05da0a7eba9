/* SPDX-License-Identifier: MIT */
/* TCP to the harness's listener on ::1 (the host's loopback). */
#include <string.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        int fd = connect_listener(AF_INET6, SOCK_STREAM, "ESC_TCP6", "TCP ::1");

        if (send(fd, probe_marker, strlen(probe_marker), MSG_NOSIGNAL) < 0)
                contained("connected, then send: %s", ename(errno));
        escaped("connected to the host's TCP listener on ::1");
}
