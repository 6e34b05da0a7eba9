/* SPDX-License-Identifier: MIT */
/* One run: the policy's modules loaded once each, one context per stack line
 * with its arguments typed against the module's spec, the settings view. */
#include <inttypes.h>
#include <stdio.h>
#include <json-c/json.h>

#include "core.h"
#include "os/loop.h"
#include "util/util.h"

static int find_or_load(struct core_run *run, const struct core_line *l, struct core_module **ret)
{
        struct core_module *nm = run->modules; /* sized for one module per line: never moves */
        int r;

        for (size_t i = 0; i < run->n_modules; i++)
                if (streq(run->modules[i].name, l->module)) {
                        *ret = &run->modules[i];
                        return 0;
                }
        r = core_module_load(l->module, run->trust_build_tree, &nm[run->n_modules]);
        if (r < 0) {
                core_diag(&l->origin, "module %s cannot be loaded (%s)", l->module, strerror(-r));
                return r;
        }
        *ret = &nm[run->n_modules++];
        return 0;
}

static const char *arg_type_name(enum stk_arg_type t)
{
        switch (t) {
        case STK_ARG_STRING: return "a string";
        case STK_ARG_LIST: return "a list of strings";
        case STK_ARG_BOOL: return "true or false";
        case STK_ARG_INT: return "an integer";
        }
        return "?";
}

static int parse_scalar(struct core_typed_arg *t, const struct core_arg *a)
{
        char *end;

        switch (t->spec->type) {
        case STK_ARG_STRING:
                t->string = a->scalar;
                return 0;
        case STK_ARG_BOOL:
                if (streq(a->scalar, "true") || streq(a->scalar, "yes"))
                        t->number = 1;
                else if (streq(a->scalar, "false") || streq(a->scalar, "no"))
                        t->number = 0;
                else
                        return -EINVAL;
                return 0;
        case STK_ARG_INT:
                errno = 0;
                t->number = strtoll(a->scalar, &end, 0);
                return errno || end == a->scalar || *end ? -EINVAL : 0;
        case STK_ARG_LIST:
                break;
        }
        return -EINVAL;
}

static int type_arg(struct stk_ctx *ctx, const struct core_arg *a)
{
        const struct stk_module *d = ctx->mod->desc;
        struct core_typed_arg *t = NULL;
        int r;

        for (size_t i = 0; i < ctx->n_args; i++)
                if (streq(ctx->args[i].spec->name, a->name))
                        t = &ctx->args[i];
        if (!t) {
                char known[512] = "";
                for (size_t i = 0; d->args && d->args[i].name; i++)
                        snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "", d->args[i].name);
                core_diag(&a->origin, "unknown argument \"%s\" for module %s; expected %s%s", a->name,
                          d->name, *known ? "one of " : "no arguments", known);
                return -EINVAL;
        }
        if ((t->spec->flags & STK_ARG_TRUSTED) && a->origin.layer == CORE_LAYER_PROJECT) {
                core_diag(&a->origin, "argument \"%s\" of %s names something the supervisor trusts; "
                          "only system and user files may set it", a->name, d->name);
                return -EINVAL;
        }
        if (a->is_list != (t->spec->type == STK_ARG_LIST)) {
                core_diag(&a->origin, "argument \"%s\" of %s: expected %s", a->name, d->name, arg_type_name(t->spec->type));
                return -EINVAL;
        }
        t->set = true;
        if (a->is_list) {
                t->list = strv_copy((const char *const *) a->list);
                return t->list ? 0 : -ENOMEM;
        }
        r = parse_scalar(t, a);
        if (r < 0)
                core_diag(&a->origin, "argument \"%s\" of %s: \"%s\" is not %s", a->name, d->name, a->scalar,
                          arg_type_name(t->spec->type));
        return r;
}

static bool module_has_phase(const struct stk_module *d, enum stk_phase p)
{
        switch (p) {
        case STK_PHASE_PERMISSION: return d->permission || d->approve;
        case STK_PHASE_PRE_EXEC: return d->pre_exec;
        case STK_PHASE_IN_SANDBOX: return d->in_sandbox;
        case STK_PHASE_EGRESS: return d->egress || d->approve;
        default: return false;
        }
}

