/* SPDX-License-Identifier: MIT */
/* From a profile name (or policy file) to a loaded policy, and from a policy
 * to a run with its modules loaded, initialised and probed: what `run`,
 * `check`, `explain` and `doctor` share. */
#include <limits.h>
#include <stdio.h>

#include "core.h"
#include "util/util.h"

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

/* $XDG_CONFIG_HOME/stockade, else ~/.config/stockade; *ret NULL with
 * neither set (then there is no user layer). */
int core_user_dir(char **ret)
{
        const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
        int r = 0;

        *ret = NULL;
        if (xdg && xdg[0] == '/')
                r = asprintf(ret, "%s/stockade", xdg);
        else if (home && home[0] == '/')
                r = asprintf(ret, "%s/.config/stockade", home);
        return r < 0 ? -ENOMEM : 0;
}

/* Fill the layer sources from the compiled-in paths and the environment. */
int core_load_policy(const struct core_open_opts *o, struct core_policy **ret)
{
        _cleanup_free_ char *ws = NULL, *cwd = NULL, *user_dir = NULL;
        const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
        const char *files[] = { o->policy_file, NULL };
        int r;

        cwd = getcwd(NULL, 0);
        if (!cwd)
                return -errno;
        r = absolute_dir(o->workspace ? o->workspace : cwd, &ws);
        if (r < 0)
                return r;
        if (core_user_dir(&user_dir) < 0)
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
                .broad_workspace = o->file_alone ? CORE_BROAD_SKIP : o->broad_workspace,
                .cli_text = o->cli_layer,
                .session = o->session,
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
int core_open_run(struct core_policy *p, struct core_run **ret)
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
        r = core_coverage_unclaimed(*ret);
        if (r != 0)
                *ret = core_run_free(*ret);
        return r;
}

