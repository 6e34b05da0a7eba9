/* SPDX-License-Identifier: MIT */
#pragma once
#include <stdbool.h>
#include <stdio.h>

#include "run/core.h"

struct cli_opts {
        struct core_open_opts open;     /* what policy, for what workspace */
        bool json, help, details;       /* explain's --json, --details */
        const char *json_file;          /* run --json FILE */
        int timeout_s;                  /* run --timeout; 0: none */
        /* the CLI layer (cli_layer.c): --write, --allow-domain,
         * --allow-env, --network, --read-only, and its document */
        char **write, **allow_domain, **allow_env;
        const char *network;
        bool read_only;
        char *layer_text;
};

enum cli_cmd { CLI_RUN, CLI_CHECK, CLI_EXPLAIN };
int cli_parse(int argc, char **argv, enum cli_cmd cmd, struct cli_opts *o);
void cli_opts_done(struct cli_opts *o);
void cli_usage(FILE *f, enum cli_cmd cmd);
void cli_usage_hint(enum cli_cmd cmd);                             /* to stderr */
int cli_check_one(const struct cli_opts *o);                       /* 0 or an exit status */
int cli_explain(int argc, char **argv);
int cli_approvals(int argc, char **argv);                          /* approvals_cmd.c */
int cli_caches(int argc, char **argv);                             /* caches_cmd.c */
int cli_compare(int argc, char **argv);
int cli_sh(int argc, char **argv, const char *shell);             /* sh_cmd.c */
const char *cli_sh_shell(const char *argv0);                       /* the shell a link's name asks for */
int cli_sh_workspace(char **ret);                                  /* sh_workspace.c */
int cli_mcp(int argc, char **argv);                                /* mcp_server.c */
int cli_serve(int argc, char **argv);                              /* serve.c */
int cli_log(int argc, char **argv);                                /* log_cmd.c */
int cli_import(int argc, char **argv);                             /* import_cmd.c */
struct json_tokener;
void cli_tokener_freep(struct json_tokener **t);                   /* for _cleanup_ */
struct json_object;
#include <stdio.h>
void core_explain_print(FILE *f, struct json_object *j);