int core_ctx_setup(struct core_run *run, size_t i, struct core_module *m)
{
        const struct core_line *l = &run->policy->lines[i];
        struct stk_ctx *ctx = &run->ctxs[i];
        int r = 0;

        *ctx = (struct stk_ctx) { .run = run, .mod = m, .line = l };
        if (!module_has_phase(m->desc, l->phase)) {
                core_diag(&l->origin, "module %s has no %s hook", l->module, core_phase_name(l->phase));
                return -EINVAL;
        }
        while (m->desc->args && m->desc->args[ctx->n_args].name)
                ctx->n_args++;
        ctx->args = calloc(ctx->n_args + 1, sizeof(*ctx->args));
        ctx->empty = calloc(1, sizeof(char *));
        if (!ctx->args || !ctx->empty)
                return -ENOMEM;
        for (size_t k = 0; k < ctx->n_args; k++)
                ctx->args[k].spec = &m->desc->args[k];
        for (size_t k = 0; k < l->n_args; k++) {
                int q = type_arg(ctx, &l->args[k]);
                if (q < 0 && r == 0)
                        r = q;
        }
        return r;
}

static void ctx_done(struct stk_ctx *ctx)
{
        for (size_t k = 0; k < ctx->n_args; k++)
                strv_free(ctx->args[k].list);
        free(ctx->args);
        free(ctx->empty);
        free(ctx->probe_why);
}

/* approval.exec and approval.webhook are what the approval_exec and
 * approval_webhook lines run and post to: set where no such line is, they
 * would answer nothing, and a setting nothing uses is an error. */
static int check_approver_used(const struct core_policy *p, const char *value, const struct core_origin *o,
                               const char *key, const char *module)
{
        if (!value)
                return 0;
        for (size_t i = 0; i < p->n_lines; i++)
                if (streq(p->lines[i].module, module))
                        return 0;
        core_diag(o, "%s is set, but no %s line in the stack of profile %s uses it; expected a profile whose "
                  "stack has one (the shipped default, workspace-write, read-only, proxy, landlock and agent do)",
                  key, module, p->profile);
        return -EINVAL;
}

int core_run_new(struct core_policy *policy, bool trust_build_tree, struct core_run **ret)
{
        struct core_run *run = calloc(1, sizeof(*run));
        int r = 0;

        if (!run)
                return -ENOMEM;
        run->policy = policy;
        run->trust_build_tree = trust_build_tree;
        run->plan.exec_fd = -1;
        run->ctxs = calloc(policy->n_lines + 1, sizeof(*run->ctxs));
        run->modules = calloc(policy->n_lines + 1, sizeof(*run->modules));
        if (!run->ctxs || !run->modules) {
                core_run_free(run);
                return -ENOMEM;
        }
        r = core_settings_build(policy, &run->settings);
        if (r >= 0)
                r = check_approver_used(policy, policy->approval_exec, &policy->approval_exec_origin, "approval.exec",
                                        "approval_exec");
        if (r >= 0)
                r = check_approver_used(policy, policy->approval_webhook, &policy->approval_webhook_origin,
                                        "approval.webhook", "approval_webhook");
        /* Go on past a bad line: one run of `check` reports them all. */
        for (size_t i = 0; r != -ENOMEM && i < policy->n_lines; i++) {
                struct core_module *m;
                int q = find_or_load(run, &policy->lines[i], &m);
                if (q >= 0)
                        q = core_ctx_setup(run, i, m);
                if (q < 0 && r >= 0)
                        r = q;
        }
        if (r < 0) {
                core_run_free(run);
                return r;
        }
        *ret = run;
        return 0;
}

/* init once per module (with the context of its first line), then probe every line. */
int core_run_init_modules(struct core_run *run, enum stk_phase only)
{
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                struct stk_ctx *ctx = &run->ctxs[i];
                struct core_module *m = ctx->mod;
                int r;

                if (only != STK_PHASE_MAX && ctx->line->phase != only)
                        continue;
                if (!m->inited && m->desc->init) {
                        r = m->desc->init(ctx, &core_host, &m->data);
                        if (r < 0) {
                                core_diag(&ctx->line->origin, "module %s: init failed: %s", m->name, strerror(-r));
                                return r;
                        }
                }
                m->inited = true;
                ctx->covers = m->desc->covers;
                ctx->probing = true;
                ctx->probe_r = m->desc->probe ? m->desc->probe(ctx, &ctx->covers) : 0;
                core_probe_done(ctx);
        }
        return 0;
}

