/* SPDX-License-Identifier: MIT */
/*
 * The PAM-style dispatch of one phase (docs/ARCHITECTURE.md, Phases and control flags).  The truth
 * tables are pure functions, stepped one line at a time, so the table-driven
 * test in t/unit/test_stack.c covers every control x outcome; stockade.yaml(5)
 * prints the same table.
 */
#include <json-c/json.h>

#include "core.h"
#include "util/util.h"

static bool verdict_valid(enum stk_verdict v)
{
        return v == STK_ALLOW || v == STK_DENY || v == STK_ASK || v == STK_IGNORE;
}

/* A hook error, an unset or out-of-range verdict: a failure, i.e. DENY. */
static enum stk_verdict normalize(int r, enum stk_verdict v)
{
        return r < 0 || !verdict_valid(v) ? STK_DENY : v;
}

void core_decision_step(struct core_decision *d, enum core_control control, int r, enum stk_verdict v)
{
        enum stk_verdict n = normalize(r, v);

        if (d->done)
                return;
        switch (control) {
        case CORE_REQUISITE:
        case CORE_REQUIRED:
                if (n == STK_DENY) {
                        d->denied = true;
                        d->done = control == CORE_REQUISITE;
                } else if (n == STK_ASK)
                        d->asked = true;
                else if (n == STK_ALLOW)
                        d->allowed = true;
                break;
        case CORE_SUFFICIENT:
                /* Success ends the phase unless an earlier line already said
                 * no or wants a human to look; failure is ignored.  An ASK is
                 * kept: a question never turns silently into a yes. */
                if (n == STK_ALLOW && !d->denied && !d->asked) {
                        d->sufficient_allowed = true;
                        d->done = true;
                } else if (n == STK_ASK)
                        d->asked = true;
                break;
        case CORE_OPTIONAL:
                if (d->n_lines == 1)
                        d->optional_verdict = n;
                break;
        default:
                d->denied = true; /* unknown control: fail closed */
        }
}

enum stk_verdict core_decision_result(const struct core_decision *d, enum stk_verdict if_empty)
{
        if (d->n_lines == 0)
                return if_empty;
        if (d->denied)
                return STK_DENY;
        if (d->sufficient_allowed)
                return STK_ALLOW;
        if (d->asked)
                return STK_ASK;
        if (d->allowed)
                return STK_ALLOW;
        if (d->optional_verdict == STK_ALLOW || d->optional_verdict == STK_ASK)
                return d->optional_verdict;
        return STK_DENY; /* lines ran but nobody voted yes: fail closed */
}

void core_action_step(struct core_action *a, enum core_control control, int r)
{
        if (a->done)
                return;
        switch (control) {
        case CORE_REQUISITE:
        case CORE_REQUIRED:
                if (r < 0) {
                        /* An integrity failure outranks others: it has its own exit status. */
                        if (!a->failed || r == -EKEYREJECTED)
                                a->first_error = r;
                        a->failed = true;
                        a->done = control == CORE_REQUISITE;
                } else
                        a->succeeded = true;
                break;
        case CORE_SUFFICIENT:
                if (r >= 0 && !a->failed) {
                        a->succeeded = true;
                        a->done = true;
                }
                break;
        case CORE_OPTIONAL:
                if (a->n_lines == 1)
                        a->optional_r = r < 0 ? r : 1;
                break;
        default:
                a->failed = true;
                a->first_error = -EINVAL;
        }
}

int core_action_result(const struct core_action *a)
{
        if (a->n_lines == 0)
                return 0;
        if (a->failed)
                return a->first_error < 0 ? a->first_error : -EINVAL;
        if (a->succeeded)
                return 0;
        if (a->optional_r > 0)
                return 0;
        return a->optional_r < 0 ? a->optional_r : -ENOMSG; /* nothing took effect */
}

/* A line votes in a decision phase when its module has that phase's hook;
 * an approval module listed there only answers questions (a profile lists
 * approval_tty as a permission line), so it neither counts nor votes: a
 * stack whose only permission line is an approval module allows, as an
 * empty phase does. */
static bool votes(const struct core_run *run, size_t i, enum stk_phase phase)
{
        const struct stk_module *d = run->ctxs[i].mod ? run->ctxs[i].mod->desc : NULL;

        if (run->policy->lines[i].phase != phase)
                return false;
        if (!d || (phase != STK_PHASE_PERMISSION && phase != STK_PHASE_EGRESS))
                return true;
        return phase == STK_PHASE_PERMISSION ? d->permission != NULL : d->egress != NULL;
}

