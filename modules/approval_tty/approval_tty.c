/* SPDX-License-Identifier: MIT */
/*
 * approval_tty: answers the ASK questions of the permission and egress
 * phases by asking the human at the supervisor's terminal.  "always" and
 * "never" are remembered in a state file (stk_approvals.h) and used without
 * asking next time.  No answer in time, a signal at the prompt: DENY, with
 * a message that says how to allow it in the policy instead.  No terminal
 * (or approval.tty off): IGNORE, so that the next approver answers, or the
 * core denies and names the settings that answer without a terminal.
 * Nothing inside the sandbox can answer: the command runs in a session of
 * its own (no /dev/tty), and a state file it could write is not used.
 * See stockade-approval_tty(8).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval_tty_internal.h"
#include "approvals/stk_approvals.h"
#include "common/stk_path.h"

static const struct stk_host *host;

static const struct stk_arg_spec atty_args[] = {
        { "timeout", STK_ARG_INT, 0, "seconds to wait for an answer, then DENY (default 30, 1 to 3600)" },
        { "state_file", STK_ARG_STRING, STK_ARG_TRUSTED,
          "where \"always\" and \"never\" are kept (default $XDG_STATE_HOME/stockade/approvals)" },
        { "tty", STK_ARG_STRING, STK_ARG_TRUSTED, "the terminal to ask on (default /dev/tty)" },
        { NULL, 0, 0, NULL },
};

struct atty_opts {
        int timeout;
        const char *tty;
        const char *state_file; /* NULL: the default path */
};

static int get_opts(struct stk_ctx *ctx, struct atty_opts *ret)
{
        long long t = host->arg_int(ctx, "timeout", ATTY_DEFAULT_TIMEOUT);
        const char *tty = host->arg_string(ctx, "tty"), *state = host->arg_string(ctx, "state_file");

        if (t < 1 || t > ATTY_MAX_TIMEOUT) {
                host->log(ctx, STK_LOG_ERROR, "timeout: %lld is not between 1 and %d seconds", t, ATTY_MAX_TIMEOUT);
                return -EINVAL;
        }
        if ((tty && tty[0] != '/') || (state && state[0] != '/')) {
                host->log(ctx, STK_LOG_ERROR, "%s: \"%s\" is not an absolute path", tty && tty[0] != '/' ? "tty" : "state_file",
                          tty && tty[0] != '/' ? tty : state);
                return -EINVAL;
        }
        *ret = (struct atty_opts) { (int) t, tty ? tty : ATTY_DEFAULT_TTY, state };
        return 0;
}

/* The state file, canonical, or NULL with the reason: a file the sandbox
 * could write would let the command pre-answer its own questions. */
static char *state_path(struct stk_ctx *ctx, const struct atty_opts *o, char *why, size_t why_size)
{
        const struct stk_settings *s = host->settings(ctx);
        char *path = NULL, *canon = NULL;
        int r = o->state_file ? ((path = strdup(o->state_file)) ? 0 : -ENOMEM)
                              : stk_appr_default_path(s ? s->home : NULL, &path);

        if (r >= 0)
                r = stk_appr_canonical(path, &canon);
        if (r < 0) {
                snprintf(why, why_size, "state file %s: %s", path ? path : "(no home directory)", strerror(-r));
                free(path);
                return NULL;
        }
        free(path);
        for (size_t i = 0; s && s->write && s->write[i]; i++)
                if (stk_path_beneath(canon, s->write[i])) {
                        snprintf(why, why_size, "state file %s is beneath the writable root %s, where the command "
                                 "could write it", canon, s->write[i]);
                        free(canon);
                        return NULL;
                }
        return canon;
}

static int question_key(const struct stk_question *q, enum stk_appr_kind *ret_kind, char **ret_key)
{
        if (q->kind == STK_QUESTION_COMMAND) {
                *ret_kind = STK_APPR_COMMAND;
                return stk_appr_command_key(q->request->argv, ret_key);
        }
        *ret_kind = STK_APPR_EGRESS;
        return stk_appr_egress_key(q->egress->host, q->egress->port, ret_key);
}

