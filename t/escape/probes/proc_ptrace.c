/* SPDX-License-Identifier: MIT */
/* ptrace the victim: registers and memory of a process outside.  Seized,
 * not stopped: the victim sees its TracerPid and logs it; exiting detaches. */
#include <sys/ptrace.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
        pid_t pid = victim_pid();

        if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
                contained("ptrace(PTRACE_SEIZE, victim): %s", ename(errno));
        usleep(200 * 1000);
        escaped("ptrace(PTRACE_SEIZE) attached to the victim (pid %d)", (int) pid);
}
