/* SPDX-License-Identifier: MIT */
/* The command's life from the supervisor's side: permission phase (with
 * approvals), pre-exec phase (the plan), supervision, the run record. */
#include <stdio.h>
#include <json-c/json.h>

#include "core.h"
#include "util/util.h"

static const char *verdict_name(enum stk_verdict v)
{
        switch (v) {
        case STK_ALLOW: return "allow";
        case STK_DENY: return "deny";
        case STK_ASK: return "ask";
        case STK_IGNORE: return "ignore";
        default: return "unset";
        }
}

static struct json_object *argv_json(char *const *argv)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; argv && argv[i]; i++)
                json_object_array_add(a, json_object_new_string(argv[i]));
        return a;
}

static void audit_decision(struct core_run *run, const char *phase, enum stk_verdict v, const char *decider,
                           struct json_object *what)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "phase", json_object_new_string(phase));
        json_object_object_add(o, "verdict", json_object_new_string(verdict_name(v)));
        json_object_object_add(o, "decider", json_object_new_string(decider));
        json_object_object_foreach(what, key, val)
                json_object_object_add(o, key, json_object_get(val));
        json_object_put(what);
        (void) core_audit_record(run, "decision", o); /* a failing log already said so */
}

static struct json_object *argv_fields(char *const *argv)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "argv", argv_json(argv));
        return o;
}

/* Permission phase.  An ASK goes to the approval hooks only when `ask` is
 * set: `stockade explain` reports the question without putting it to anyone. */
int core_permission(struct core_run *run, char **argv, bool ask, enum stk_verdict *ret_v, const char **ret_decider)
{
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        struct stk_request req = { (const char *const *) argv, cwd, run->policy->profile };
        int r = core_stack_decide(run, STK_PHASE_PERMISSION, &req, ret_v, ret_decider);

        if (r < 0)
                return r;
        audit_decision(run, "permission", *ret_v, *ret_decider, argv_fields(argv));
        if (*ret_v == STK_ASK && ask) {
                struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = *ret_decider };
                r = core_approval_ask(run, &q, ret_v, ret_decider);
                if (r < 0)
                        return r;
                audit_decision(run, "approval", *ret_v, *ret_decider, argv_fields(argv));
        }
        return 0;
}

static struct json_object *egress_fields(const struct stk_egress *e)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "host", json_object_new_string(e->host ? e->host : ""));
        json_object_object_add(o, "port", json_object_new_int(e->port));
        json_object_object_add(o, "scheme", json_object_new_string(e->scheme ? e->scheme : ""));
        if (e->pid > 0)
                json_object_object_add(o, "pid", json_object_new_int(e->pid));
        return o;
}

/* Egress phase, for the proxy: one destination.  Always ALLOW or DENY on
 * return: an ASK is put to the approval hooks, and an unanswered one is DENY. */
int core_egress_decide(struct core_run *run, const struct stk_egress *e, enum stk_verdict *ret_v,
                       const char **ret_decider)
{
        int r = core_stack_decide(run, STK_PHASE_EGRESS, e, ret_v, ret_decider);

        if (r < 0)
                return r;
        audit_decision(run, "egress", *ret_v, *ret_decider, egress_fields(e));
        if (*ret_v == STK_ASK) {
                struct stk_question q = { .kind = STK_QUESTION_EGRESS, .egress = e, .reason = *ret_decider };
                r = core_approval_ask(run, &q, ret_v, ret_decider);
                if (r < 0)
                        return r;
                audit_decision(run, "approval", *ret_v, *ret_decider, egress_fields(e));
        }
        if (*ret_v != STK_ALLOW)
                *ret_v = STK_DENY;
        return 0;
}

static struct json_object *stack_json(const struct core_run *run)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                struct json_object *o = json_object_new_object();
                json_object_object_add(o, "phase", json_object_new_string(core_phase_name(l->phase)));
                json_object_object_add(o, "control", json_object_new_string(core_control_name(l->control)));
                json_object_object_add(o, "module", json_object_new_string(l->module));
                json_object_object_add(o, "usable", json_object_new_boolean(run->ctxs[i].probe_r >= 0));
                json_object_array_add(a, o);
        }
        return a;
}

static void audit_run(struct core_run *run, char **argv, int status, const char *outcome)
{
        struct json_object *o = json_object_new_object();
        char covered[512];

        (void) core_covers_describe(run->covered, covered, sizeof(covered));
        json_object_object_add(o, "profile", json_object_new_string(run->policy->profile));
        json_object_object_add(o, "argv", argv_json(argv));
        json_object_object_add(o, "workspace", json_object_new_string(run->policy->workspace));
        json_object_object_add(o, "outcome", json_object_new_string(outcome));
        json_object_object_add(o, "status", json_object_new_int(status));
        json_object_object_add(o, "stack", stack_json(run));
        json_object_object_add(o, "enforced_before_exec", json_object_new_string(covered));
        (void) core_audit_record(run, "run", o);
}

static int pre_exec(struct core_run *run, char **argv, char **envp)
{
        int r = core_plan_init(&run->plan, argv, envp);

        if (r < 0)
                return r;
        /* Before the modules: what they add (proxy variables) is theirs. */
        r = core_plan_filter_env(&run->plan, &run->policy->env_deny, &run->policy->env_allow);
        if (r >= 0)
                r = core_caches_plan(run);
        if (r >= 0)
                r = core_agent_socket_plan(run);
        if (r < 0)
                return r;
        return core_stack_act(run, STK_PHASE_PRE_EXEC);
}

int core_run_command(struct core_run *run, char **argv, char **envp)
{
        enum stk_verdict v;
        const char *decider;
        int r = core_permission(run, argv, true, &v, &decider);

        if (r >= 0 && v != STK_ALLOW) {
                fprintf(stderr, "stockade: denied by %s (profile %s): %s\n", decider, run->policy->profile, argv[0]);
                audit_run(run, argv, STK_EXIT_DENIED, "denied");
                return STK_EXIT_DENIED;
        }
        if (r < 0) {
                int status = r == -EKEYREJECTED ? STK_EXIT_INTEGRITY : STK_EXIT_SETUP;
                core_log(STK_LOG_ERROR, "the sandbox could not be set up (%s); the command did not run", strerror(-r));
                audit_run(run, argv, status, "setup-failed");
                return status;
        }
        return core_run_permitted(run, argv, envp);
}

/* What follows an ALLOW of the permission phase (the MCP server decides in
 * its own process, then runs this in a fork of it). */
int core_run_permitted(struct core_run *run, char **argv, char **envp)
{
        int r = pre_exec(run, argv, envp), status = STK_EXIT_SETUP;

        if (r < 0) {
                status = r == -EKEYREJECTED ? STK_EXIT_INTEGRITY : STK_EXIT_SETUP;
                core_log(STK_LOG_ERROR, "the sandbox could not be set up (%s); the command did not run", strerror(-r));
                audit_run(run, argv, status, "setup-failed");
                return status;
        }
        r = core_supervise(run, &status);
        if (r < 0) {
                core_log(STK_LOG_ERROR, "supervising the command failed: %s", strerror(-r));
                status = STK_EXIT_SETUP;
        }
        audit_run(run, argv, status, r < 0 ? "supervisor-failed" : "exited");
        return status;
}
