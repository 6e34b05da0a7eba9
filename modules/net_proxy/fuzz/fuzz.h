/* SPDX-License-Identifier: MIT */
/*
 * net_proxy fuzz harnesses (libFuzzer; `make fuzz`, mk/fuzz.mk).  Each
 * harness checks properties, not just the absence of crashes: the answer
 * does not depend on how the input was split, outputs stay inside the
 * input and the limits, normalized forms are fixed points.  A broken
 * property aborts with a message, which libFuzzer reports as a crash.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                          \
        do {                                                                      \
                if (!(cond)) {                                                    \
                        fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, \
                                __LINE__, #cond);                                 \
                        abort();                                                  \
                }                                                                 \
        } while (0)

/* An exact-size heap copy: a read past `len` is an ASan report, where the
 * fuzzer's own buffer might have slack. */
static inline void *fuzz_copy(const void *p, size_t len)
{
        void *c = malloc(len ? len : 1);

        if (!c)
                abort();
        if (len)
                memcpy(c, p, len);
        return c;
}
