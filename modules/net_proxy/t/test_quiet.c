/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: folding repeated refusals and the log rate limit (np_quiet.h),
 * on a clock the test moves.
 */
#include <stdio.h>
#include <string.h>

#include "np_quiet.h"
#include "unit.h"

struct sink {
        int records;
        unsigned long long count;       /* refusals in all emitted records */
        struct np_fold_entry last;
};

static void emit(void *userdata, const struct np_fold_entry *e)
{
        struct sink *s = userdata;

        s->records++;
        s->count += e->count;
        s->last = *e;
}

static bool refuse(struct np_fold *f, const char *host, uint16_t port, int64_t ms, struct sink *s)
{
        struct timespec now = { .tv_sec = 1767323045 + ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

        return np_fold_refusal(f, host, port, "http", "denied", ms, &now, emit, s);
}

static void test_bucket(void)
{
        struct stk_bucket b;
        int passed = 0;

        stk_bucket_init(&b, 5, 50, 0);
        for (int i = 0; i < 1000; i++)
                passed += stk_bucket_take(&b, 0);
        CU_ASSERT_EQUAL(passed, 50);
        CU_ASSERT_EQUAL(b.dropped, 950);
        CU_ASSERT(!stk_bucket_take(&b, 100)); /* half a token */
        CU_ASSERT(stk_bucket_take(&b, 200));  /* one */
        CU_ASSERT(!stk_bucket_take(&b, 200));
        passed = 0;
        for (int i = 0; i < 1000; i++)
                passed += stk_bucket_take(&b, 3600 * 1000); /* an hour later: a full burst, no more */
        CU_ASSERT_EQUAL(passed, 50);
}

/* One destination refused over and over: one full record, then one
 * aggregate per window, and whatever is left at the end. */
static void test_fold_one_destination(void)
{
        static struct np_fold f;
        struct sink s = { 0 };
        int full = 0;

        np_fold_init(&f, 0);
        for (int i = 0; i < 15000; i++)
                full += refuse(&f, "evil.test", 80, i / 5, &s); /* 15000 in 3 s */
        CU_ASSERT_EQUAL(full, 1);
        CU_ASSERT_EQUAL(s.records, 0);
        np_fold_tick(&f, 3000, emit, &s);
        CU_ASSERT_EQUAL(s.records, 0);              /* the window is not over */
        np_fold_tick(&f, NP_FOLD_WINDOW_MS, emit, &s);
        CU_ASSERT_EQUAL(s.records, 1);
        CU_ASSERT_EQUAL(s.count, 14999);
        CU_ASSERT_STRING_EQUAL(s.last.host, "evil.test");
        CU_ASSERT_EQUAL(s.last.first_ms, 0);
        CU_ASSERT_EQUAL(s.last.last_ms, 14999 / 5);
        CU_ASSERT(s.last.last.tv_sec - s.last.first.tv_sec == 2);
        CU_ASSERT(!refuse(&f, "evil.test", 80, 20000, &s)); /* still folded */
        np_fold_flush(&f, emit, &s);
        CU_ASSERT_EQUAL(s.records, 2);
        CU_ASSERT_EQUAL(s.count, 15000);
        CU_ASSERT_EQUAL(f.refused, 15001);
        CU_ASSERT_EQUAL(f.folded, 15000);
        /* Quiet for a while: the entry goes, and the next refusal is in full again. */
        np_fold_tick(&f, 20000 + NP_FOLD_IDLE_MS, emit, &s);
        CU_ASSERT(refuse(&f, "evil.test", 80, 20000 + NP_FOLD_IDLE_MS, &s));
        CU_ASSERT(refuse(&f, "evil.test", 443, 20000 + NP_FOLD_IDLE_MS, &s)); /* another port, another destination */
}

/* Many destinations: each gets a full record while they come slowly;
 * the table's oldest is pushed out (its folded refusals emitted); past
 * the rate, new ones fold into "*". */
static void test_fold_many_destinations(void)
{
        static struct np_fold f;
        struct sink s = { 0 };
        char host[32];
        int full = 0;

        np_fold_init(&f, 0);
        for (int i = 0; i < NP_FOLD_SLOTS; i++) {
                snprintf(host, sizeof(host), "h%d.test", i);
                CU_ASSERT(refuse(&f, host, 80, i * 1000, &s));
                CU_ASSERT(!refuse(&f, host, 80, i * 1000, &s));
        }
        CU_ASSERT(refuse(&f, "new.test", 80, 100000, &s)); /* pushes h0 out */
        CU_ASSERT_EQUAL(s.records, 1);
        CU_ASSERT_STRING_EQUAL(s.last.host, "h0.test");
        CU_ASSERT_EQUAL(s.last.count, 1);

        np_fold_init(&f, 0);
        s = (struct sink) { 0 };
        for (int i = 0; i < 1000; i++) {
                snprintf(host, sizeof(host), "x%d.test", i);
                full += refuse(&f, host, 80, 0, &s);
        }
        CU_ASSERT_EQUAL(full, NP_FOLD_BURST);
        np_fold_flush(&f, emit, &s);
        CU_ASSERT_EQUAL(s.count, 1000 - NP_FOLD_BURST);
        CU_ASSERT_STRING_EQUAL(s.last.host, "*");
        CU_ASSERT_EQUAL(f.refused, 1000);
}

UNIT_SUITE(np_quiet,
           UNIT_TEST(test_bucket),
           UNIT_TEST(test_fold_one_destination),
           UNIT_TEST(test_fold_many_destinations))
