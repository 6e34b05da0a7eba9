/* SPDX-License-Identifier: MIT */
/*
 * The control-flag truth tables (docs/ARCHITECTURE.md, Phases and control flags; stockade.yaml(5)),
 * table-driven: every control x every outcome as a lone line, then the pairs
 * whose order matters.  Outcome E is a hook error, B an out-of-range verdict.
 */
#include <stdio.h>
#include <string.h>

#include "run/core.h"
#include "unit.h"

enum { A = STK_ALLOW, D = STK_DENY, K = STK_ASK, I = STK_IGNORE, E = 100, B = 101 };
enum { RQ = CORE_REQUIRED, RS = CORE_REQUISITE, SU = CORE_SUFFICIENT, OP = CORE_OPTIONAL };

struct dcase {
        int n;
        int control[3];
        int outcome[3];
        enum stk_verdict want;
};

static const struct dcase decision_cases[] = {
        /* one line: every control x every outcome */
        { 1, { RQ }, { A }, STK_ALLOW }, { 1, { RQ }, { D }, STK_DENY }, { 1, { RQ }, { K }, STK_ASK },
        { 1, { RQ }, { I }, STK_DENY },  { 1, { RQ }, { E }, STK_DENY }, { 1, { RQ }, { B }, STK_DENY },
        { 1, { RS }, { A }, STK_ALLOW }, { 1, { RS }, { D }, STK_DENY }, { 1, { RS }, { K }, STK_ASK },
        { 1, { RS }, { I }, STK_DENY },  { 1, { RS }, { E }, STK_DENY }, { 1, { RS }, { B }, STK_DENY },
        { 1, { SU }, { A }, STK_ALLOW }, { 1, { SU }, { D }, STK_DENY }, { 1, { SU }, { K }, STK_ASK },
        { 1, { SU }, { I }, STK_DENY },  { 1, { SU }, { E }, STK_DENY }, { 1, { SU }, { B }, STK_DENY },
        { 1, { OP }, { A }, STK_ALLOW }, { 1, { OP }, { D }, STK_DENY }, { 1, { OP }, { K }, STK_ASK },
        { 1, { OP }, { I }, STK_DENY },  { 1, { OP }, { E }, STK_DENY }, { 1, { OP }, { B }, STK_DENY },
        /* DENY from required/requisite wins over every ALLOW */
        { 2, { RQ, RQ }, { D, A }, STK_DENY }, { 2, { RQ, RQ }, { A, D }, STK_DENY },
        { 2, { RQ, SU }, { D, A }, STK_DENY }, { 2, { RS, SU }, { D, A }, STK_DENY },
        { 2, { RQ, RQ }, { E, A }, STK_DENY },
        /* sufficient ALLOW ends the phase unless something before said no or ask */
        { 2, { SU, RQ }, { A, D }, STK_ALLOW }, { 2, { SU, RS }, { A, D }, STK_ALLOW },
        { 2, { RQ, SU }, { A, A }, STK_ALLOW }, { 2, { RQ, SU }, { K, A }, STK_ASK },
        /* sufficient failure is ignored */
        { 2, { SU, RQ }, { D, A }, STK_ALLOW }, { 2, { SU, RQ }, { E, A }, STK_ALLOW },
        { 2, { SU, SU }, { D, A }, STK_ALLOW }, { 2, { SU, SU }, { D, D }, STK_DENY },
        /* optional matters only when alone */
        { 2, { OP, RQ }, { D, A }, STK_ALLOW }, { 2, { RQ, OP }, { A, D }, STK_ALLOW },
        { 2, { OP, OP }, { A, A }, STK_DENY },  { 2, { OP, RQ }, { A, I }, STK_DENY },
        /* ASK: kept unless a DENY; never silently an ALLOW */
        { 2, { RQ, RQ }, { K, A }, STK_ASK }, { 2, { RQ, RQ }, { K, D }, STK_DENY },
        { 2, { SU, RQ }, { K, A }, STK_ASK }, { 2, { RQ, RQ }, { I, A }, STK_ALLOW },
        /* requisite DENY stops: a later sufficient ALLOW cannot save it */
        { 3, { RS, SU, RQ }, { D, A, A }, STK_DENY },
        { 3, { RQ, RQ, SU }, { A, I, A }, STK_ALLOW },
};

