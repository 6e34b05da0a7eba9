/* SPDX-License-Identifier: MIT */
/*
 * approval_exec: answer the run's questions (an ASK from the permission or
 * the egress phase) by running a program the policy names: the question as
 * JSON on its stdin, the verdict as JSON on its stdout (stk_question_json.h,
 * stockade-approval_exec(8)).  It fails closed: a program that cannot be
 * run, exits non-zero, is killed by a signal, takes longer than `timeout`,
 * or answers anything but a well-formed verdict means DENY, with a log line
 * that says which and shows what it wrote.
 *
 * The program is the line's `program` argument, else the setting
 * approval.exec: the shipped profiles carry a line with neither, which
 * passes every question on (IGNORE) until the user layer sets
 * approval.exec (issue 13 §5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "approval_exec_internal.h"

static const struct stk_host *host;

/* Every argument is trusted: a project file must not pick who approves. */
static const struct stk_arg_spec aexec_args[] = {
        { "program", STK_ARG_STRING, STK_ARG_TRUSTED,
          "absolute path of the approver: question on stdin, verdict on stdout (default: the setting approval.exec)" },
        { "args", STK_ARG_LIST, STK_ARG_TRUSTED, "its arguments (argv[1...])" },
        { "timeout", STK_ARG_INT, STK_ARG_TRUSTED, "seconds to wait for the verdict, 1-3600 (default 30)" },
        { NULL, 0, 0, NULL },
};

/* The approver of this line: its argument, else approval.exec; NULL when
 * neither is set (the line then answers nothing). */
static const char *line_program(struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);
        const char *program = host->arg_string(ctx, "program");

        if (program)
                return program;
        return s && STK_HAS(s, stk_settings, approval_exec) ? s->approval_exec : NULL;
}

/* This line's arguments make sense; a log line names what does not. */
static int check_line(struct stk_ctx *ctx)
{
        const char *program = line_program(ctx), *why = NULL;
        long long timeout = host->arg_int(ctx, "timeout", AEXEC_TIMEOUT_DEFAULT);
        int r;

        if (!program)
                return 0; /* not configured: IGNORE, said by explain */
        r = aexec_check_program(program, &why);
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "program \"%s\": %s (%s)", program, why, strerror(-r));
                return -EINVAL;
        }
        if (timeout < 1 || timeout > AEXEC_TIMEOUT_MAX) {
                host->log(ctx, STK_LOG_ERROR, "timeout %lld: must be 1 to %d seconds", timeout, AEXEC_TIMEOUT_MAX);
                return -EINVAL;
        }
        return 0;
}

/* A bad first line fails init, which stops the run as a policy error
 * (exit 241): an approver that was written down but cannot work is a
 * mistake to fix, not a reason to deny every question quietly. */
static int aexec_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        if (!STK_HAS(h, stk_host, audit))
                return -EPROTO; /* older than every slot used here */
        host = h;
        *ret_data = NULL;
        return check_line(ctx);
}

/* Every further line: a bad one is unusable, its questions pass on to the
 * next approver, and with none a question is a DENY. */
static int aexec_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        *ret_covers = 0; /* an approver enforces nothing itself */
        return check_line(ctx);
}

/* What the approver's run means; every way but one ends in DENY. */
static enum stk_verdict judge(struct stk_ctx *ctx, const char *program, const struct aexec_result *res,
                              int timeout_s)
{
        char shown[256], why[160], reason[256];
        enum stk_verdict v = STK_VERDICT_UNSET;

        stk_json_excerpt(res->out, res->out_len, shown, sizeof(shown));
        if (res->timed_out) {
                host->log(ctx, STK_LOG_WARNING, "%s: no verdict within %d s; killed pid %d: DENY", program,
                          timeout_s, (int) res->pid);
                return STK_DENY;
        }
        if (res->oversize) {
                host->log(ctx, STK_LOG_WARNING, "%s: more than %d bytes on stdout; killed pid %d: DENY \"%s\"",
                          program, STK_VERDICT_MAX, (int) res->pid, shown);
                return STK_DENY;
        }
        if (WIFSIGNALED(res->status) || !WIFEXITED(res->status) || WEXITSTATUS(res->status) != 0) {
                host->log(ctx, STK_LOG_WARNING, "%s: %s %d: DENY (it wrote \"%s\")", program,
                          WIFSIGNALED(res->status) ? "killed by signal" : "exited with status",
                          WIFSIGNALED(res->status) ? WTERMSIG(res->status) : WEXITSTATUS(res->status), shown);
                return STK_DENY;
        }
        if (stk_verdict_json_parse(res->out, res->out_len, &v, reason, sizeof(reason), why, sizeof(why)) < 0) {
                host->log(ctx, STK_LOG_WARNING, "%s: malformed verdict (%s): DENY \"%s\"", program, why, shown);
                return STK_DENY;
        }
        host->log(ctx, v == STK_DENY ? STK_LOG_WARNING : STK_LOG_INFO, "%s: %s%s%s", program, stk_verdict_word(v),
                  *reason ? ": " : "", reason);
        return v;
}

static int aexec_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict)
{
        const char *program = line_program(ctx);
        int timeout_s = (int) host->arg_int(ctx, "timeout", AEXEC_TIMEOUT_DEFAULT);
        const struct stk_settings *s = host->settings(ctx);
        const char *why = NULL;
        struct aexec_result res;
        char *question = NULL;
        int r;

        if (!program) {
                *ret_verdict = STK_IGNORE; /* nobody to run: the next approver, or DENY */
                return 0;
        }
        *ret_verdict = STK_DENY; /* until a well-formed verdict says otherwise */
        /* Again, now: the file may have changed since the run started. */
        r = aexec_check_program(program, &why);
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "program \"%s\": %s: DENY", program ? program : "(none)", why);
                return 0;
        }
        r = stk_question_json_encode(q, s ? s->profile : NULL, &question);
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "cannot put the question into JSON (%s): DENY", strerror(-r));
                return 0;
        }
        struct aexec_spec spec = {
                .program = program, .args = host->arg_list(ctx, "args"),
                .input = question, .input_len = strlen(question), .timeout_ms = timeout_s * 1000,
        };
        r = aexec_run(&spec, &res);
        free(question);
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "cannot run %s (%s): DENY", program ? program : "(none)", strerror(-r));
                return 0;
        }
        *ret_verdict = judge(ctx, program, &res, timeout_s);
        aexec_result_done(&res);
        return 0;
}

static int aexec_explain(struct stk_ctx *ctx, char **ret_text)
{
        const char *program = line_program(ctx);
        int timeout_s = (int) host->arg_int(ctx, "timeout", AEXEC_TIMEOUT_DEFAULT);
        int n = program ? asprintf(ret_text, "runs %s for each question (%s), DENY after %d s without a verdict\n",
                                   program, host->arg_string(ctx, "program") ? "program" : "approval.exec", timeout_s)
                        : asprintf(ret_text, "answers nothing (IGNORE): no program; set approval.exec to a "
                                   "program that answers\n");

        return n < 0 ? -ENOMEM : 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("approval_exec"),
        .summary = "answer approval questions by running a program (JSON in, JSON verdict out)",
        .args = aexec_args,
        .init = aexec_init,
        .probe = aexec_probe,
        .approve = aexec_approve,
        .explain = aexec_explain,
};
