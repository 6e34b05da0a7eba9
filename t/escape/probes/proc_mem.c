/* SPDX-License-Identifier: MIT */
/* Write the victim's memory through /proc/PID/mem. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        pid_t pid = victim_pid();
        unsigned long addr = victim_flag_addr();
        int value = VICTIM_TAMPERED, fd;
        char p[64];

        snprintf(p, sizeof(p), "/proc/%d/mem", (int) pid);
        fd = open(p, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                contained("open(/proc/<victim>/mem, O_RDWR): %s", ename(errno));
        if (pwrite(fd, &value, sizeof(value), (off_t) addr) < 0)
                contained("pwrite(/proc/<victim>/mem): %s", ename(errno));
        escaped("wrote the victim's memory through /proc/%d/mem", (int) pid);
}
