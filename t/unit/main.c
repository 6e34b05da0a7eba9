/* SPDX-License-Identifier: MIT */
/* CUnit runner for the core's unit tests: `unit-tests [SUITE]`. */
#include <stdio.h>
#include <string.h>
#include <CUnit/Basic.h>

#include "unit.h"

static struct unit_suite *suites;

void unit_register(struct unit_suite *s)
{
        struct unit_suite **p = &suites;

        while (*p)      /* keep file order stable: append */
                p = &(*p)->next;
        *p = s;
}

int main(int argc, char **argv)
{
        const char *only = argc > 1 ? argv[1] : NULL;
        unsigned failed;

        if (CU_initialize_registry() != CUE_SUCCESS)
                return 2;
        for (struct unit_suite *s = suites; s; s = s->next) {
                if (only && strcmp(only, s->name) != 0)
                        continue;
                CU_pSuite cs = CU_add_suite(s->name, NULL, NULL);
                if (!cs)
                        return 2;
                for (const struct unit_test *t = s->tests; t->name; t++)
                        if (!CU_add_test(cs, t->name, t->fn))
                                return 2;
        }
        CU_basic_set_mode(CU_BRM_VERBOSE);
        CU_basic_run_tests();
        failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
        CU_cleanup_registry();
        return failed ? 1 : 0;
}
