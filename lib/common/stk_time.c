/* SPDX-License-Identifier: MIT */
#include <time.h>

#include "stk_time.h"

int64_t stk_now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* cannot fail with a valid clock id */
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
