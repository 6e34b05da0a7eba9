/* SPDX-License-Identifier: MIT */
/* Signal the victim.  SIGUSR1, which it catches and logs: the proof of a
 * kill without killing anything. */
#include <signal.h>
#include "probe.h"

int main(void)
{
        pid_t pid = victim_pid();

        if (kill(pid, SIGUSR1) < 0)
                contained("kill(victim, SIGUSR1): %s", ename(errno));
        escaped("kill(victim pid %d, SIGUSR1) delivered", (int) pid);
}
