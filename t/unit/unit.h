/* SPDX-License-Identifier: MIT */
/* Each t/unit/test_*.c registers its CUnit suite with UNIT_SUITE; main.c runs them all. */
#pragma once
#include <stdio.h>
#include <CUnit/CUnit.h>

struct unit_test { const char *name; CU_TestFunc fn; };
struct unit_suite {
        const char *name;
        const struct unit_test *tests; /* NULL name ends */
        struct unit_suite *next;
};
void unit_register(struct unit_suite *s);

#define UNIT_SUITE(sname, ...)                                                  \
        static const struct unit_test sname##_tests[] = { __VA_ARGS__, { 0, 0 } }; \
        static struct unit_suite sname##_suite = { #sname, sname##_tests, 0 };    \
        __attribute__((constructor)) static void sname##_register(void)         \
        { unit_register(&sname##_suite); }

#define UNIT_TEST(fn) { #fn, fn }

/* CU_ASSERT with a message that names the case (printf arguments). */
#define CHECK(cond, ...)                                                              \
        do {                                                                          \
                char msg_[2048];                                                      \
                snprintf(msg_, sizeof(msg_), __VA_ARGS__);                            \
                CU_assertImplementation(!!(cond), __LINE__, msg_, __FILE__, "", CU_FALSE); \
        } while (0)