static bool question_valid(const struct stk_question *q)
{
        if (!q)
                return false;
        if (q->kind == STK_QUESTION_COMMAND)
                return q->request && q->request->argv && q->request->argv[0];
        return q->kind == STK_QUESTION_EGRESS && q->egress && q->egress->host;
}

static const char *how_to_allow(const struct stk_question *q)
{
        return q->kind == STK_QUESTION_COMMAND
                ? "To run it without a prompt, add it to perm_rules allow in the policy."
                : "To allow the destination without a prompt, add it to network.allow in the policy.";
}

/* A remembered answer: true when it decided. */
static bool recall(struct stk_ctx *ctx, const char *path, enum stk_appr_kind kind, const char *key,
                   enum stk_verdict *ret)
{
        enum stk_appr_decision d;
        bool ignored_allow;
        char why[512];
        int r = stk_appr_recall(path, kind, key, &d, &ignored_allow, why, sizeof(why));

        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "remembered answers not used: %s", why);
                return false;
        }
        if (ignored_allow)
                host->log(ctx, STK_LOG_WARNING, "a remembered \"always\" is ignored: %s", why);
        if (d == STK_APPR_NONE)
                return false;
        *ret = d == STK_APPR_ALLOW ? STK_ALLOW : STK_DENY;
        host->log(ctx, d == STK_APPR_DENY ? STK_LOG_WARNING : STK_LOG_INFO,
                  "remembered \"%s\" for %s %s (%s; `stockade approvals revoke` forgets it)",
                  d == STK_APPR_ALLOW ? "always" : "never", stk_appr_kind_name(kind), key, path);
        return true;
}

/* "always" or "never" kept for later runs; false (said why) when it
 * applies to this run only. */
static bool remember(struct stk_ctx *ctx, const char *path, enum stk_appr_kind kind, const char *key, bool allow,
                     const char *why_not)
{
        char why[512];
        int r;

        if (!path || !key) {
                host->log(ctx, STK_LOG_WARNING, "\"%s\" applies to this run only: %s", allow ? "always" : "never",
                          why_not);
                return false;
        }
        r = stk_appr_remember(path, kind, key, allow, why, sizeof(why));
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "\"%s\" applies to this run only: not remembered: %s",
                          allow ? "always" : "never", why);
                return false;
        }
        return true;
}

/* The answer said back on the terminal with what it approves or refuses
 * (issue 21 §2): the last word on the screen is ours, not the command's. */
static void confirm(const struct atty_opts *o, enum atty_answer a, const char *subject, const char *kept_in)
{
        static const char *const said[] = {
                [ATTY_ONCE] = "allowed once", [ATTY_ALWAYS] = "allowed always",
                [ATTY_DENY] = "denied", [ATTY_NEVER] = "denied always",
        };
        char line[2048];

        if (a == ATTY_NO_ANSWER || !subject)
                return; /* the prompt said "denied" itself, or nothing can be shown */
        snprintf(line, sizeof(line), ATTY_RESET "stockade: %s: %s%s%s%s\n", said[a], subject,
                 kept_in ? " (remembered in " : "", kept_in ? kept_in : "", kept_in ? ")" : "");
        atty_tell(o->tty, line);
}

/* Ask the human.  No terminal to ask on: IGNORE (the next approver, or the
 * core's DENY, which names the settings that answer without one); every
 * other way of not getting an answer is a DENY, said aloud. */
