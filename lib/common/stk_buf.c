/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stk_buf.h"

static int grow(struct stk_buf *b, size_t more)
{
        size_t cap;
        char *s;

        if (b->err < 0)
                return b->err;
        if (b->len + more + 1 <= b->cap)
                return 0;
        cap = b->cap ? b->cap : 64;
        while (cap < b->len + more + 1)
                cap *= 2;
        s = realloc(b->s, cap);
        if (!s)
                return b->err = -ENOMEM;
        b->s = s;
        b->cap = cap;
        return 0;
}

/* What of n more bytes fits under max. */
static size_t room(struct stk_buf *b, size_t n)
{
        if (b->max && b->len + n > b->max) {
                b->truncated = true;
                return b->len < b->max ? b->max - b->len : 0;
        }
        return n;
}

void stk_buf_add(struct stk_buf *b, const char *s, size_t n)
{
        n = room(b, n);
        if (grow(b, n) < 0)
                return;
        memcpy(b->s + b->len, s, n);
        b->len += n;
        b->s[b->len] = '\0';
}

void stk_buf_adds(struct stk_buf *b, const char *s)
{
        stk_buf_add(b, s, strlen(s));
}

void stk_buf_addc(struct stk_buf *b, char c)
{
        stk_buf_add(b, &c, 1);
}

void stk_buf_printf(struct stk_buf *b, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                if (b->err >= 0)
                        b->err = -EINVAL;
                return;
        }
        size_t fits = room(b, (size_t) n);
        if (grow(b, (size_t) n) < 0)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap); /* sized just above */
        va_end(ap);
        b->len += fits;
        b->s[b->len] = '\0';
}

void stk_buf_truncate(struct stk_buf *b, size_t n)
{
        if (b->s && n < b->len) {
                b->len = n;
                b->s[n] = '\0';
        }
}

char *stk_buf_take(struct stk_buf *b)
{
        int err = b->err;
        char *s = err < 0 ? NULL : b->s ? b->s : strdup("");

        if (err < 0)
                free(b->s);
        *b = (struct stk_buf) { .max = b->max };
        if (!s)
                errno = err < 0 ? -err : ENOMEM;
        return s;
}

void stk_buf_done(struct stk_buf *b)
{
        free(b->s);
        *b = (struct stk_buf) { .max = b->max };
}
