/* SPDX-License-Identifier: MIT */
/* userfaultfd(2) able to handle kernel-mode faults: stalls the kernel at
 * will, the classic tool to win kernel races. */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "probe.h"

int main(void)
{
#ifdef SYS_userfaultfd
        long fd = syscall(SYS_userfaultfd, O_CLOEXEC); /* no UFFD_USER_MODE_ONLY */

        if (fd < 0 && errno == ENOSYS)
                na("no userfaultfd in this kernel");
        if (fd < 0)
                contained("userfaultfd(0): %s", ename(errno));
        escaped("userfaultfd() without UFFD_USER_MODE_ONLY succeeded");
#else
        na("no userfaultfd syscall on this architecture");
#endif
}
