/* SPDX-License-Identifier: MIT */
/* What the prompt shows.  Every string in a question may come from the
 * command (its argv, the host it connects to): none reaches the terminal
 * without being made printable, so no escape sequence can repaint the
 * question or hide part of it.  The line the answer is typed on names
 * what the answer approves, and so does the line that confirms it (issue
 * 21 §2): what the command drew before the question cannot stand in for
 * it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval_tty_internal.h"
#include "approvals/stk_approvals.h"

/* host:port, printable, an IPv6 literal in brackets so the port reads as
 * a port. */
static int egress_target(const struct stk_egress *e, char **ret)
{
        char *host = NULL;
        int r = stk_appr_printable(e->host, &host);
        bool v6 = r >= 0 && host[0] != '[' && strchr(host, ':');

        if (r >= 0 && asprintf(ret, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", (unsigned) e->port) < 0)
                r = -ENOMEM;
        free(host);
        return r;
}

int atty_subject(const struct stk_question *q, char **ret)
{
        char *what = NULL;
        int r = q->kind == STK_QUESTION_COMMAND ? stk_appr_command_key(q->request->argv, &what)
                                                : egress_target(q->egress, &what);

        if (r >= 0 && asprintf(ret, "%s %s", q->kind == STK_QUESTION_COMMAND ? "run" : "connect to", what) < 0)
                r = -ENOMEM;
        free(what);
        return r;
}

int atty_prompt_line(const char *subject, int timeout_s, char **ret)
{
        /* "Run git push?" / "Connect to example.com:443?" */
        if (asprintf(ret, "%c%s" ATTY_PROMPT " (%d s): ", subject[0] >= 'a' && subject[0] <= 'z' ? subject[0] - 'a' + 'A'
                     : subject[0], subject + 1, timeout_s) < 0)
                return -ENOMEM;
        return 0;
}

static int command_text(const struct stk_question *q, const char *who, char **ret)
{
        char *argv = NULL, *cwd = NULL, *profile = NULL;
        int r = stk_appr_command_key(q->request->argv, &argv);

        if (r >= 0)
                r = stk_appr_printable(q->request->cwd ? q->request->cwd : "?", &cwd);
        if (r >= 0)
                r = stk_appr_printable(q->request->profile ? q->request->profile : "?", &profile);
        if (r >= 0 && asprintf(ret,
                               "stockade: a command needs your approval (asked by %s):\n"
                               "    %s\n"
                               "  in %s, profile %s\n",
                               who, argv, cwd, profile) < 0)
                r = -ENOMEM;
        free(argv);
        free(cwd);
        free(profile);
        return r;
}

static int egress_text(const struct stk_question *q, const char *who, char **ret)
{
        char *target = NULL, *scheme = NULL, pid[32] = "";
        int r = egress_target(q->egress, &target);

        if (r >= 0)
                r = stk_appr_printable(q->egress->scheme ? q->egress->scheme : "?", &scheme);
        if (q->egress->pid > 0)
                snprintf(pid, sizeof(pid), ", pid %ld", (long) q->egress->pid);
        if (r >= 0 && asprintf(ret,
                               "stockade: a network connection needs your approval (asked by %s):\n"
                               "    %s (%s%s)\n",
                               who, target, scheme, pid) < 0)
                r = -ENOMEM;
        free(target);
        free(scheme);
        return r;
}

int atty_question_text(const struct stk_question *q, int timeout_s, char **ret)
{
        char *who = NULL, *body = NULL, *subject = NULL, *prompt = NULL;
        int r = stk_appr_printable(q->reason ? q->reason : "a module", &who);

        if (r >= 0)
                r = q->kind == STK_QUESTION_COMMAND ? command_text(q, who, &body)
                  : q->kind == STK_QUESTION_EGRESS ? egress_text(q, who, &body) : -EINVAL;
        if (r >= 0)
                r = atty_subject(q, &subject);
        if (r >= 0)
                r = atty_prompt_line(subject, timeout_s, &prompt);
        /* The attributes reset first (ATTY_RESET): text the command left
         * concealed or coloured as the background must not hide ours. */
        if (r >= 0 && asprintf(ret, ATTY_RESET "\n%s%s", body, prompt) < 0)
                r = -ENOMEM;
        free(who);
        free(body);
        free(subject);
        free(prompt);
        return r;
}
