/* SPDX-License-Identifier: MIT */
/* What run, check and explain share: their options, and the CLI layer the
 * policy flags make (cli_layer.c).  Each subcommand takes only the options
 * that mean something to it: another is a usage error, not ignored. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_layer.h"
#include "common/stk_strv.h"
#include "run/core.h"
#include "util/util.h"

enum {
        OPT_BROAD = 0x100,
        OPT_WRITE,
        OPT_ALLOW_DOMAIN,
        OPT_NETWORK,
        OPT_READ_ONLY,
        OPT_TIMEOUT,
        OPT_ALLOW_ENV,
};

/* One option: its getopt entry, the subcommands that take it, its help. */
struct cli_option {
        struct option o;
        unsigned cmds;          /* 1u << enum cli_cmd */
        const char *arg, *help;
};

#define RUN (1u << CLI_RUN)
#define CHECK (1u << CLI_CHECK)
#define EXPLAIN (1u << CLI_EXPLAIN)
#define ALL (RUN | CHECK | EXPLAIN)

static const struct cli_option options[] = {
        { { "profile", required_argument, NULL, 'p' }, ALL, "P", "the profile (default: default, or $STOCKADE_PROFILE for sh)" },
        { { "policy", required_argument, NULL, 'P' }, ALL, "FILE", "this file instead of the built-in and system layers" },
        { { "workspace", required_argument, NULL, 'w' }, ALL, "DIR", "the workspace (default: the current directory)" },
        { { "allow-broad-workspace", no_argument, NULL, OPT_BROAD }, ALL, NULL,
          "accept a workspace of /, a system directory, $HOME or above" },
        { { "write", required_argument, NULL, OPT_WRITE }, ALL, "DIR", "DIR writable too (repeatable)" },
        { { "read-only", no_argument, NULL, OPT_READ_ONLY }, ALL, NULL, "the workspace read-only" },
        { { "network", required_argument, NULL, OPT_NETWORK }, ALL, "off|proxy",
          "no network, or only through the proxy (proxy: the proxy profile if none is named)" },
        { { "allow-domain", required_argument, NULL, OPT_ALLOW_DOMAIN }, ALL, "NAME",
          "let the proxy reach NAME (repeatable; the proxy profile if none is named)" },
        { { "allow-env", required_argument, NULL, OPT_ALLOW_ENV }, ALL, "NAME",
          "pass environment variable NAME through (repeatable)" },
        { { "audit", required_argument, NULL, 'a' }, RUN | EXPLAIN, "FILE", "append the audit records to FILE" },
        { { "json", required_argument, NULL, 'j' }, RUN, "FILE",
          "write the run's result as one JSON object to FILE (a path or /dev/fd/N)" },
        { { "timeout", required_argument, NULL, OPT_TIMEOUT }, RUN, "SECONDS",
          "stop the command after SECONDS (SIGTERM, SIGKILL 2 s later; status 124)" },
        { { "json", no_argument, NULL, 'j' }, EXPLAIN, NULL, "print JSON" },
        { { "details", no_argument, NULL, 'D' }, EXPLAIN, NULL, "each module's own account of its settings" },
        { { "verbose", no_argument, NULL, 'v' }, ALL, NULL, "more log output (repeatable: -vv, -vvv)" },
        { { "help", no_argument, NULL, 'h' }, ALL, NULL, "this help" },
};

static const char *const synopsis[] = {
        [CLI_RUN] = "stockade run [OPTION...] [--] CMD [ARG...]",
        [CLI_CHECK] = "stockade check [OPTION...] [FILE...]",
        [CLI_EXPLAIN] = "stockade explain [OPTION...] [-- CMD [ARG...]]",
};

/* A usage error: the synopsis, and where the options are. */
void cli_usage_hint(enum cli_cmd cmd)
{
        fprintf(stderr, "usage: %s\n(%s --help lists the options)\n", synopsis[cmd],
                cmd == CLI_RUN ? "stockade run" : cmd == CLI_CHECK ? "stockade check" : "stockade explain");
}

void cli_usage(FILE *f, enum cli_cmd cmd)
{
        fprintf(f, "usage: %s\n\noptions:\n", synopsis[cmd]);
        for (size_t i = 0; i < ELEMENTSOF(options); i++) {
                const struct cli_option *c = &options[i];
                char left[64], shortopt[8] = "";

                if (!(c->cmds & (1u << cmd)))
                        continue;
                if (c->o.val < 0x100)
                        snprintf(shortopt, sizeof(shortopt), "-%c, ", c->o.val);
                snprintf(left, sizeof(left), "%s--%s%s%s", shortopt, c->o.name, c->arg ? " " : "", c->arg ? c->arg : "");
                fprintf(f, "  %-30s %s\n", left, c->help);
        }
        fprintf(f, "\nSee stockade(1).\n");
}