static enum stk_verdict ask_human(struct stk_ctx *ctx, const struct stk_question *q, const struct atty_opts *o,
                                  const char *key, enum atty_answer *ret)
{
        char *text = NULL, *subject = NULL, *again = NULL;
        int r = atty_question_text(q, o->timeout, &text);

        if (r >= 0)
                r = atty_subject(q, &subject);
        if (r >= 0)
                r = atty_prompt_line(subject, o->timeout, &again);
        if (r >= 0)
                r = atty_ask(o->tty, text, again, o->timeout, ret);
        free(text);
        free(subject);
        free(again);
        if (r < 0) {
                host->log(ctx, STK_LOG_WARNING, "no terminal to ask on (%s: %s): not asked: %s. %s", o->tty,
                          r == -EBUSY ? "stockade is not the terminal's foreground job" : strerror(-r), key,
                          how_to_allow(q));
                *ret = ATTY_NO_ANSWER;
                return STK_IGNORE;
        }
        if (*ret == ATTY_NO_ANSWER)
                host->log(ctx, STK_LOG_WARNING, "no answer within %d s; denied: %s. %s", o->timeout, key,
                          how_to_allow(q));
        return *ret == ATTY_ONCE || *ret == ATTY_ALWAYS ? STK_ALLOW : STK_DENY;
}

/* approval.tty off, or auto in an agent's session (ABI 1.6): this line
 * passes every question on, remembered answers included. */
static bool tty_wanted(struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);

        return !s || !STK_HAS(s, stk_settings, approval_tty) || s->approval_tty;
}

static int atty_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret)
{
        struct atty_opts o;
        enum stk_appr_kind kind;
        enum atty_answer answer;
        char *key = NULL, *shown = NULL, *path = NULL, *subject = NULL, why[512] = "";
        bool kept;
        int r = get_opts(ctx, &o);

        if (r < 0)
                return r;
        if (!question_valid(q))
                return -EINVAL;
        if (!tty_wanted(ctx)) {
                *ret = STK_IGNORE;
                return 0;
        }
        /* A destination that is no name or address literal has no key: it
         * can still be answered, only not remembered. */
        r = question_key(q, &kind, &key);
        if (r == -EINVAL)
                snprintf(why, sizeof(why), "the destination is not a host name or address");
        else if (r < 0)
                return r;
        if (key)
                path = state_path(ctx, &o, why, sizeof(why));
        if (key && !path)
                host->log(ctx, STK_LOG_WARNING, "remembered answers not used: %s", why);
        if (path && recall(ctx, path, kind, key, ret))
                goto out;
        r = key ? 0 : stk_appr_printable(q->egress->host, &shown);
        if (r < 0)
                goto out;
        *ret = ask_human(ctx, q, &o, key ? key : shown, &answer);
        kept = (answer == ATTY_ALWAYS || answer == ATTY_NEVER) &&
               remember(ctx, path, kind, key, answer == ATTY_ALWAYS, why);
        if (atty_subject(q, &subject) >= 0) /* no memory: the verdict stands unconfirmed */
                confirm(&o, answer, subject, kept ? path : NULL);
out:
        free(key);
        free(shown);
        free(path);
        free(subject);
        return r < 0 ? r : 0;
}

static int atty_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        host = h;
        *ret_data = NULL;
        return 0;
}

/* Arguments are per line: each line checks its own, so a wrong one fails
 * that line (its questions then go unanswered: DENY). */
static int atty_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct atty_opts o;

        *ret_covers = 0;
        return get_opts(ctx, &o);
}

static int atty_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct atty_opts o;
        char why[512] = "", *path;
        int r = get_opts(ctx, &o), n;

        if (r < 0)
                return r;
        path = state_path(ctx, &o, why, sizeof(why));
        if (path)
                n = asprintf(ret_text, "asks on %s, DENY after %d s without an answer; \"always\" and \"never\" "
                             "kept in %s\n", o.tty, o.timeout, path);
        else
                n = asprintf(ret_text, "asks on %s, DENY after %d s without an answer; remembers nothing: %s\n",
                             o.tty, o.timeout, why);
        free(path);
        return n < 0 ? -ENOMEM : 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("approval_tty"),
        .summary = "asks the human at the terminal; remembers \"always\" and \"never\"",
        .args = atty_args,
        .init = atty_init,
        .probe = atty_probe,
        .approve = atty_approve,
        .explain = atty_explain,
};
