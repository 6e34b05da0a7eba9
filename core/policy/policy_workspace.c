/* SPDX-License-Identifier: MIT */
/*
 * A workspace too broad to be one (issue 13, §1): `/`, a top-level system
 * directory, $HOME or an ancestor of $HOME.  The workspace is writable, and
 * such a workspace holds what the next runs trust: a command run from `~`
 * could append `network: {mode: on}` to ~/.config/stockade/default.yaml,
 * one run with `--workspace /` as root could write /etc and /usr.  Refused
 * unless `--allow-broad-workspace` or `settings.allow_broad_workspace` (not
 * in the project layer) says so; stockade's own files stay protected even
 * then (protect.c, protect_control).
 *
 * The list is closed and applies to the directory itself, after realpath,
 * never to what is below it (stockade.yaml(5), WORKSPACE): each entry is
 * canonicalised too, so a merged-/usr /bin (a link to /usr/bin) is caught
 * under either name.
 */
#include <dirent.h>
#include <pwd.h>
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

static const char *const broad_dirs[] = {
        "/", "/bin", "/boot", "/dev", "/etc", "/home", "/media", "/mnt", "/opt", "/proc", "/root",
        "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var", NULL,
};

/* `dir` or what it resolves to is `ws`. */
static bool same_dir(const char *ws, const char *dir)
{
        _cleanup_free_ char *canon = realpath(dir, NULL);

        return streq(ws, dir) || (canon && streq(ws, canon));
}

/* /lib, /lib32, /lib64, /libx32, ...: "/lib*" of the list, as they are here. */
static bool is_top_lib(const char *ws)
{
        DIR *d;
        struct dirent *e;
        bool hit = false;

        if (strncmp(ws, "/lib", 4) == 0 && !strchr(ws + 1, '/'))
                return true;
        d = opendir("/");
        if (!d)
                return false; /* the names themselves were checked above */
        while (!hit && (e = readdir(d)))
                if (strncmp(e->d_name, "lib", 3) == 0) {
                        char path[300];
                        snprintf(path, sizeof(path), "/%s", e->d_name);
                        hit = same_dir(ws, path);
                }
        closedir(d);
        return hit;
}

static const char *system_dir_reason(const char *ws)
{
        for (size_t i = 0; broad_dirs[i]; i++)
                if (same_dir(ws, broad_dirs[i]))
                        return streq(broad_dirs[i], "/") ? "the root directory" : "a top-level system directory";
        return is_top_lib(ws) ? "a top-level system directory" : NULL;
}

/* $HOME as the environment says and as the password database says: a
 * `sudo` that kept HOME and one that did not must both be caught. */
static const char *home_reason(const char *ws, const char *env_home)
{
        const struct passwd *pw = getpwuid(geteuid());
        const char *homes[] = { env_home, pw ? pw->pw_dir : NULL };

        for (size_t i = 0; i < ELEMENTSOF(homes); i++) {
                _cleanup_free_ char *canon = NULL;
                if (!homes[i] || homes[i][0] != '/' || path_canonicalize(homes[i], &canon) < 0)
                        continue;
                if (streq(canon, ws))
                        return "your home directory";
                if (stk_path_beneath(canon, ws))
                        return "an ancestor of your home directory";
        }
        return NULL;
}

const char *core_workspace_broad(const char *ws, const char *home)
{
        const char *why = home_reason(ws, home);

        return why ? why : system_dir_reason(ws);
}

/* full-access: a stack with no line that builds a sandbox runs the command
 * with all of its user's rights, wherever it is (exempt, as explain says). */
bool core_policy_no_sandbox(const struct core_policy *p)
{
        for (size_t i = 0; i < p->n_lines; i++)
                if (p->lines[i].phase == STK_PHASE_PRE_EXEC || p->lines[i].phase == STK_PHASE_IN_SANDBOX)
                        return false;
        return true;
}

int pcheck_workspace(struct ploader *l)
{
        const struct core_policy *p = l->p;
        const char *why;

        if (!p->workspace || l->src->broad_workspace != CORE_BROAD_CHECK || p->allow_broad_workspace ||
            core_policy_no_sandbox(p))
                return 0;
        why = core_workspace_broad(p->workspace, l->src->home);
        if (!why)
                return 0;
        perr_origin(l, &p->workspace_origin,
                    "the workspace %s is %s: a command run there could rewrite what later runs trust "
                    "(stockade's own configuration, shell start-up files, system files); expected a project "
                    "directory: cd into one or pass --workspace DIR, or, if you mean it, pass "
                    "--allow-broad-workspace (or set `allow_broad_workspace: true` in the user layer)",
                    p->workspace, why);
        return 0;
}
