/* SPDX-License-Identifier: MIT */
/*
 * perm_rules fuzz harness (libFuzzer; `make fuzz FUZZ_TARGETS=pr_shell`):
 * the shell lexer, parser and expander, and the whole decision through
 * wrappers, tool forms, flag sets and write tracking.  The input is a
 * `bash -c` string (an exact-size copy, so a read past it is an ASan
 * report).  Properties besides the absence of crashes and leaks: the
 * verdict is one of the four and the same on a second run (no state
 * leaks between decisions), the entries stay within their limit, and the
 * string as a plain argv word (no shell) is judged without a parse.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                         \
        do {                                                                                     \
                if (!(cond)) {                                                                   \
                        fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                                 \
                }                                                                                \
        } while (0)

static const char *const deny[] = { "rm {-r,-f} *", "git push {--force} *", "dd {of=/dev/*}", "sudo *", NULL };
static const char *const ask[] = { "git push *", "npm publish *", "curl *", NULL };
static const char *const allow[] = { "ls *", "git *", "echo *", NULL };
static const char *const trusted[] = { "/home/u/.claude/shell-snapshots/*", NULL };
static const char *const protected[] = { "/w/.git", "/w/.envrc", NULL };

static struct pr_rules rules;
static int ready;

static void setup(void)
{
        char *err = NULL;

        if (pr_rules_compile(deny, ask, allow, "allow", &rules, &err) < 0 ||
            pr_rules_options(&rules, trusted, "/home/u", NULL, &err) < 0)
                abort();
        ready = 1;
}

static enum stk_verdict decide(const char *const *argv)
{
        struct pr_result r;
        enum stk_verdict v;

        if (pr_decide_in(&rules, argv, "/w", protected, &r) < 0)
                return STK_VERDICT_UNSET;   /* out of memory */
        FUZZ_CHECK(r.n <= PR_MAX_ENTRIES);
        v = r.verdict;
        pr_result_done(&r);
        FUZZ_CHECK(v == STK_ALLOW || v == STK_DENY || v == STK_ASK || v == STK_IGNORE);
        return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);
        struct pr_cmdlist l = { 0 };

        if (!s)
                return 0;
        if (!ready)
                setup();
        memcpy(s, data, size);
        s[size] = '\0';
        FUZZ_CHECK(pr_split(s, &l) == 0 || l.n == 0);
        pr_cmdlist_done(&l);
        const char *argv[] = { "bash", "-c", s, NULL };
        enum stk_verdict v = decide(argv);
        FUZZ_CHECK(decide(argv) == v);
        const char *plain[] = { s[0] ? s : "x", "-rf", NULL };
        (void) decide(plain);
        free(s);
        return 0;
}
