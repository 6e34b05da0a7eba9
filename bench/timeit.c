/* SPDX-License-Identifier: MIT */
/* timeit [-a] N CMD [ARG...]: run CMD N times (stdout/stderr to /dev/null) and
 * print "median_us p10_us p90_us failures", or with -a every sample of a
 * successful run, one a line in microseconds and in run order (bench/startup
 * pools the samples of several interleaved rounds before taking percentiles;
 * a failed run is left out and counted on stderr).  fork+execv, no
 * shell, so the baseline of a plain exec is measured the same way as
 * everything else.  The exit status is 1 if any run failed (exit status not
 * 0, or fork/exec failure). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static int run_once(char **argv, double *ret_us)
{
        double t0 = now_us();
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);
                if (null >= 0) {
                        dup2(null, 1);
                        dup2(null, 2);
                }
                execv(argv[0], argv);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return -1;
        *ret_us = now_us() - t0;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
        int all = argc > 1 && strcmp(argv[1], "-a") == 0;
        int n, failures = 0;
        double *t;

        argv += all;
        argc -= all;
        n = argc > 2 ? atoi(argv[1]) : 0;
        if (n < 1 || argv[2][0] != '/') {
                fprintf(stderr, "usage: timeit [-a] N /abs/cmd [arg...]\n");
                return 2;
        }
        t = calloc((size_t) n, sizeof(double));
        if (!t)
                return 2;
        for (int i = 0; i < n; i++) {
                int r = run_once(argv + 2, &t[i]);

                failures += r < 0;
                if (all && r == 0)
                        printf("%.1f\n", t[i]);
        }
        if (all) {
                if (failures)
                        fprintf(stderr, "timeit: %d of %d runs of %s failed\n", failures, n, argv[2]);
                free(t);
                return failures ? 1 : 0;
        }
        qsort(t, (size_t) n, sizeof(double), cmp);
        printf("%.0f %.0f %.0f %d\n", t[n / 2], t[n / 10], t[(n * 9) / 10], failures);
        free(t);
        return failures ? 1 : 0;
}
