/* SPDX-License-Identifier: MIT */
/* fsops DIR N: in DIR, N times: create a file (O_CREAT|O_WRONLY|O_TRUNC),
 * write 64 bytes, close, open it again O_RDWR, close, rename it, unlink it;
 * then mkdir/rmdir N directories.  Prints "us_per_file=X us_per_dir=Y" (the
 * wall time of each loop over N).  bench/fsops runs it with and without a
 * sandbox in the same script: the difference is what a sandbox adds to
 * each of these calls (under the Landlock stack, fs_guard's guard_top
 * sends every one of them to the supervisor). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int one_file(int dfd, int i)
{
        char a[32], b[32], data[64];
        int fd;

        memset(data, 'x', sizeof(data));
        snprintf(a, sizeof(a), "f%d", i);
        snprintf(b, sizeof(b), "g%d", i);
        fd = openat(dfd, a, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t) sizeof(data) || close(fd) < 0)
                return -1;
        fd = openat(dfd, a, O_RDWR | O_CLOEXEC);
        if (fd < 0 || close(fd) < 0)
                return -1;
        if (renameat(dfd, a, dfd, b) < 0 || unlinkat(dfd, b, 0) < 0)
                return -1;
        return 0;
}

/* --create: N new files in DIR, each created, written (2 bytes) and
 * closed, as `echo x > fN` does; with --mkdir DIR is made first, inside
 * the run (a directory Landlock's rules never saw).  The files stay: the
 * caller removes DIR. */
static int create_only(const char *dir, int n, int make_dir)
{
        double t0, t1;
        char a[32];
        int dfd, fd;

        if (make_dir && mkdir(dir, 0755) < 0) {
                perror(dir);
                return 1;
        }
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                perror(dir);
                return 1;
        }
        t0 = now_us();
        for (int i = 0; i < n; i++) {
                snprintf(a, sizeof(a), "f%d", i);
                fd = openat(dfd, a, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || write(fd, "x\n", 2) != 2 || close(fd) < 0) {
                        perror("create");
                        return 1;
                }
        }
        t1 = now_us();
        printf("us_per_create=%.2f\n", (t1 - t0) / n);
        return 0;
}

int main(int argc, char **argv)
{
        int n = argc == 3 ? atoi(argv[2]) : 0, dfd;
        double t0, t1, t2;
        char d[32];

        if (argc >= 4 && strcmp(argv[1], "--create") == 0)
                return create_only(argv[2], atoi(argv[3]), argc == 5 && strcmp(argv[4], "--mkdir") == 0);
        if (n < 1) {
                fprintf(stderr, "usage: fsops DIR N | fsops --create DIR N [--mkdir]\n");
                return 2;
        }
        dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                perror(argv[1]);
                return 1;
        }
        t0 = now_us();
        for (int i = 0; i < n; i++)
                if (one_file(dfd, i) < 0) {
                        perror("file operations");
                        return 1;
                }
        t1 = now_us();
        for (int i = 0; i < n; i++) {
                snprintf(d, sizeof(d), "d%d", i);
                if (mkdirat(dfd, d, 0755) < 0 || unlinkat(dfd, d, AT_REMOVEDIR) < 0) {
                        perror("directory operations");
                        return 1;
                }
        }
        t2 = now_us();
        printf("us_per_file=%.1f us_per_dir=%.1f\n", (t1 - t0) / n, (t2 - t1) / n);
        return 0;
}
