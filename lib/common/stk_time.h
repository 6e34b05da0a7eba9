/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC: for deadlines and durations, never for
 * wall-clock time. */
int64_t stk_now_ms(void);

/* A wall-clock time as the audit log writes it: UTC, ISO 8601 with
 * milliseconds ("2026-01-02T03:04:05.678Z").  Returns the length, or -1
 * when buf (STK_TIME_ISO_MAX bytes suffice) is too small or the time is
 * out of range. */
#define STK_TIME_ISO_MAX 32
int stk_time_iso(const struct timespec *ts, char *buf, size_t size);
