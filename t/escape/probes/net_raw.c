/* SPDX-License-Identifier: MIT */
/* A raw IPv4 socket: forged packets, needs CAP_NET_RAW. */
#include <netinet/in.h>
#include "probe.h"

int main(void)
{
        int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

        if (fd < 0)
                contained("socket(AF_INET, SOCK_RAW, IPPROTO_ICMP): %s", ename(errno));
        escaped("raw IPv4 socket created (CAP_NET_RAW)");
}
