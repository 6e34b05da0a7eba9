/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* Milliseconds on CLOCK_MONOTONIC: for deadlines and durations, never for
 * wall-clock time. */
int64_t stk_now_ms(void);
