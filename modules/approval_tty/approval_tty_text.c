/* SPDX-License-Identifier: MIT */
/* What the prompt shows.  Every string in a question may come from the
 * command (its argv, the host it connects to): none reaches the terminal
 * without being made printable, so no escape sequence can repaint the
 * question or hide part of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval_tty_internal.h"
#include "approvals/stk_approvals.h"

static int command_text(const struct stk_question *q, const char *who, int timeout_s, char **ret)
{
        char *argv = NULL, *cwd = NULL, *profile = NULL;
        int r = stk_appr_command_key(q->request->argv, &argv);

        if (r >= 0)
                r = stk_appr_printable(q->request->cwd ? q->request->cwd : "?", &cwd);
        if (r >= 0)
                r = stk_appr_printable(q->request->profile ? q->request->profile : "?", &profile);
        if (r >= 0 && asprintf(ret,
                               "\nstockade: a command needs your approval (asked by %s):\n"
                               "    %s\n"
                               "  in %s, profile %s\n"
                               ATTY_PROMPT " (%d s): ",
                               who, argv, cwd, profile, timeout_s) < 0)
                r = -ENOMEM;
        free(argv);
        free(cwd);
        free(profile);
        return r;
}

static int egress_text(const struct stk_question *q, const char *who, int timeout_s, char **ret)
{
        char *host = NULL, *scheme = NULL, pid[32] = "";
        int r = stk_appr_printable(q->egress->host, &host);

        if (r >= 0)
                r = stk_appr_printable(q->egress->scheme ? q->egress->scheme : "?", &scheme);
        if (q->egress->pid > 0)
                snprintf(pid, sizeof(pid), ", pid %ld", (long) q->egress->pid);
        /* An IPv6 literal in brackets, so that the port reads as a port. */
        if (r >= 0 && asprintf(ret,
                               "\nstockade: a network connection needs your approval (asked by %s):\n"
                               "    %s%s%s:%u (%s%s)\n"
                               ATTY_PROMPT " (%d s): ",
                               who, host[0] != '[' && strchr(host, ':') ? "[" : "", host,
                               host[0] != '[' && strchr(host, ':') ? "]" : "", (unsigned) q->egress->port,
                               scheme, pid, timeout_s) < 0)
                r = -ENOMEM;
        free(host);
        free(scheme);
        return r;
}

int atty_question_text(const struct stk_question *q, int timeout_s, char **ret)
{
        char *who = NULL;
        int r = stk_appr_printable(q->reason ? q->reason : "a module", &who);

        if (r < 0)
                return r;
        if (q->kind == STK_QUESTION_COMMAND)
                r = command_text(q, who, timeout_s, ret);
        else if (q->kind == STK_QUESTION_EGRESS)
                r = egress_text(q, who, timeout_s, ret);
        else
                r = -EINVAL;
        free(who);
        return r;
}
