/* SPDX-License-Identifier: MIT */
/* UDP to the harness's echo listener on 127.0.0.1: a sendto alone proves
 * nothing (it succeeds into an isolated loopback too), the echo does. */
#include "probe.h"

int main(void)
{
        int fd = connect_listener(AF_INET, SOCK_DGRAM, "ESC_UDP4", "UDP 127.0.0.1");

        await_echo(fd, 300, "UDP 127.0.0.1");
}
