/* SPDX-License-Identifier: MIT */
/*
 * The core's own messages on stderr, "stockade: LEVEL: ...", and the
 * modules' (host.c) through the same gate.  Warnings and info lines are
 * rate-limited (issue 21 section 5: a flood of refusals wrote 3.9 MB of
 * warnings in 3 seconds, burying the line that mattered): LOG_BURST lines,
 * then LOG_RATE a second; the next line that passes is preceded by how
 * many were suppressed, and core_log_end says how many at the end.  Errors
 * are never suppressed (they say why a run stops), nor debug lines, which
 * the user asked for with -vv.  Only the writing is limited: nothing that
 * is decided depends on it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "common/stk_bucket.h"
#include "common/stk_time.h"
#include "util.h"

#define LOG_RATE 10
#define LOG_BURST 100

int core_log_level = STK_LOG_WARNING;

/* One stderr per process, so one gate per process (a cache of what was
 * said, not a hidden parameter). */
static struct {
        bool started;
        struct stk_bucket bucket;
        uint64_t told;          /* bucket.dropped already reported */
} gate;

const char *core_log_level_name(enum stk_log_level l)
{
        static const char *const names[] = { "error", "warning", "info", "debug" };
        return l <= STK_LOG_DEBUG ? names[l] : "?";
}

static void say_suppressed(const char *when)
{
        uint64_t n = gate.bucket.dropped - gate.told;

        if (!n)
                return;
        gate.told = gate.bucket.dropped;
        fprintf(stderr, "stockade: warning: %llu warning and info lines suppressed %s (more than %d a second)\n",
                (unsigned long long) n, when, LOG_RATE);
}

bool core_log_admit(enum stk_log_level level)
{
        int64_t now = stk_now_ms();

        if ((int) level > core_log_level)
                return false;
        if (level == STK_LOG_ERROR || level == STK_LOG_DEBUG)
                return true;
        if (!gate.started) {
                stk_bucket_init(&gate.bucket, LOG_RATE, LOG_BURST, now);
                gate.started = true;
        }
        if (!stk_bucket_take(&gate.bucket, now))
                return false;
        say_suppressed("before this one");
        return true;
}

uint64_t core_log_end(void)
{
        say_suppressed("since the last one shown");
        return gate.bucket.dropped;
}

void core_log(enum stk_log_level level, const char *fmt, ...)
{
        va_list ap;

        if (!core_log_admit(level))
                return;
        fprintf(stderr, "stockade: %s: ", core_log_level_name(level));
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}