static void outcome_of(int o, int *r, enum stk_verdict *v)
{
        *r = o == E ? -EIO : 0;
        *v = o == E ? STK_VERDICT_UNSET : o == B ? (enum stk_verdict) 99 : (enum stk_verdict) o;
}

static void test_decision_table(void)
{
        for (size_t c = 0; c < sizeof(decision_cases) / sizeof(decision_cases[0]); c++) {
                const struct dcase *t = &decision_cases[c];
                struct core_decision d = { .n_lines = (size_t) t->n };
                for (int i = 0; i < t->n; i++) {
                        int r;
                        enum stk_verdict v;
                        outcome_of(t->outcome[i], &r, &v);
                        core_decision_step(&d, (enum core_control) t->control[i], r, v);
                }
                enum stk_verdict got = core_decision_result(&d, STK_ALLOW);
                if (got != t->want)
                        fprintf(stderr, "decision case %zu: got %d want %d\n", c, got, t->want);
                CU_ASSERT_EQUAL(got, t->want);
        }
}

static void test_decision_empty_phase(void)
{
        struct core_decision d = { 0 };

        CU_ASSERT_EQUAL(core_decision_result(&d, STK_ALLOW), STK_ALLOW); /* permission: nothing to check */
        CU_ASSERT_EQUAL(core_decision_result(&d, STK_DENY), STK_DENY);   /* egress: nobody to allow */
}

enum { OK = 0, F = -EIO, X = -EKEYREJECTED };

struct acase {
        int n;
        int control[3];
        int r[3];
        int want; /* 0 or the error */
};

static const struct acase action_cases[] = {
        { 1, { RQ }, { OK }, 0 }, { 1, { RQ }, { F }, F },
        { 1, { RS }, { OK }, 0 }, { 1, { RS }, { F }, F },
        { 1, { SU }, { OK }, 0 }, { 1, { SU }, { F }, -ENOMSG },
        { 1, { OP }, { OK }, 0 }, { 1, { OP }, { F }, F },
        /* required failure: the rest still runs, the phase fails */
        { 2, { RQ, RQ }, { F, OK }, F }, { 2, { RQ, SU }, { F, OK }, F },
        /* sufficient success ends the phase: a later failure never runs */
        { 2, { SU, RQ }, { OK, F }, 0 }, { 2, { RQ, SU }, { OK, OK }, 0 },
        /* the fallback stack: bwrap sufficient fails, landlock required works */
        { 2, { SU, RQ }, { F, OK }, 0 }, { 2, { SU, RQ }, { F, F }, F },
        /* optional alone matters, with others not */
        { 2, { OP, RQ }, { F, OK }, 0 }, { 2, { OP, OP }, { OK, OK }, -ENOMSG },
        /* requisite stops at once */
        { 3, { RS, SU, RQ }, { F, OK, OK }, F },
        /* an integrity failure keeps its own error */
        { 2, { RQ, RQ }, { F, X }, X },
};

static void test_action_table(void)
{
        for (size_t c = 0; c < sizeof(action_cases) / sizeof(action_cases[0]); c++) {
                const struct acase *t = &action_cases[c];
                struct core_action a = { .n_lines = (size_t) t->n };
                for (int i = 0; i < t->n; i++)
                        core_action_step(&a, (enum core_control) t->control[i], t->r[i]);
                int got = core_action_result(&a);
                if (got != t->want)
                        fprintf(stderr, "action case %zu: got %d want %d\n", c, got, t->want);
                CU_ASSERT_EQUAL(got, t->want);
        }
}

static void test_action_stops(void)
{
        struct core_action a = { .n_lines = 3 };

        core_action_step(&a, CORE_SUFFICIENT, 0);
        CU_ASSERT_TRUE(a.done);
        a = (struct core_action) { .n_lines = 3 };
        core_action_step(&a, CORE_REQUISITE, -EIO);
        CU_ASSERT_TRUE(a.done);
        a = (struct core_action) { .n_lines = 3 };
        core_action_step(&a, CORE_REQUIRED, -EIO);
        CU_ASSERT_FALSE(a.done); /* the rest runs, for a complete error report */
}

UNIT_SUITE(test_stack,
           UNIT_TEST(test_decision_table),
           UNIT_TEST(test_decision_empty_phase),
           UNIT_TEST(test_action_table),
           UNIT_TEST(test_action_stops))