struct core_run *core_run_free(struct core_run *run)
{
        if (!run)
                return NULL;
        /* The shared seccomp listener first: it is watched on a line's
         * context, and unwatched through it. */
        core_notify_free(run);
        json_object_put(run->result);
        /* fini before the contexts go: a module may still log through one. */
        for (size_t i = 0; i < run->n_modules; i++)
                core_module_unload(&run->modules[i]);
        free(run->modules);
        for (size_t i = 0; run->ctxs && i < run->policy->n_lines; i++)
                ctx_done(&run->ctxs[i]);
        free(run->ctxs);
        core_settings_done(&run->settings);
        strv_free(run->protected_paths);
        free(run->frozen.pids);
        core_plan_done(&run->plan);
        core_audit_close(run);
        loop_free(run->loop);
        run->loop = NULL;
        core_handoffs_free(run);
        free(run->watches);
        free(run);
        return NULL;
}

static char **items_strv(const struct core_list *l)
{
        char **v = calloc(1, sizeof(char *));

        for (size_t i = 0; v && i < l->n; i++)
                if (!strv_contains((const char *const *) v, l->items[i].value) && strv_push(&v, l->items[i].value) < 0)
                        return strv_free(v);
        return v;
}

/* The modules' view: the scalars of `scalars`, the lists from s's storage. */
void core_settings_publish(struct core_settings *s, const struct stk_settings *scalars)
{
        s->pub = *scalars;
        s->pub.size = sizeof(struct stk_settings);
        s->pub.write = (const char *const *) s->write;
        s->pub.read_only = (const char *const *) s->read_only;
        s->pub.hide = (const char *const *) s->hide;
        s->pub.net_allow = (const char *const *) s->net_allow;
        s->pub.net_deny = (const char *const *) s->net_deny;
}

int core_settings_build(const struct core_policy *p, struct core_settings *s)
{
        char **prot = NULL;
        int r;

        *s = (struct core_settings) { 0 };
        s->write = items_strv(&p->write);
        s->read_only = items_strv(&p->read_only);
        s->hide = items_strv(&p->hide);
        s->net_allow = items_strv(&p->net_allow);
        s->net_deny = items_strv(&p->net_deny);
        if (!s->write || !s->read_only || !s->hide || !s->net_allow || !s->net_deny)
                return -ENOMEM;
        r = core_protect_paths(p, &prot);
        if (r < 0) {
                /* E2BIG has said what was too much; anything else says it here */
                if (r != -E2BIG)
                        core_log(STK_LOG_ERROR, "finding the protected paths in the writable roots: %s", strerror(-r));
                return r;
        }
        for (size_t i = 0; prot[i]; i++)
                if (!strv_contains((const char *const *) s->read_only, prot[i]) && strv_push(&s->read_only, prot[i]) < 0) {
                        strv_free(prot);
                        return -ENOMEM;
                }
        strv_free(prot);
        r = core_caches_settings(p, s);
        if (r < 0)
                return r;
        core_settings_publish(s, &(struct stk_settings) {
                .profile = p->profile,
                .workspace = p->workspace,
                .private_tmp = p->private_tmp,
                .network = p->network,
                .proxy_port = p->proxy_port,
                .approval = p->approval,
                .best_effort = p->best_effort,
                .home = getenv("HOME"),
                .approval_exec = p->approval_exec,
                .approval_webhook = p->approval_webhook,
                .approval_tty = core_approval_tty_asks(p),
                .approval_mcp = p->approval_mcp,
        });
        return 0;
}

void core_settings_done(struct core_settings *s)
{
        strv_free(s->write);
        strv_free(s->read_only);
        strv_free(s->hide);
        strv_free(s->net_allow);
        strv_free(s->net_deny);
        free(s->cache_set);
        *s = (struct core_settings) { 0 };
}
