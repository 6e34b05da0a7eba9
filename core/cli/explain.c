/* SPDX-License-Identifier: MIT */
/* stockade check and stockade explain: what a profile resolves to, who
 * enforces each setting, and the verdict trail for a command. */
#include <limits.h>
#include <stdio.h>
#include <json-c/json.h>

#include "cli.h"
#include "run/core.h"
#include "util/util.h"

/* Coverage any usable enforcement line of the stack could give here. */
static uint32_t stack_covers(const struct core_run *run)
{
        uint32_t c = 0;

        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                if ((l->phase == STK_PHASE_PRE_EXEC || l->phase == STK_PHASE_IN_SANDBOX) && run->ctxs[i].probe_r >= 0)
                        c |= run->ctxs[i].covers;
        }
        return c;
}

static uint32_t missing_covers(const struct core_run *run)
{
        return core_required_covers(&run->settings.pub) & ~stack_covers(run) & ~run->settings.pub.best_effort;
}

int cli_check_one(const struct cli_opts *o)
{
        struct core_policy *p = NULL;
        struct core_run *run = NULL;
        char names[512];
        int status;

        if (core_load_policy(&o->open, &p) < 0)
                return STK_EXIT_POLICY;
        status = core_open_run(p, &run);
        if (status == 0 && missing_covers(run)) {
                (void) core_covers_describe(missing_covers(run), names, sizeof(names));
                fprintf(stderr, "%s: error: no module in the stack can enforce %s on this machine "
                        "(list them under settings.best_effort to accept that)\n",
                        o->open.policy_file ? o->open.policy_file : p->profile, names);
                status = STK_EXIT_SETUP;
        }
        if (status == 0)
                printf("%s: ok (profile %s, %zu stack lines, %zu files)\n", o->open.policy_file ? o->open.policy_file : p->profile,
                       p->profile, p->n_lines, p->n_files);
        core_run_free(run);
        core_policy_free(p);
        return status;
}

static const char *origin_text(const struct core_origin *o, char *buf, size_t size)
{
        if (!o->file)
                return "default";
        snprintf(buf, size, "%s:%u:%u (%s)", o->file, o->line, o->column, core_layer_name(o->layer));
        return buf;
}

static struct json_object *origin_json(const struct core_origin *o)
{
        char buf[512];
        return json_object_new_string(origin_text(o, buf, sizeof(buf)));
}

static struct json_object *list_json(const struct core_list *l)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; i < l->n; i++) {
                struct json_object *e = json_object_new_object();
                json_object_object_add(e, "value", json_object_new_string(l->items[i].value));
                json_object_object_add(e, "origin", origin_json(&l->items[i].origin));
                json_object_array_add(a, e);
        }
        return a;
}

static struct json_object *scalar_json(const char *value, const struct core_origin *o)
{
        struct json_object *e = json_object_new_object();

        json_object_object_add(e, "value", value ? json_object_new_string(value) : NULL);
        json_object_object_add(e, "origin", origin_json(o));
        return e;
}

/* approval.*: who may answer, and how often (stockade.yaml(5), APPROVALS). */
static void approval_json(struct json_object *s, const struct core_policy *p)
{
        char limit[16];

        json_object_object_add(s, "approval_exec", scalar_json(p->approval_exec, &p->approval_exec_origin));
        json_object_object_add(s, "approval_webhook", scalar_json(p->approval_webhook, &p->approval_webhook_origin));
        json_object_object_add(s, "approval_tty", scalar_json(core_approval_tty_name(p->approval_tty),
                                                              &p->approval_tty_origin));
        json_object_object_add(s, "approval_mcp", scalar_json(p->approval_mcp ? "on" : "off",
                                                              &p->approval_mcp_origin));
        snprintf(limit, sizeof(limit), "%d", p->approval_ask_limit);
        json_object_object_add(s, "approval_ask_limit", scalar_json(limit, &p->approval_ask_limit_origin));
}

static struct json_object *settings_json(const struct core_run *run)
{
        const struct core_policy *p = run->policy;
        struct json_object *s = json_object_new_object();

