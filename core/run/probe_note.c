/* SPDX-License-Identifier: MIT */
/*
 * A handled fallback is one notice (issue 13, §6).  Where user namespaces
 * are blocked, a run of the default profile printed fs_bwrap's probe error
 * ("user namespaces are blocked"), then the stack's "pre-exec failed: No
 * space left on device", and then ran correctly under Landlock: two alarms
 * for a case the stack was written to handle.
 *
 * So what a `sufficient` or `optional` line's module logs while it probes
 * is held (core_probe_hold).  If the probe succeeds it is printed as it
 * would have been; if not, the line is a fallback the policy planned: the
 * reasons go into one line after the phase, naming the module, its line,
 * the cause, and the lines that took effect (core_fallback_notice), and
 * explain shows them as its "why not".  A required line's messages are
 * never held: its failure stops the run, and says so as before.
 */
#include <stdio.h>

#include "core.h"
#include "util/util.h"

static bool held_control(const struct stk_ctx *ctx)
{
        return ctx->line->control == CORE_SUFFICIENT || ctx->line->control == CORE_OPTIONAL;
}

bool core_probe_hold(struct stk_ctx *ctx, enum stk_log_level level, const char *msg)
{
        char *joined = NULL;

        if (!ctx->probing || !held_control(ctx) || level > STK_LOG_WARNING)
                return false;
        if (asprintf(&joined, "%s%s%s", ctx->probe_why ? ctx->probe_why : "", ctx->probe_why ? "; " : "", msg) < 0)
                return false; /* out of memory: printed instead, nothing is lost */
        free(ctx->probe_why);
        ctx->probe_why = joined;
        return true;
}

/* After the probe: a line that can run after all says what it held. */
void core_probe_done(struct stk_ctx *ctx)
{
        ctx->probing = false;
        if (ctx->probe_r < 0 || !ctx->probe_why)
                return;
        fprintf(stderr, "stockade: warning: %s (%s:%u): %s\n", ctx->mod->name, ctx->line->origin.file,
                ctx->line->origin.line, ctx->probe_why);
        free(ctx->probe_why);
        ctx->probe_why = NULL;
}

const char *core_probe_why(const struct stk_ctx *ctx)
{
        return ctx->probe_why ? ctx->probe_why : strerror(-ctx->probe_r);
}

/* The line could not run here, and the policy planned for that. */
bool core_fell_back(const struct stk_ctx *ctx)
{
        return ctx->probe_r < 0 && held_control(ctx);
}

/* Line i is usable and of `phase`, or (after pre-exec) of in-sandbox. */
static bool counts(const struct core_run *run, enum stk_phase phase, size_t i)
{
        enum stk_phase p = run->policy->lines[i].phase;

        return run->ctxs[i].probe_r >= 0 &&
               (p == phase || (phase == STK_PHASE_PRE_EXEC && p == STK_PHASE_IN_SANDBOX));
}

/* "a, b, c": the modules of the lines that take effect, each once. */
static void took_effect(const struct core_run *run, enum stk_phase phase, char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < run->policy->n_lines && used < size; i++) {
                const struct core_line *l = &run->policy->lines[i];
                bool seen = false;
                if (!counts(run, phase, i))
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = counts(run, phase, k) && streq(run->policy->lines[k].module, l->module);
                if (seen)
                        continue;
                int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", l->module);
                if (n < 0)
                        return;
                used += (size_t) n;
        }
}

void core_fallback_notice(const struct core_run *run, enum stk_phase phase)
{
        char stack[512];

        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct stk_ctx *ctx = &run->ctxs[i];
                if (ctx->line->phase != phase || !core_fell_back(ctx))
                        continue;
                took_effect(run, phase, stack, sizeof(stack));
                core_log(STK_LOG_WARNING, "%s (%s:%u, %s) cannot run here: %s; the stack goes on without it: "
                         "%s", ctx->line->module, ctx->line->origin.file, ctx->line->origin.line,
                         core_control_name(ctx->line->control), core_probe_why(ctx), stack[0] ? stack : "(no line)");
        }
}