static size_t phase_lines(const struct core_run *run, enum stk_phase phase)
{
        size_t n = 0;

        for (size_t i = 0; i < run->policy->n_lines; i++)
                n += votes(run, i, phase);
        return n;
}

static void trail_push(struct core_run *run, const struct core_line *l, int r, enum stk_verdict v, bool skipped)
{
        if (run->n_trail < ELEMENTSOF(run->trail))
                run->trail[run->n_trail++] = (struct core_trail) { l, r, v, skipped };
}

static int call_decision_hook(struct stk_ctx *ctx, enum stk_phase phase, const void *request, enum stk_verdict *v)
{
        const struct stk_module *d = ctx->mod->desc;

        *v = STK_VERDICT_UNSET;
        if (phase == STK_PHASE_PERMISSION && d->permission)
                return d->permission(ctx, request, v);
        if (phase == STK_PHASE_EGRESS && d->egress)
                return d->egress(ctx, request, v);
        /* An approval module listed in a decision phase only answers questions. */
        *v = STK_IGNORE;
        return 0;
}

/* The first line that voted the final verdict with a control that counts. */
static const char *decider_of(const struct core_run *run, enum stk_verdict result)
{
        if (run->n_trail == 0)
                return "(no lines)";
        for (size_t i = 0; i < run->n_trail; i++) {
                const struct core_trail *t = &run->trail[i];
                if (t->skipped || normalize(t->r, t->verdict) != result)
                        continue;
                if (t->line->control != CORE_OPTIONAL || run->n_trail == 1)
                        return t->line->module;
        }
        return "(no vote)";
}

int core_stack_decide(struct core_run *run, enum stk_phase phase, const void *request,
                      enum stk_verdict *ret_verdict, const char **ret_decider)
{
        struct core_decision d = { .n_lines = phase_lines(run, phase) };
        run->phase = phase;
        run->n_trail = 0;
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                enum stk_verdict v;
                int r;

                if (!votes(run, i, phase))
                        continue;
                if (d.done) {
                        trail_push(run, l, 0, STK_VERDICT_UNSET, true);
                        continue;
                }
                r = call_decision_hook(&run->ctxs[i], phase, request, &v);
                if (r < 0)
                        core_log(STK_LOG_WARNING, "%s (%s:%u): %s hook failed: %s", l->module, l->origin.file,
                                 l->origin.line, core_phase_name(phase), strerror(-r));
                trail_push(run, l, r, v, false);
                core_decision_step(&d, l->control, r, v);
        }
        *ret_verdict = core_decision_result(&d, phase == STK_PHASE_PERMISSION ? STK_ALLOW : STK_DENY);
        *ret_decider = decider_of(run, *ret_verdict);
        return 0;
}

static int call_action_hook(struct stk_ctx *ctx, enum stk_phase phase)
{
        const struct stk_module *d = ctx->mod->desc;
        int (*hook)(struct stk_ctx *) = phase == STK_PHASE_PRE_EXEC ? d->pre_exec : d->in_sandbox;

        /* A module that said it cannot run here fails its line without being
         * called: that is what lets a `sufficient` line fall through. */
        if (ctx->probe_r < 0)
                return ctx->probe_r;
        return hook ? hook(ctx) : -ENOSYS;
}

int core_stack_act(struct core_run *run, enum stk_phase phase)
{
        struct core_action a = { .n_lines = phase_lines(run, phase) };

        run->phase = phase;
        run->n_trail = 0;
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                int r;

                if (l->phase != phase)
                        continue;
                if (a.done) {
                        trail_push(run, l, 0, STK_VERDICT_UNSET, true);
                        continue;
                }
                r = call_action_hook(&run->ctxs[i], phase);
                if (r < 0)
                        core_log(l->control <= CORE_REQUISITE ? STK_LOG_ERROR : STK_LOG_WARNING,
                                 "%s (%s:%u:%u, %s): %s failed: %s", l->module, l->origin.file, l->origin.line,
                                 l->origin.column, core_control_name(l->control), core_phase_name(phase), strerror(-r));
                else
                        run->covered |= run->ctxs[i].covers;
                trail_push(run, l, r, r < 0 ? STK_DENY : STK_ALLOW, false);
                core_action_step(&a, l->control, r);
        }
        return core_action_result(&a);
}

