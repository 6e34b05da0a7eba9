/* SPDX-License-Identifier: MIT */
#include "stk_bucket.h"

void stk_bucket_init(struct stk_bucket *b, double rate, double burst, int64_t now_ms)
{
        *b = (struct stk_bucket) { .tokens = burst, .rate = rate, .burst = burst, .last_ms = now_ms };
}

bool stk_bucket_take(struct stk_bucket *b, int64_t now_ms)
{
        if (now_ms > b->last_ms) {
                b->tokens += (double) (now_ms - b->last_ms) * b->rate / 1000.0;
                if (b->tokens > b->burst)
                        b->tokens = b->burst;
                b->last_ms = now_ms;
        }
        if (b->tokens < 1.0) {
                b->dropped++;
                return false;
        }
        b->tokens -= 1.0;
        return true;
}