        json_object_object_add(s, "workspace", scalar_json(p->workspace, &p->workspace_origin));
        json_object_object_add(s, "write", list_json(&p->write));
        json_object_object_add(s, "read_only", list_json(&p->read_only));
        json_object_object_add(s, "read_only_effective", json_object_new_array());
        for (size_t i = 0; run->settings.read_only[i]; i++)
                json_object_array_add(json_object_object_get(s, "read_only_effective"),
                                      json_object_new_string(run->settings.read_only[i]));
        json_object_object_add(s, "hide", list_json(&p->hide));
        json_object_object_add(s, "private_tmp", scalar_json(p->private_tmp ? "true" : "false", &p->private_tmp_origin));
        json_object_object_add(s, "git", scalar_json(core_git_name(p->git), &p->git_origin));
        {
                /* enum core_caches; with the set the command writes */
                static const char *const caches[] = { "off", "per-workspace", "shared" };
                char v[PATH_MAX + 32];
                snprintf(v, sizeof(v), "%s%s%s", caches[p->caches], run->settings.cache_set ? ": " : "",
                         run->settings.cache_set ? run->settings.cache_set : "");
                json_object_object_add(s, "caches", scalar_json(v, &p->caches_origin));
        }
        json_object_object_add(s, "network", scalar_json(core_network_name(p->network), &p->network_origin));
        json_object_object_add(s, "network_allow", list_json(&p->net_allow));
        json_object_object_add(s, "network_deny", list_json(&p->net_deny));
        if (p->proxy_port) {
                char port[8];
                snprintf(port, sizeof(port), "%d", p->proxy_port);
                json_object_object_add(s, "network_proxy_port", scalar_json(port, &p->proxy_port_origin));
        }
        json_object_object_add(s, "approval", scalar_json(core_approval_name(p->approval), &p->approval_origin));
        approval_json(s, p);
        json_object_object_add(s, "best_effort", list_json(&p->best_effort_items));
        json_object_object_add(s, "env_deny", list_json(&p->env_deny));
        json_object_object_add(s, "env_allow", list_json(&p->env_allow));
        json_object_object_add(s, "audit", scalar_json(p->audit, &p->audit_origin));
        return s;
}

/* A module's own account of what its line would do (ABI 1.1 `explain`). */
static void add_details(struct stk_ctx *c, struct json_object *o)
{
        char *text = NULL;
        int r;

        if (!MODULE_HAS(c->mod->desc, explain)) /* even where it cannot run: for review */
                return;
        r = c->mod->desc->explain(c, &text);
        json_object_object_add(o, "details", r < 0 ? json_object_new_string(strerror(-r))
                                                   : json_object_new_string(text ? text : ""));
        free(text);
}

static struct json_object *stack_json(const struct core_run *run, bool details)
{
        struct json_object *a = json_object_new_array();
        char covers[512];

        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                const struct stk_ctx *c = &run->ctxs[i];
                struct json_object *o = json_object_new_object();
                (void) core_covers_describe(c->covers, covers, sizeof(covers));
                json_object_object_add(o, "phase", json_object_new_string(core_phase_name(l->phase)));
                json_object_object_add(o, "control", json_object_new_string(core_control_name(l->control)));
                json_object_object_add(o, "module", json_object_new_string(l->module));
                json_object_object_add(o, "file", json_object_new_string(c->mod->path ? c->mod->path : ""));
                json_object_object_add(o, "origin", origin_json(&l->origin));
                json_object_object_add(o, "usable_here", json_object_new_boolean(c->probe_r >= 0));
                if (c->probe_r < 0)
                        json_object_object_add(o, "why_not", json_object_new_string(core_probe_why(c)));
                json_object_object_add(o, "covers", json_object_new_string(covers));
                if (details)
                        add_details(&run->ctxs[i], o);
                json_object_array_add(a, o);
        }
        return a;
}

/* For every required cover bit: the usable lines that enforce it. */
static struct json_object *coverage_json(const struct core_run *run)
{
        uint32_t need = core_required_covers(&run->settings.pub);
        struct json_object *a = json_object_new_array();

        for (uint32_t b = 1; b && b <= STK_COVER_LAST; b <<= 1) {
                struct json_object *o = json_object_new_object(), *by = json_object_new_array();
                for (size_t i = 0; i < run->policy->n_lines; i++)
                        if ((run->ctxs[i].covers & b) && run->ctxs[i].probe_r >= 0 &&
                            (run->policy->lines[i].phase == STK_PHASE_PRE_EXEC ||
                             run->policy->lines[i].phase == STK_PHASE_IN_SANDBOX))
                                json_object_array_add(by, json_object_new_string(run->policy->lines[i].module));
                if (!(need & b) && json_object_array_length(by) == 0) {
                        json_object_put(o);
                        json_object_put(by);
                        continue;
                }
                json_object_object_add(o, "property", json_object_new_string(core_cover_name(b)));
                json_object_object_add(o, "required", json_object_new_boolean(need & b));
                json_object_object_add(o, "best_effort", json_object_new_boolean(run->settings.pub.best_effort & b));
                json_object_object_add(o, "enforced_by", by);
                json_object_array_add(a, o);
        }
        return a;
}