/* The getopt table of one subcommand (static: getopt keeps a pointer). */
static const struct option *table_of(enum cli_cmd cmd, char *shorts, size_t size)
{
        static struct option t[ELEMENTSOF(options) + 1];
        size_t n = 0, k = 0;

        shorts[k++] = '+';
        for (size_t i = 0; i < ELEMENTSOF(options); i++) {
                if (!(options[i].cmds & (1u << cmd)))
                        continue;
                t[n++] = options[i].o;
                if (options[i].o.val < 0x100 && k + 3 < size) {
                        shorts[k++] = (char) options[i].o.val;
                        if (options[i].o.has_arg == required_argument)
                                shorts[k++] = ':';
                }
        }
        t[n] = (struct option) { 0 };
        shorts[k] = '\0';
        return t;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        fprintf(stderr, "stockade: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        return -1;
}

static int parse_timeout(const char *s, int *ret)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || !end || *end || end == s || v < 1 || v > 86400)
                return usage_error("--timeout %s: expected a whole number of seconds, 1 to 86400", s);
        *ret = (int) v;
        return 0;
}

/* What the flags cannot mean together. */
static int check_conflicts(const struct cli_opts *o)
{
        if (o->open.profile && o->open.policy_file)
                return usage_error("--profile %s and --policy %s name two policies; give one", o->open.profile,
                                   o->open.policy_file);
        if (o->read_only && o->write)
                return usage_error("--read-only and --write %s: a read-only run writes nowhere", o->write[0]);
        if (o->network && !streq(o->network, "off") && !streq(o->network, "proxy"))
                return usage_error("--network %s: expected off or proxy", o->network);
        if (o->network && streq(o->network, "off") && o->allow_domain)
                return usage_error("--network off and --allow-domain %s: no domain is reachable without a network",
                                   o->allow_domain[0]);
        if (o->json_file && streq(o->json_file, "-"))
                return usage_error("--json -: expected a file or /dev/fd/N (the command's stdout is its own)");
        return 0;
}

/* --allow-domain and --network proxy need the proxy: the default profile
 * becomes `proxy`; another profile without an egress line is refused when
 * its policy is checked (the setting would be unenforced: 241). */
static void pick_profile(struct cli_opts *o)
{
        bool wants_proxy = o->allow_domain || (o->network && streq(o->network, "proxy"));

        if (wants_proxy && !o->open.policy_file && (!o->open.profile || streq(o->open.profile, "default")))
                o->open.profile = "proxy";
}

static int make_layer(struct cli_opts *o)
{
        struct cli_layer layer = {
                .write = o->write,
                .allow_domain = o->allow_domain,
                .allow_env = o->allow_env,
                .network = o->network ? o->network : o->allow_domain ? "proxy" : NULL,
                .read_only = o->read_only,
        };

        if (cli_layer_empty(&layer))
                return 0;
        if (cli_layer_text(&layer, &o->layer_text) < 0)
                return -ENOMEM;
        o->open.cli_layer = o->layer_text;
        return 0;
}

static int take_option(struct cli_opts *o, int c)
{
        switch (c) {
        case 'p': o->open.profile = optarg; return 0;
        case 'P': o->open.policy_file = optarg; return 0;
        case 'w': o->open.workspace = optarg; return 0;
        case 'a': o->open.audit = optarg; return 0;
        case 'j':
                if (optarg)
                        o->json_file = optarg;
                else
                        o->json = true;
                return 0;
        case 'D': o->details = true; return 0;
        case 'v': core_log_level = core_log_level < STK_LOG_DEBUG ? core_log_level + 1 : STK_LOG_DEBUG; return 0;
        case 'h': o->help = true; return 0;
        case OPT_BROAD: o->open.broad_workspace = CORE_BROAD_ALLOW; return 0;
        case OPT_WRITE: return strv_push(&o->write, optarg);
        case OPT_ALLOW_DOMAIN: return strv_push(&o->allow_domain, optarg);
        case OPT_ALLOW_ENV: return strv_push(&o->allow_env, optarg);
        case OPT_NETWORK: o->network = optarg; return 0;
        case OPT_READ_ONLY: o->read_only = true; return 0;
        case OPT_TIMEOUT: return parse_timeout(optarg, &o->timeout_s);
        default: return -1; /* getopt said why */
        }
}

/* The options of `cmd`; the index of what follows them, or -1 (said). */
int cli_parse(int argc, char **argv, enum cli_cmd cmd, struct cli_opts *o)
{
        char shorts[64];
        const struct option *t = table_of(cmd, shorts, sizeof(shorts));
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, shorts, t, NULL)) != -1) {
                if (take_option(o, c) < 0)
                        return -1;
                if (o->help)
                        return optind;
        }
        if (check_conflicts(o) < 0)
                return -1;
        pick_profile(o);
        if (make_layer(o) < 0) {
                fprintf(stderr, "stockade: out of memory\n");
                return -1;
        }
        return optind;
}

void cli_opts_done(struct cli_opts *o)
{
        strv_free(o->write);
        strv_free(o->allow_domain);
        strv_free(o->allow_env);
        free(o->layer_text);
}
