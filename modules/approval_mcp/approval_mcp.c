/* SPDX-License-Identifier: MIT */
/*
 * approval_mcp: answer the run's questions by asking the user of the MCP
 * client that called `stockade mcp`'s run_command, with an MCP elicitation
 * (host->client_confirm, ABI 1.7; stockade-approval_mcp(8)).  It abstains
 * (IGNORE: the next approval line is asked) when there is no such client:
 * not under stockade mcp, a client that did not declare `elicitation`, a
 * question from the command's supervisor (egress), or approval.mcp off.
 * Once the client was asked, only a yes allows; a no, a cancel, a
 * timeout, a client gone or a malformed answer is a DENY.  An answer
 * allows once: nothing is written to the approvals store.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stockade/module.h"
#include "common/stk_buf.h"
#include <stdbool.h>
#include "common/stk_util.h"

#define AMCP_TIMEOUT_DEFAULT 300
#define AMCP_TIMEOUT_MAX 3600

static const struct stk_host *host;

static const struct stk_arg_spec amcp_args[] = {
        { "timeout", STK_ARG_INT, STK_ARG_TRUSTED, "seconds to wait for the client's answer, 1-3600 (default 300)" },
        { NULL, 0, 0, NULL },
};

static long long line_timeout(struct stk_ctx *ctx)
{
        return host->arg_int(ctx, "timeout", AMCP_TIMEOUT_DEFAULT);
}

static int check_line(struct stk_ctx *ctx)
{
        long long t = line_timeout(ctx);

        if (t < 1 || t > AMCP_TIMEOUT_MAX) {
                host->log(ctx, STK_LOG_ERROR, "timeout %lld: must be 1 to %d seconds", t, AMCP_TIMEOUT_MAX);
                return -EINVAL;
        }
        return 0;
}

static int amcp_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        if (!STK_HAS(h, stk_host, client_confirm))
                return -EPROTO; /* a core older than ABI 1.7 has no client to ask */
        host = h;
        *ret_data = NULL;
        return check_line(ctx);
}

static int amcp_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        *ret_covers = 0; /* an approver enforces nothing itself */
        return check_line(ctx);
}

/* One word of the command as the user reads it: quoted when it is not
 * plain, control bytes shown as \xNN so nothing redraws the question. */
static void add_word(struct stk_buf *b, const char *w)
{
        bool plain = *w != '\0';

        for (const char *c = w; *c && plain; c++)
                plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *c) != NULL;
        if (plain) {
                stk_buf_adds(b, w);
                return;
        }
        stk_buf_adds(b, "'");
        for (const unsigned char *c = (const unsigned char *) w; *c; c++) {
                char hex[8];
                if (*c < 0x20 || *c == 0x7f) {
                        snprintf(hex, sizeof(hex), "\\x%02x", *c);
                        stk_buf_adds(b, hex);
                } else if (*c == '\'') {
                        stk_buf_adds(b, "'\\''");
                } else {
                        stk_buf_add(b, (const char *) c, 1);
                }
        }
        stk_buf_adds(b, "'");
}

static char *question_text(const struct stk_question *q)
{
        struct stk_buf b = { 0 };
        char port[16];

        if (q->kind == STK_QUESTION_COMMAND && q->request) {
                stk_buf_adds(&b, "stockade asks: run this command once?\n");
                for (const char *const *a = q->request->argv; a && *a; a++) {
                        if (a != q->request->argv)
                                stk_buf_adds(&b, " ");
                        add_word(&b, *a);
                }
                if (q->request->cwd) {
                        stk_buf_adds(&b, "\nin ");
                        add_word(&b, q->request->cwd);
                }
        } else if (q->kind == STK_QUESTION_EGRESS && q->egress) {
                snprintf(port, sizeof(port), ":%u", (unsigned) q->egress->port);
                stk_buf_adds(&b, "stockade asks: allow one connection to ");
                add_word(&b, q->egress->host);
                stk_buf_adds(&b, port);
                stk_buf_adds(&b, "?");
        } else {
                return NULL;
        }
        if (q->reason) {
                stk_buf_adds(&b, "\nasked because: ");
                add_word(&b, q->reason);
        }
        return stk_buf_take(&b);
}

static const char *refusal_word(int r)
{
        switch (r) {
        case 0: return "the user said no";
        case -EPROTO: return "a malformed answer";
        case -ETIMEDOUT: return "no answer in time";
        case -EPIPE: return "the client went away";
        case -ECANCELED: return "the call was cancelled";
        default: return "no answer";
        }
}

static int amcp_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict)
{
        const struct stk_settings *s = host->settings(ctx);
        _cleanup_free_ char *text = NULL;
        int r;

        *ret_verdict = STK_IGNORE;
        if (!s || !STK_HAS(s, stk_settings, approval_mcp) || !s->approval_mcp)
                return 0; /* approval.mcp off: forbidden by the policy */
        text = question_text(q);
        if (!text) {
                *ret_verdict = STK_DENY;
                host->log(ctx, STK_LOG_WARNING, "cannot put the question into words: DENY");
                return 0;
        }
        r = host->client_confirm(ctx, text, (int) line_timeout(ctx) * 1000);
        if (r == -ENOTCONN)
                return 0; /* no client to ask here: the next approver */
        *ret_verdict = r == 1 ? STK_ALLOW : STK_DENY;
        if (r == 1)
                host->log(ctx, STK_LOG_INFO, "the MCP client's user allowed it, once");
        else
                host->log(ctx, r == -EPROTO ? STK_LOG_ERROR : STK_LOG_WARNING, "%s%s%s: DENY", refusal_word(r),
                          r < 0 && r != -EPROTO ? ": " : "", r < 0 && r != -EPROTO ? strerror(-r) : "");
        return 0;
}

static int amcp_explain(struct stk_ctx *ctx, char **ret_text)
{
        const struct stk_settings *s = host->settings(ctx);
        bool on = s && STK_HAS(s, stk_settings, approval_mcp) && s->approval_mcp;
        int n = on ? asprintf(ret_text, "asks the user of an MCP client that declared elicitation (stockade mcp), "
                              "DENY after %lld s without an answer; elsewhere answers nothing (IGNORE)\n",
                              line_timeout(ctx))
                   : asprintf(ret_text, "answers nothing (IGNORE): approval.mcp is off\n");

        return n < 0 ? -ENOMEM : 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("approval_mcp"),
        .summary = "answer approval questions by MCP elicitation to the client of stockade mcp (allow once or deny)",
        .args = amcp_args,
        .init = amcp_init,
        .probe = amcp_probe,
        .approve = amcp_approve,
        .explain = amcp_explain,
};
