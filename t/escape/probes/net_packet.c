/* SPDX-License-Identifier: MIT */
/* A packet socket: every frame on the interfaces, and raw frames out. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "probe.h"

int main(void)
{
        int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

        if (fd < 0)
                contained("socket(AF_PACKET, SOCK_RAW): %s", ename(errno));
        escaped("packet socket created (AF_PACKET)");
}
