/* SPDX-License-Identifier: MIT */
/* The x32 ABI (syscall numbers with bit 30 set) on x86-64: a filter that
 * compares plain numbers misses them.  Opens and appends to the outside
 * file. */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "probe.h"

#if defined(__x86_64__)
#define X32_BIT 0x40000000L
enum { X32_WRITE = 1, X32_OPENAT = 257 };

int main(void)
{
        long fd = syscall(X32_BIT | X32_OPENAT, AT_FDCWD, outside("target"), O_WRONLY | O_APPEND, 0);
        long n;

        if (fd < 0 && errno == ENOSYS)
                na("x32 openat: ENOSYS (kernel built without CONFIG_X86_X32_ABI)");
        if (fd < 0)
                contained("x32 openat(outside/target, O_WRONLY): %s", ename(errno));
        n = syscall(X32_BIT | X32_WRITE, fd, probe_marker, strlen(probe_marker));
        if (n < 0)
                contained("x32 openat worked, write: %s", ename(errno));
        escaped("x32 ABI wrote %ld bytes to outside/target", n);
}
#else
int main(void)
{
        na("x32 is an x86-64 probe");
}
#endif
