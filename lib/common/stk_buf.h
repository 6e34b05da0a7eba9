/* SPDX-License-Identifier: MIT */
/*
 * A growing string with a sticky error: after the first failure every
 * further addition does nothing, so a builder adds everything and checks
 * once at the end (stk_buf_take).  The text is always NUL-terminated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct stk_buf {
        char *s;
        size_t len, cap;
        int err;        /* the first failure (-ENOMEM), sticky */
        size_t max;     /* 0: no limit; else what goes beyond it is dropped... */
        bool truncated; /* ...and this says so */
};

void stk_buf_add(struct stk_buf *b, const char *s, size_t n);
void stk_buf_adds(struct stk_buf *b, const char *s);
void stk_buf_addc(struct stk_buf *b, char c);
void stk_buf_printf(struct stk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cut the text to its first n bytes (nothing when it is shorter). */
void stk_buf_truncate(struct stk_buf *b, size_t n);
/* The text (malloc()ed, "" when nothing was added), or NULL with errno set
 * to the sticky error; the buffer is empty afterwards either way. */
char *stk_buf_take(struct stk_buf *b);
void stk_buf_done(struct stk_buf *b);
