/* SPDX-License-Identifier: MIT */
/*
 * A token bucket: `rate` tokens a second, at most `burst` saved up.  What
 * bounds a flood of log lines (the core's warnings, net_proxy's connection
 * log) without a timer: the caller passes the time (stk_now_ms).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct stk_bucket {
        double tokens, rate, burst;
        int64_t last_ms;
        uint64_t dropped;       /* takes refused */
};

void stk_bucket_init(struct stk_bucket *b, double rate, double burst, int64_t now_ms);
/* True: a token taken; false: none left (counted in dropped). */
bool stk_bucket_take(struct stk_bucket *b, int64_t now_ms);
