/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <time.h>

#include "stk_time.h"

int64_t stk_now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* cannot fail with a valid clock id */
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int stk_time_iso(const struct timespec *ts, char *buf, size_t size)
{
        struct tm tm;
        size_t n;
        int m;

        if (!gmtime_r(&ts->tv_sec, &tm))
                return -1;
        n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
        if (n == 0)
                return -1;
        m = snprintf(buf + n, size - n, ".%03ldZ", ts->tv_nsec / 1000000);
        return m < 0 || (size_t) m >= size - n ? -1 : (int) n + m;
}
