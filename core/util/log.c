/* SPDX-License-Identifier: MIT */
/* The core's own messages on stderr, "stockade: LEVEL: ...". */
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

int core_log_level = STK_LOG_WARNING;

const char *core_log_level_name(enum stk_log_level l)
{
        static const char *const names[] = { "error", "warning", "info", "debug" };
        return l <= STK_LOG_DEBUG ? names[l] : "?";
}

void core_log(enum stk_log_level level, const char *fmt, ...)
{
        va_list ap;

        if ((int) level > core_log_level)
                return;
        fprintf(stderr, "stockade: %s: ", core_log_level_name(level));
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}
