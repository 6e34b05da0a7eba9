/* SPDX-License-Identifier: MIT */
/*
 * stk_util.h - the small helpers every part of stockade shares: cleanup
 * attributes, ownership hand-over, ELEMENTSOF, streq.  One copy, for the
 * core, the tools and the modules alike (lib/common is a static library
 * linked into each; it is internal and never installed).
 */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void freep(void *p) { free(*(void **) p); }
static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd); /* nothing useful to do on a failed close of a read fd */
                errno = saved;
        }
        *fd = -1; /* a struct member must not keep naming a number the next open may reuse */
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Hand ownership over: returns the value and leaves NULL / -1 behind. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define streq(a, b) (strcmp((a), (b)) == 0)

/* The value of one hexadecimal digit, or -1. */
static inline int stk_hex_value(int c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* "Not a regular file": EBADFD on Linux, EFTYPE where that is missing
 * (macOS). */
#if defined(EBADFD)
#define E_NOT_REGULAR EBADFD
#elif defined(EFTYPE)
#define E_NOT_REGULAR EFTYPE
#else
#define E_NOT_REGULAR EINVAL
#endif
