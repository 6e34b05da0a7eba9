/* SPDX-License-Identifier: MIT */
/* writable-scan DIR...: every regular file below each DIR that is owned by
 * host root (uid 0, or the overflow uid an unmapped owner shows as in a
 * user namespace that is not root's) and has a write bit in its mode (a kernel setting, a trigger), and
 * which of them this process can open for writing.  Symlinks are not
 * followed (/proc/PID/fd/N names the process's own files).  Opening for
 * writing changes nothing: procfs and sysfs act on write(2), never on
 * open, and nothing is written.  Prints each writable path, then
 * "N candidates, N writable"; exits 0 when none is writable, 1 otherwise,
 * 2 on usage.  Not for /dev, where an open can act (a watchdog). */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long candidates, writable;
static uid_t overflow_uid = 65534;

static void read_overflow_uid(void)
{
        FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");
        unsigned long v;

        if (f && fscanf(f, "%lu", &v) == 1)
                overflow_uid = (uid_t) v;
        if (f)
                fclose(f);
}

static int visit(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
        int fd;

        (void) ftw;
        if (kind != FTW_F || !S_ISREG(st->st_mode) || (st->st_uid != 0 && st->st_uid != overflow_uid) || !(st->st_mode & 0222))
                return 0; /* a vanished /proc/PID, an unreadable directory: not a candidate */
        candidates++;
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
                writable++;
                printf("writable: %s\n", path);
                close(fd);
        }
        return 0;
}

int main(int argc, char **argv)
{
        if (argc < 2 || argv[1][0] != '/') {
                fprintf(stderr, "usage: writable-scan DIR...\n");
                return 2;
        }
        read_overflow_uid();
        for (int i = 1; i < argc; i++)
                if (nftw(argv[i], visit, 16, FTW_PHYS) < 0)
                        perror(argv[i]);
        printf("%lu candidates, %lu writable\n", candidates, writable);
        return writable ? 1 : 0;
}
