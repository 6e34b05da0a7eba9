/* SPDX-License-Identifier: MIT */
#pragma once
#include <stdbool.h>

#include "run/core.h"

struct cli_opts {
        const char *profile, *policy_file, *workspace, *audit;
        bool json, help, details;
        bool file_alone;        /* check FILE: that file only, no user or project layer */
};

int cli_parse(int argc, char **argv, struct cli_opts *o);
int cli_load_policy(const struct cli_opts *o, struct core_policy **ret);
int cli_open_run(struct core_policy *p, struct core_run **ret);    /* 0 or an exit status */
int cli_check_one(const struct cli_opts *o);                       /* 0 or an exit status */
int cli_explain(int argc, char **argv);
int cli_doctor(int argc, char **argv);
int cli_approvals(int argc, char **argv);                          /* approvals_cmd.c */
int cli_compare(int argc, char **argv);
struct json_object;
#include <stdio.h>
void core_explain_print(FILE *f, struct json_object *j);

/* runcmd.c: permission, pre-exec, supervise; returns the exit status */
int core_run_command(struct core_run *run, char **argv, char **envp);
int core_permission(struct core_run *run, char **argv, bool ask, enum stk_verdict *ret_v, const char **ret_decider);
int core_egress_decide(struct core_run *run, const struct stk_egress *e, enum stk_verdict *ret_v,
                       const char **ret_decider);
