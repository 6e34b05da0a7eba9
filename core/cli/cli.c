/* SPDX-License-Identifier: MIT */
/* What the subcommands share: their options. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>

#include "cli.h"
#include "run/core.h"
#include "util/util.h"

static const struct option common_options[] = {
        { "profile", required_argument, NULL, 'p' },
        { "policy", required_argument, NULL, 'P' },
        { "workspace", required_argument, NULL, 'w' },
        { "audit", required_argument, NULL, 'a' },
        { "json", no_argument, NULL, 'j' },
        { "details", no_argument, NULL, 'D' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "allow-broad-workspace", no_argument, NULL, 'B' },
        { 0 },
};

/* Options shared by run / check / explain; returns the index of CMD or -1. */
int cli_parse(int argc, char **argv, struct cli_opts *o)
{
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+p:P:w:a:jDvh", common_options, NULL)) != -1) {
                switch (c) {
                case 'p': o->open.profile = optarg; break;
                case 'P': o->open.policy_file = optarg; break;
                case 'w': o->open.workspace = optarg; break;
                case 'a': o->open.audit = optarg; break;
                case 'j': o->json = true; break;
                case 'D': o->details = true; break;
                case 'v': core_log_level = core_log_level < STK_LOG_DEBUG ? core_log_level + 1 : STK_LOG_DEBUG; break;
                case 'h': o->help = true; return optind;
                case 'B': o->open.broad_workspace = CORE_BROAD_ALLOW; break;
                default: return -1;
                }
        }
        return optind;
}
