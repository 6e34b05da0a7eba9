/* SPDX-License-Identifier: MIT */
/* unshare(CLONE_NEWUSER): every capability inside a new user namespace,
 * and with them mount, netfilter and the rest of the kernel surface. */
#include <sched.h>
#include "probe.h"

int main(void)
{
        if (unshare(CLONE_NEWUSER) < 0)
                contained("unshare(CLONE_NEWUSER): %s", ename(errno));
        escaped("unshare(CLONE_NEWUSER) succeeded: a user namespace of its own");
}
