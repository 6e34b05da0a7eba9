/* SPDX-License-Identifier: MIT */
/*
 * The control-flag steps fail closed where test_stack.c's truth tables do
 * not look (issue 20, make mutate survivors): a hook that fails but left
 * a verdict behind, a control flag the core does not know, and which
 * outcomes end a phase, so that the lines below are never called.
 */
#include <errno.h>

#include "run/core.h"
#include "util/util.h"
#include "unit.h"

static const enum core_control controls[] = { CORE_REQUIRED, CORE_REQUISITE, CORE_SUFFICIENT, CORE_OPTIONAL };
#define UNKNOWN_CONTROL ((enum core_control) 99)

static enum stk_verdict lone(enum core_control c, int r, enum stk_verdict v)
{
        struct core_decision d = { .n_lines = 1 };

        core_decision_step(&d, c, r, v);
        return core_decision_result(&d, STK_ALLOW);
}

/* A failing hook's verdict is never taken at its word, whatever it wrote. */
static void test_error_with_a_verdict_is_deny(void)
{
        static const enum stk_verdict left[] = { STK_ALLOW, STK_ASK, STK_IGNORE };

        for (size_t i = 0; i < ELEMENTSOF(controls); i++)
                for (size_t k = 0; k < ELEMENTSOF(left); k++)
                        CHECK(lone(controls[i], -EIO, left[k]) == STK_DENY, "control %d, -EIO with verdict %d: %d",
                              controls[i], left[k], lone(controls[i], -EIO, left[k]));
        /* and it is a DENY beside an ALLOW */
        struct core_decision d = { .n_lines = 2 };
        core_decision_step(&d, CORE_REQUIRED, -EIO, STK_ALLOW);
        core_decision_step(&d, CORE_REQUIRED, 0, STK_ALLOW);
        CU_ASSERT_EQUAL(core_decision_result(&d, STK_ALLOW), STK_DENY);
}

static void test_unknown_control_fails(void)
{
        struct core_decision d = { .n_lines = 2 };
        struct core_action a = { .n_lines = 2 };

        CU_ASSERT_EQUAL(lone(UNKNOWN_CONTROL, 0, STK_ALLOW), STK_DENY);
        core_decision_step(&d, UNKNOWN_CONTROL, 0, STK_ALLOW);
        core_decision_step(&d, CORE_REQUIRED, 0, STK_ALLOW);
        CU_ASSERT_EQUAL(core_decision_result(&d, STK_ALLOW), STK_DENY);
        core_action_step(&a, UNKNOWN_CONTROL, 0);
        core_action_step(&a, CORE_REQUIRED, 0);
        CU_ASSERT(core_action_result(&a) < 0);
}

/* done: the stack calls no line below.  A requisite failure and a
 * sufficient success end the phase; a required failure does not (the
 * rest of the phase still reports). */
static void test_what_ends_a_phase(void)
{
        struct core_decision d;
        struct core_action a;

        d = (struct core_decision) { .n_lines = 2 };
        core_decision_step(&d, CORE_REQUISITE, 0, STK_DENY);
        CU_ASSERT_TRUE(d.done);
        d = (struct core_decision) { .n_lines = 2 };
        core_decision_step(&d, CORE_REQUIRED, 0, STK_DENY);
        CU_ASSERT_FALSE(d.done);
        d = (struct core_decision) { .n_lines = 2 };
        core_decision_step(&d, CORE_SUFFICIENT, 0, STK_ALLOW);
        CU_ASSERT_TRUE(d.done);
        /* "unless an earlier line already said no or wants a human to look" */
        d = (struct core_decision) { .n_lines = 3 };
        core_decision_step(&d, CORE_REQUIRED, 0, STK_DENY);
        core_decision_step(&d, CORE_SUFFICIENT, 0, STK_ALLOW);
        CU_ASSERT_FALSE(d.done);
        d = (struct core_decision) { .n_lines = 3 };
        core_decision_step(&d, CORE_REQUIRED, 0, STK_ASK);
        core_decision_step(&d, CORE_SUFFICIENT, 0, STK_ALLOW);
        CU_ASSERT_FALSE(d.done);
        a = (struct core_action) { .n_lines = 2 };
        core_action_step(&a, CORE_REQUISITE, -EIO);
        CU_ASSERT_TRUE(a.done);
        a = (struct core_action) { .n_lines = 2 };
        core_action_step(&a, CORE_REQUIRED, -EIO);
        CU_ASSERT_FALSE(a.done);
}

UNIT_SUITE(fail_closed,
           UNIT_TEST(test_error_with_a_verdict_is_deny),
           UNIT_TEST(test_unknown_control_fails),
           UNIT_TEST(test_what_ends_a_phase))
