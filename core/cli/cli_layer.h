/* SPDX-License-Identifier: MIT */
#pragma once
#include <stdbool.h>

/* What the command line adds to the policy; NULL members add nothing. */
struct cli_layer {
        char **write;           /* --write DIR, the shell entry's bookkeeping */
        char **allow_domain;    /* --allow-domain NAME */
        char **allow_env;       /* --allow-env NAME */
        const char *network;    /* --network off|proxy */
        bool read_only;         /* --read-only: the workspace a read-only island */
};

bool cli_layer_empty(const struct cli_layer *c);
/* The layer as a policy document (malloc()ed), for core_open_opts.cli_layer. */
int cli_layer_text(const struct cli_layer *c, char **ret);
