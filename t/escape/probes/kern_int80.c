/* SPDX-License-Identifier: MIT */
/* The i386 ABI from a 64-bit process (int 0x80): other syscall numbers, so
 * a seccomp filter written for x86-64 alone lets them by.  Opens and
 * appends to the outside file. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "probe.h"

#if defined(__x86_64__)
enum { I386_WRITE = 4, I386_OPEN = 5, I386_GETPID = 20 };

static long int80(long nr, long a, long b, long c)
{
        long ret;

        __asm__ volatile("int $0x80"
                         : "=a"(ret)
                         : "a"(nr), "b"(a), "c"(b), "d"(c)
                         : "memory", "r8", "r9", "r10", "r11");
        return ret;
}

static _Noreturn void attempt(void)
{
        /* i386 pointers are 32 bits: path and data must live below 4 GiB */
        char *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        const char *path = outside("target");
        long fd, n;

        if (mem == MAP_FAILED)
                na("mmap(MAP_32BIT): %s", ename(errno));
        if (strlen(path) >= 4096)
                na("outside path too long");
        strcpy(mem, path);
        strcpy(mem + 4096, probe_marker);
        fd = int80(I386_OPEN, (long) mem, O_WRONLY | O_APPEND, 0);
        if (fd == -ENOSYS)
                na("int 0x80 open: ENOSYS (no i386 ABI)");
        if (fd < 0)
                contained("int 0x80 open(outside/target, O_WRONLY): %s", ename((int) -fd));
        n = int80(I386_WRITE, fd, (long) (mem + 4096), (long) strlen(probe_marker));
        if (n < 0)
                contained("int 0x80 open worked, write: %s", ename((int) -n));
        escaped("int 0x80 (i386 ABI) wrote %ld bytes to outside/target", n);
}

/* Does int 0x80 return at all?  Tried in a child with stderr silenced: a
 * kernel without IA32 emulation answers with SIGSEGV (or, under ASan, a
 * report and exit 1).  A refusal (-EPERM from a filter) still returns. */
static int int80_returns(void)
{
        int status, null;
        pid_t pid = fork();

        if (pid < 0)
                contained("fork: %s", ename(errno));
        if (pid == 0) {
                null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null >= 0)
                        dup2(null, 2);
                (void) int80(I386_GETPID, 0, 0, 0);
                _exit(0);
        }
        if (waitpid(pid, &status, 0) < 0)
                na("waitpid: %s", ename(errno));
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
        if (!int80_returns())
                na("int 0x80 faults: no i386 ABI for 64-bit processes here");
        attempt();
}
#else
int main(void)
{
        na("int 0x80 is an x86-64 probe");
}
#endif
