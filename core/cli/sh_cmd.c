/* SPDX-License-Identifier: MIT */
/*
 * `stockade sh -c STRING`, also installed as stockade-sh and stockade-bash
 * (stockade-sh(1)): a shell entry for agents that run their commands
 * through `$SHELL -c`.  The real shell (/bin/sh, or bash for the
 * stockade-bash name: Claude Code only takes a SHELL whose path says bash
 * or zsh, and its snapshot needs `source` and `shopt`) runs the string
 * inside the sandbox; the permission phase sees `shell [opts] -c STRING`,
 * which perm_rules parses as the string it is.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_layer.h"
#include "sh_args.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

/* The shell a link's name asks for: stockade-bash, stockade-sh; NULL for
 * any other name. */
const char *cli_sh_shell(const char *argv0)
{
        const char *slash = strrchr(argv0, '/'), *name = slash ? slash + 1 : argv0;

        if (streq(name, "stockade-bash"))
                return "/bin/bash";
        return streq(name, "stockade-sh") ? "/bin/sh" : NULL;
}

static int inner_argv(const char *shell, const struct sh_args *a, char ***ret)
{
        _cleanup_strv_ char **v = NULL;
        int r = strv_push(&v, shell);

        for (size_t i = 0; r >= 0 && a->shell_opts && a->shell_opts[i]; i++)
                r = strv_push(&v, a->shell_opts[i]);
        if (r >= 0)
                r = strv_push(&v, "-c");
        if (r >= 0)
                r = strv_push(&v, a->command);
        for (size_t i = 0; r >= 0 && a->rest[i]; i++)
                r = strv_push(&v, a->rest[i]);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        return 0;
}

static bool is_real_dir(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The client's bookkeeping directories, writable so the client keeps
 * working: Claude Code's shell snapshots (written by `SHELL -c -l`, read
 * back by `source` in every later command) and its temp directory (the
 * `pwd -P >| .../claude-XXXX-cwd` file it reads the new cwd from).  Only
 * these: ~/.claude's settings, hooks and commands run on the host,
 * unsandboxed, so the rest of ~/.claude stays read-only. */
static int bookkeeping_dirs(char ***ret)
{
        const char *home = getenv("HOME"), *tmp = getenv("CLAUDE_CODE_TMPDIR");
        _cleanup_free_ char *snapshots = NULL;
        int r = 0;

        if (home && home[0] == '/' && asprintf(&snapshots, "%s/.claude/shell-snapshots", home) < 0)
                return -ENOMEM;
        if (snapshots && is_real_dir(snapshots))
                r = strv_push(ret, snapshots);
        if (r >= 0 && tmp && tmp[0] == '/' && is_real_dir(tmp))
                r = strv_push(ret, tmp);
        return r;
}

static int run_shell(const char *shell, const struct sh_args *a)
{
        _cleanup_strv_ char **argv = NULL, **write = NULL;
        _cleanup_free_ char *workspace = NULL, *layer_text = NULL;
        struct cli_layer layer = { 0 };
        struct core_open_opts o = { .profile = getenv("STOCKADE_PROFILE"), .session = true };
        struct core_policy *p = NULL;
        struct core_run *run = NULL;
        int r, status;

        if (o.profile && !*o.profile)
                o.profile = NULL;
        r = inner_argv(shell, a, &argv);
        if (r >= 0)
                r = cli_sh_workspace(&workspace);
        if (r >= 0)
                r = bookkeeping_dirs(&write);
        layer.write = write;
        if (r >= 0 && !cli_layer_empty(&layer))
                r = cli_layer_text(&layer, &layer_text);
        if (r < 0)
                return r == -ENOMEM ? STK_EXIT_SETUP : STK_EXIT_POLICY;
        o.workspace = workspace;
        o.cli_layer = layer_text;
        if (core_load_policy(&o, &p) < 0) {
                if (layer_text)
                        fprintf(stderr, "stockade sh: the command line layer was %s (the client's bookkeeping "
                                "directories; stockade-sh(1))\n", layer_text);
                return STK_EXIT_POLICY;
        }
        status = core_open_run(p, &run);
        if (status == 0)
                status = core_run_command(run, argv, environ);
        core_run_free(run);
        core_policy_free(p);
        return status;
}

/* argv[0] is the name called (`sh` for `stockade sh`, or the link). */
int cli_sh(int argc, char **argv, const char *shell)
{
        struct sh_args a;
        const char *error = NULL, *bad = NULL;
        int r = sh_args_parse(argv, &a, &error, &bad), status;

        (void) argc;
        if (r == -ENOMEM)
                return STK_EXIT_SETUP;
        if (r < 0) {
                fprintf(stderr, "stockade %s: %s: %s; see stockade-sh(1)\n", shell, bad, error);
                return STK_EXIT_USAGE;
        }
        status = run_shell(shell, &a);
        sh_args_done(&a);
        return status;
}