static struct json_object *files_json(const struct core_policy *p)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; i < p->n_files; i++) {
                struct json_object *o = json_object_new_object();
                json_object_object_add(o, "file", json_object_new_string(p->files[i].value));
                json_object_object_add(o, "layer", json_object_new_string(core_layer_name(p->files[i].origin.layer)));
                json_object_array_add(a, o);
        }
        return a;
}

static struct json_object *trail_json(struct core_run *run, char **argv)
{
        struct json_object *o = json_object_new_object(), *t = json_object_new_array();
        enum stk_verdict v = STK_VERDICT_UNSET;
        const char *decider = "";
        static const char *const names[] = { "unset", "allow", "deny", "ask", "ignore" };

        if (core_permission(run, argv, false, &v, &decider) < 0)
                v = STK_DENY;
        /* An ASK is not put to anyone here; where the answer is known
         * without asking (approval: never, nobody to ask), say it. */
        if (v == STK_ASK && !core_approval_would_ask(run, &decider))
                v = STK_DENY;
        for (size_t i = 0; i < run->n_trail; i++) {
                struct json_object *e = json_object_new_object();
                const struct core_trail *tr = &run->trail[i];
                json_object_object_add(e, "module", json_object_new_string(tr->line->module));
                json_object_object_add(e, "control", json_object_new_string(core_control_name(tr->line->control)));
                json_object_object_add(e, "result", json_object_new_string(tr->skipped ? "skipped" : tr->r < 0 ? "error"
                                                                         : names[tr->verdict <= STK_IGNORE ? tr->verdict : 0]));
                json_object_array_add(t, e);
        }
        json_object_object_add(o, "lines", t);
        json_object_object_add(o, "verdict", json_object_new_string(names[v <= STK_IGNORE ? v : 0]));
        /* "(no lines)" read as if a line had decided (the ci example of
         * stockade(1) did, issue 13 §6): say what it means */
        if (run->n_trail == 0)
                decider = "no permission line: every command may start, and the sandbox decides what it reaches";
        json_object_object_add(o, "decided_by", json_object_new_string(decider));
        return o;
}

/* stockade(1), EXIT STATUS: 0 for allow and for ask (a run would put the
 * question to an approval line), 240 for deny, as `run` would exit. */
static int verdict_status(struct json_object *j)
{
        struct json_object *perm = json_object_object_get(j, "permission");
        const char *v = perm ? json_object_get_string(json_object_object_get(perm, "verdict")) : NULL;

        return v && !streq(v, "allow") && !streq(v, "ask") ? STK_EXIT_DENIED : 0;
}

static struct json_object *explain_json(struct core_run *run, char **cmd, bool details)
{
        struct json_object *o = json_object_new_object();
        char missing[512];
        bool no_sandbox = core_required_covers(&run->settings.pub) == 0;

        json_object_object_add(o, "profile", json_object_new_string(run->policy->profile));
        json_object_object_add(o, "files", files_json(run->policy));
        json_object_object_add(o, "stack", stack_json(run, details));
        json_object_object_add(o, "settings", settings_json(run));
        json_object_object_add(o, "coverage", coverage_json(run));
        (void) core_covers_describe(missing_covers(run), missing, sizeof(missing));
        json_object_object_add(o, "not_enforced", json_object_new_string(missing));
        json_object_object_add(o, "sandbox", json_object_new_string(no_sandbox ? "NONE: the command runs with all of its user's rights" : "yes"));
        if (core_policy_no_sandbox(run->policy))
                json_object_object_add(o, "exempt", json_object_new_string(
                        "no stack line builds a sandbox, so the checks of one do not apply: a broad workspace "
                        "($HOME, /) is not refused, and settings no line enforces are not errors"));
        if (cmd && cmd[0])
                json_object_object_add(o, "permission", trail_json(run, cmd));
        return o;
}

int cli_explain(int argc, char **argv)
{
        struct cli_opts o = { 0 };
        struct core_policy *p = NULL;
        struct core_run *run = NULL;
        struct json_object *j;
        int i = cli_parse(argc, argv, CLI_EXPLAIN, &o), status;

        if (o.help || i < 0) {
                if (o.help)
                        cli_usage(stdout, CLI_EXPLAIN);
                else
                        cli_usage_hint(CLI_EXPLAIN);
                cli_opts_done(&o);
                return o.help ? 0 : STK_EXIT_USAGE;
        }
        if (core_load_policy(&o.open, &p) < 0) {
                cli_opts_done(&o);
                return STK_EXIT_POLICY;
        }
        status = core_open_run(p, &run);
        if (status == 0) {
                j = explain_json(run, argv + i, o.details);
                if (o.json)
                        printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
                else
                        core_explain_print(stdout, j);
                status = verdict_status(j);
                json_object_put(j);
        }
        core_run_free(run);
        core_policy_free(p);
        cli_opts_done(&o);
        return status;
}
