/* SPDX-License-Identifier: MIT */
/* What modules use that not every libc has (macOS: no reallocarray). */
#pragma once
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* reallocarray(3): realloc of n * size, ENOMEM instead of an overflow. */
static inline void *stk_reallocarray(void *p, size_t n, size_t size)
{
        if (size && n > SIZE_MAX / size) {
                errno = ENOMEM;
                return NULL;
        }
        return realloc(p, n * size);
}