/* Whether an ASK would reach an approval module; if not, *ret_decider
 * names why it is a DENY, as core_approval_ask would. */
bool core_approval_would_ask(const struct core_run *run, const char **ret_decider)
{
        if (run->settings.pub.approval == STK_APPROVAL_NEVER) {
                *ret_decider = "approval: never";
                return false;
        }
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct stk_ctx *ctx = &run->ctxs[i];
                if (ctx->mod && ctx->mod->desc->approve && ctx->probe_r >= 0)
                        return true;
        }
        *ret_decider = "no approval module answered";
        return false;
}

/* Every approval line passed the question on: nobody answered it. */
static void say_nobody_answered(const struct core_run *run)
{
        const char *xdg = getenv("XDG_CONFIG_HOME");

        core_log(STK_LOG_WARNING, "no approval module answered the question: denied.  Without a terminal to ask "
                 "on, set approval.exec (a program that answers) or approval.webhook (an endpoint that answers) "
                 "in the user layer, %s%s/stockade/%s.yaml: settings: { approval: { exec: /path/to/approver } } "
                 "(stockade.yaml(5), APPROVALS)", xdg && *xdg ? xdg : "~", xdg && *xdg ? "" : "/.config",
                 run->policy->profile);
}

static int ask_lines(struct core_run *run, const struct stk_question *q, enum stk_verdict *ret_verdict,
                     const char **ret_decider)
{
        /* Every line whose module answers questions, in stack order, with
         * that line's own arguments. */
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                struct stk_ctx *ctx = &run->ctxs[i];
                enum stk_verdict v = STK_VERDICT_UNSET;
                int r;

                if (!ctx->mod || !ctx->mod->desc->approve || ctx->probe_r < 0)
                        continue;
                r = ctx->mod->desc->approve(ctx, q, &v);
                if (r < 0) {
                        core_log(STK_LOG_WARNING, "approval module %s failed: %s", ctx->mod->name, strerror(-r));
                        continue;
                }
                if (v == STK_ALLOW || v == STK_DENY) {
                        *ret_verdict = v;
                        *ret_decider = ctx->mod->name;
                        return 0;
                }
        }
        say_nobody_answered(run);
        *ret_verdict = STK_DENY;
        *ret_decider = "no approval module answered";
        return 0;
}

/* approval.ask_limit (issue 21 §2): a command that keeps asking must not
 * keep a human answering, nor wear them down until one "y" slips
 * through.  Once that many questions of this run were denied or went
 * unanswered, the rest are denied without asking anyone. */
static bool ask_limit_reached(struct core_run *run)
{
        int limit = run->policy->approval_ask_limit;

        if (run->asks_refused < limit)
                return false;
        if (!run->ask_limit_said)
                core_log(STK_LOG_WARNING, "%d questions of this run were denied or went unanswered: the rest are "
                         "denied without asking (approval.ask_limit: %d)", run->asks_refused, limit);
        run->ask_limit_said = true;
        return true;
}

int core_approval_ask(struct core_run *run, const struct stk_question *q,
                      enum stk_verdict *ret_verdict, const char **ret_decider)
{
        int r;

        if (run->settings.pub.approval == STK_APPROVAL_NEVER) {
                *ret_verdict = STK_DENY;
                *ret_decider = "approval: never";
                return 0;
        }
        if (!core_approval_would_ask(run, ret_decider)) {
                *ret_verdict = STK_DENY;
                return 0;
        }
        if (ask_limit_reached(run)) {
                *ret_verdict = STK_DENY;
                *ret_decider = "approval.ask_limit";
                return 0;
        }
        /* The command may share the terminal a question goes to: it stands
         * still while the approval lines ask (freeze.c). */
        if (core_freeze(run) < 0) {
                *ret_verdict = STK_DENY;
                *ret_decider = "stockade (the command could not be stopped for the question)";
                run->asks_refused++;
                return 0;
        }
        r = ask_lines(run, q, ret_verdict, ret_decider);
        core_thaw(run);
        if (r < 0 || *ret_verdict != STK_ALLOW)
                run->asks_refused++;
        return r;
}
