/* SPDX-License-Identifier: MIT */
/* The parts of os.h that are plain POSIX and the same everywhere. */
#include <errno.h>
#include <signal.h>

#include "os.h"

/* SIGCHLD ignored (SIG_IGN or SA_NOCLDWAIT, which exec keeps: a harness
 * may start us so) has the kernel reap our children and send no SIGCHLD:
 * the supervisor would wait for an exit it is never told of. */
int os_sigchld_default(void)
{
        struct sigaction sa = { .sa_handler = SIG_DFL };

        sigemptyset(&sa.sa_mask);
        return sigaction(SIGCHLD, &sa, NULL) < 0 ? -errno : 0;
}

void os_signals_reset(const sigset_t *old)
{
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL); /* EINVAL for the signals that cannot be caught */
        (void) sigprocmask(SIG_SETMASK, old, NULL); /* cannot fail with a valid set */
}
