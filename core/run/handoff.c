/* SPDX-License-Identifier: MIT */
/*
 * Prepare hooks and their handoffs (ABI 1.4, stockade-module(3)).  Work an
 * in-sandbox hook needs from nothing inside the sandbox (net_seccomp's
 * filter, compiled) is done by its line's prepare hook in the supervisor,
 * right after the child is forked: on the other CPU, while bwrap sets up
 * (about 10 ms) or while the lines before it apply in a wrapper-less child,
 * instead of in front of the command.  The result crosses the status
 * channel the other way, supervisor to child, one message per in-sandbox
 * line whose module has a prepare hook (its error if it failed), so a child
 * waiting for one never waits for nothing.
 *
 * Lines are named by their ordinal among the in-sandbox lines: the inner
 * helper's lines are exactly those, in the same order (inner.c).
 */
#include <stdio.h>

#include "core.h"
#include "status.h"
#include "util/util.h"

struct core_handoff {
        bool received;
        int err;                /* positive errno from prepare, or 0 */
        void *data;
        size_t len;
};

static size_t ordinal_of(const struct core_run *run, const struct stk_ctx *ctx)
{
        size_t k = 0, idx = (size_t) (ctx->line - run->policy->lines);

        for (size_t i = 0; i < idx; i++)
                k += run->policy->lines[i].phase == STK_PHASE_IN_SANDBOX;
        return k;
}

static size_t in_sandbox_lines(const struct core_run *run)
{
        size_t n = 0;

        for (size_t i = 0; i < run->policy->n_lines; i++)
                n += run->policy->lines[i].phase == STK_PHASE_IN_SANDBOX;
        return n;
}

static bool has_prepare(const struct stk_ctx *ctx)
{
        return ctx->mod && ctx->mod->desc && MODULE_HAS(ctx->mod->desc, prepare);
}

void core_prepare_in_sandbox(struct core_run *run, int status_fd)
{
        enum stk_phase saved = run->phase;
        size_t k = 0;

        /* Not pre-exec any more: the plan went to the child already, so
         * plan_* calls fail (EPERM) rather than change nothing. */
        run->phase = STK_PHASE_IN_SANDBOX;
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                struct stk_ctx *ctx = &run->ctxs[i];
                int r, ordinal = (int) k;

                if (run->policy->lines[i].phase != STK_PHASE_IN_SANDBOX)
                        continue;
                k++;
                if (!has_prepare(ctx))
                        continue;
                /* A line that cannot run here fails in the child with its
                 * probe's error, without a prepare. */
                r = ctx->probe_r;
                run->preparing = ctx;
                run->handoff_sent = false;
                run->handoff_fd = status_fd;
                if (r >= 0)
                        r = ctx->mod->desc->prepare(ctx);
                run->preparing = NULL;
                /* A child gone already (it failed, or a line before this one
                 * ended the phase) is not this line's failure. */
                if (r < 0 && ctx->probe_r >= 0)
                        core_log(r == -EPIPE || r == -ECONNRESET ? STK_LOG_DEBUG : STK_LOG_ERROR,
                                 "%s (%s:%u): prepare failed: %s", ctx->mod->name, ctx->line->origin.file,
                                 ctx->line->origin.line, strerror(-r));
                if ((r < 0 || !run->handoff_sent) && !run->handoff_broken) {
                        int e = core_status_send_handoff(status_fd, ordinal, r < 0 ? -r : 0, NULL, 0);
                        if (e < 0) {
                                /* the child is gone or going: it reports why */
                                core_log(STK_LOG_DEBUG, "handoff to the child: %s", strerror(-e));
                                run->handoff_broken = true;
                        }
                }
        }
        run->phase = saved;
}

int core_handoff(struct stk_ctx *ctx, const void *data, size_t len)
{
        struct core_run *run = ctx->run;
        int r;

        if (run->in_child || run->preparing != ctx)
                return -EPERM;
        if (run->handoff_sent)
                return -EEXIST;
        /* The supervisor sends before its event loop runs, so everything
         * must fit in the socket's buffer at once, or a child waiting for
         * the supervisor's answer to a seccomp notification, before taking
         * its handoff, would wait for a supervisor blocked in send (found by
         * review): STK_HANDOFF_MAX is the whole run's. */
        if (len > STK_HANDOFF_MAX - run->handoff_total)
                return -E2BIG;
        if (run->handoff_broken)
                return -EPIPE;
        r = core_status_send_handoff(run->handoff_fd, (int) ordinal_of(run, ctx), 0, data, len);
        if (r >= 0) {
                run->handoff_sent = true;
                run->handoff_total += len;
        } else
                run->handoff_broken = true; /* a stream is out of step now: nothing more on it */
        return r;
}

/* The next message, stored by its ordinal. */
static int receive_one(struct core_run *run)
{
        void *data = NULL;
        size_t len = 0;
        int ordinal = -1, err = 0;
        int r = core_status_recv_handoff(run->status_fd, &ordinal, &err, &data, &len);

        if (r < 0)
                return r;
        if ((size_t) ordinal >= run->n_handoffs || run->handoffs[ordinal].received) {
                free(data);
                return -EPROTO;
        }
        run->handoffs[ordinal] = (struct core_handoff) { true, err, data, len };
        return 0;
}

int core_handoff_take(struct stk_ctx *ctx, const void **ret_data, size_t *ret_len)
{
        struct core_run *run = ctx->run;
        size_t ordinal = ordinal_of(run, ctx);
        struct core_handoff *h;

        *ret_data = NULL;
        *ret_len = 0;
        if (!run->in_child || run->phase != STK_PHASE_IN_SANDBOX || ctx->line->phase != STK_PHASE_IN_SANDBOX)
                return -EPERM;
        if (!has_prepare(ctx))
                return 0; /* no prepare: no message will come */
        if (!run->handoffs) {
                run->n_handoffs = in_sandbox_lines(run);
                run->handoffs = calloc(run->n_handoffs, sizeof(*run->handoffs));
                if (!run->handoffs)
                        return -ENOMEM;
        }
        h = &run->handoffs[ordinal];
        while (!h->received) {
                int r = receive_one(run);
                if (r < 0)
                        return r;
        }
        if (h->err)
                return -h->err;
        *ret_data = h->data;
        *ret_len = h->len;
        return 0;
}

void core_handoffs_free(struct core_run *run)
{
        for (size_t i = 0; run->handoffs && i < run->n_handoffs; i++)
                free(run->handoffs[i].data);
        free(run->handoffs);
        run->handoffs = NULL;
        run->n_handoffs = 0;
}
