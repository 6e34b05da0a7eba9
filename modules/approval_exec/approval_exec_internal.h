/* SPDX-License-Identifier: MIT */
/*
 * approval_exec_internal.h - what the files of approval_exec share with each
 * other and with their unit tests.  Nothing here is exported from the .so.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "stockade/module.h"
#include "approvals/stk_question_json.h"

/* The descriptor (approval_exec.c), reached directly by the unit tests. */
extern const struct stk_module stockade_module;

#define AEXEC_TIMEOUT_DEFAULT 30
#define AEXEC_TIMEOUT_MAX 3600

/* ---- approval_exec_run.c: run the approver once ------------------------ */

struct aexec_spec {
        const char *program;        /* absolute path, run without PATH */
        const char *const *args;    /* argv[1...], NULL-terminated, never NULL */
        const char *input;          /* written to its stdin, then stdin is closed */
        size_t input_len;
        int timeout_ms;             /* from fork to the end of the answer */
};

struct aexec_result {
        pid_t pid;
        char *out;                  /* malloc()ed: what it wrote to stdout */
        size_t out_len;             /* at most STK_VERDICT_MAX + 1 */
        bool oversize;              /* it wrote more than STK_VERDICT_MAX bytes */
        bool timed_out;             /* killed at the deadline */
        int status;                 /* its wait status, unless timed out or oversize */
};

/* Run the approver with spec->input on stdin and collect its stdout, its
 * exit status, or the fact that it ran out of time (then it is killed with
 * its process group, by pid, and reaped).  -errno if it could not even be
 * started; the result then holds nothing to free. */
int aexec_run(const struct aexec_spec *spec, struct aexec_result *ret);
void aexec_result_done(struct aexec_result *r);

/* An absolute path to an executable regular file that nobody but root or
 * its owner (root or us) can rewrite: it runs outside the sandbox.  On
 * failure *ret_why says what is wrong. */
int aexec_check_program(const char *path, const char **ret_why);
