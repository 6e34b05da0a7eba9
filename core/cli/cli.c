/* SPDX-License-Identifier: MIT */
/* What the subcommands share: options, the layer sources, opening a run. */
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
        { 0 },
};

/* Options shared by run / check / explain; returns the index of CMD or -1. */
int cli_parse(int argc, char **argv, struct cli_opts *o)
{
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+p:P:w:a:jDvh", common_options, NULL)) != -1) {
                switch (c) {
                case 'p': o->profile = optarg; break;
                case 'P': o->policy_file = optarg; break;
                case 'w': o->workspace = optarg; break;
                case 'a': o->audit = optarg; break;
                case 'j': o->json = true; break;
                case 'D': o->details = true; break;
                case 'v': core_log_level = core_log_level < STK_LOG_DEBUG ? core_log_level + 1 : STK_LOG_DEBUG; break;
                case 'h': o->help = true; return optind;
                default: return -1;
                }
        }
        return optind;
}

static int absolute_dir(const char *path, char **ret)
{
        char *r = realpath(path, NULL);

        if (!r) {
                core_log(STK_LOG_ERROR, "workspace %s: %s", path, strerror(errno));
                return -errno;
        }
        *ret = r;
        return 0;
}

/* Fill the layer sources from the compiled-in paths and the environment. */
int cli_load_policy(const struct cli_opts *o, struct core_policy **ret)
{
        _cleanup_free_ char *ws = NULL, *cwd = NULL, *user_dir = NULL;
        const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME"), *tmp = getenv("TMPDIR");
        const char *files[] = { o->policy_file, NULL };
        int r;

        cwd = getcwd(NULL, 0);
        if (!cwd)
                return -errno;
        r = absolute_dir(o->workspace ? o->workspace : cwd, &ws);
        if (r < 0)
                return r;
        if (xdg && xdg[0] == '/')
                r = asprintf(&user_dir, "%s/stockade", xdg);
        else if (home && home[0] == '/')
                r = asprintf(&user_dir, "%s/.config/stockade", home);
        if (r < 0)
                return -ENOMEM;
        struct core_policy_sources src = {
                .profile = o->profile ? o->profile : "default",
                .system_dir = STK_SYSCONFDIR "/stockade",
                .user_dir = o->file_alone ? NULL : user_dir,
                .no_project = o->file_alone,
                .workspace = ws,
                .workspace_from_cli = o->workspace != NULL,
                .cwd = cwd,
                .home = home,
                .tmpdir = tmp && tmp[0] == '/' ? tmp : "/tmp",
                .cli_audit = o->audit,
                .files = o->policy_file ? files : NULL,
        };
        return core_policy_load(&src, ret);
}

static int exit_for_setup_error(int r)
{
        if (r == -EINVAL)
                return STK_EXIT_POLICY;
        return r == -EKEYREJECTED ? STK_EXIT_INTEGRITY : STK_EXIT_SETUP;
}

/* Load modules, init them, probe: shared by run and explain. */
int cli_open_run(struct core_policy *p, struct core_run **ret)
{
        int r = core_run_new(p, core_running_from_build_tree(), ret);

        if (r < 0)
                return exit_for_setup_error(r);
        r = core_audit_open(*ret, p->audit);
        if (r >= 0)
                r = core_supervisor_prepare(*ret);
        if (r >= 0)
                r = core_run_init_modules(*ret, STK_PHASE_MAX);
        if (r < 0) {
                *ret = core_run_free(*ret);
                return exit_for_setup_error(r);
        }
        return 0;
}

