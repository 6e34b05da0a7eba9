/* SPDX-License-Identifier: MIT */
/* Write the victim's memory with process_vm_writev(2). */
#include <sys/uio.h>
#include "probe.h"

int main(void)
{
        pid_t pid = victim_pid();
        int value = VICTIM_TAMPERED;
        struct iovec local = { &value, sizeof(value) };
        struct iovec remote = { (void *) victim_flag_addr(), sizeof(value) };

        if (process_vm_writev(pid, &local, 1, &remote, 1, 0) < 0)
                contained("process_vm_writev(victim): %s", ename(errno));
        escaped("process_vm_writev wrote the victim's memory (pid %d)", (int) pid);
}
