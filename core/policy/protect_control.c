/* SPDX-License-Identifier: MIT */
/*
 * stockade's own files as protected paths (issue 13, §1): what decides the
 * next runs must not be writable by this one, wherever a writable root
 * holds it (a workspace of $HOME, `--allow-broad-workspace`), in every
 * profile that builds a sandbox, like .git/hooks.  Protected, whether or not
 * they exist yet (an absent ~/.config/stockade must not become creatable):
 *   - the configuration: the system layer's directory, the user layer's
 *     (under $XDG_CONFIG_HOME and ~/.config: the next shell may set either),
 *     and every policy file this run read (--policy FILE, includes);
 *   - the state: approvals, audit logs ($XDG_STATE_HOME, ~/.local/state),
 *     and this run's audit file;
 *   - the caches read as authority (fs_bwrap's probe cache), but not the
 *     sandbox-only tool caches of `<cache>/stockade/sandbox-caches/`,
 *     writable from inside and never read as authority: so every entry of
 *     the cache directory but that one, and the probe cache by name;
 *   - the trusted module directories (core/run/loader.c).
 * Each found path is canonical; only those beneath the root are returned.
 */
#include <dirent.h>
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

#define SANDBOX_CACHES "sandbox-caches"
#define PROBE_CACHE "fs_bwrap.probe"

struct control {
        const char *root;
        char **paths;
};

/* `path` (any form) when beneath the root, once, canonical. */
static int add(struct control *c, const char *path)
{
        _cleanup_free_ char *canon = NULL, *abs = NULL;
        int r;

        if (!path)
                return -ENOMEM;
        /* `--policy p.yaml` is recorded as given; "<builtin>/..." is no path */
        if (path[0] != '/' && !(path = abs = realpath(path, NULL)))
                return errno == ENOMEM ? -ENOMEM : 0;
        r = path_canonicalize(path, &canon);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !stk_path_beneath(canon, c->root) ||
            strv_contains((const char *const *) c->paths, canon))
                return 0;
        return strv_push(&c->paths, canon);
}

static int add_fmt(struct control *c, const char *base, const char *tail)
{
        _cleanup_free_ char *p = NULL;

        if (!base || base[0] != '/')
                return 0;
        if (asprintf(&p, "%s/%s", base, tail) < 0)
                return -ENOMEM;
        return add(c, p);
}

/* $VAR/tail, and $HOME/fallback/tail for where VAR is unset. */
static int add_xdg(struct control *c, const char *var, const char *fallback, const char *tail)
{
        _cleanup_free_ char *dflt = NULL;
        const char *home = getenv("HOME");
        int r = add_fmt(c, getenv(var), tail);

        if (r < 0 || !home || home[0] != '/')
                return r;
        if (asprintf(&dflt, "%s/%s", home, fallback) < 0)
                return -ENOMEM;
        return add_fmt(c, dflt, tail);
}

/* Every entry of a cache directory but the sandbox's own caches. */
static int add_cache_dir(struct control *c, const char *dir)
{
        struct dirent *e;
        DIR *d;
        int r = add_fmt(c, dir, PROBE_CACHE);

        if (r < 0 || !(d = opendir(dir)))
                return r; /* absent: the probe cache by name is enough */
        while (r >= 0 && (e = readdir(d)))
                if (!streq(e->d_name, ".") && !streq(e->d_name, "..") && !streq(e->d_name, SANDBOX_CACHES))
                        r = add_fmt(c, dir, e->d_name);
        closedir(d);
        return r;
}

static int add_caches(struct control *c)
{
        const char *home = getenv("HOME");
        const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("XDG_CACHE_HOME"), NULL };
        _cleanup_free_ char *dflt = NULL;
        int r = 0;

        if (home && home[0] == '/' && asprintf(&dflt, "%s/.cache", home) < 0)
                return -ENOMEM;
        bases[2] = dflt;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(bases); i++) {
                _cleanup_free_ char *dir = NULL;
                if (!bases[i] || bases[i][0] != '/')
                        continue;
                if (asprintf(&dir, "%s/stockade", bases[i]) < 0)
                        return -ENOMEM;
                r = add_cache_dir(c, dir);
        }
        return r;
}

static int add_modules(struct control *c)
{
        const char *tree = core_build_tree(); /* trusted when run from it (loader.c) */
        _cleanup_free_ char *mods = NULL, *test_mods = NULL;
        int r = add(c, STK_MODULEDIR);

        if (r < 0 || !tree)
                return r;
        if (asprintf(&mods, "%s/modules", tree) < 0 || asprintf(&test_mods, "%s/t/modules", tree) < 0)
                return -ENOMEM;
        r = add(c, mods);
        return r >= 0 ? add(c, test_mods) : r;
}

/* The files this run's policy came from; embedded ones have no path. */
static int add_policy_files(struct control *c, const struct core_policy *p)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < p->n_files; i++)
                r = add(c, p->files[i].value);
        if (r >= 0 && p->audit)
                r = add(c, p->audit);
        return r;
}

int pprotect_control(const struct core_policy *p, const char *root, char ***ret)
{
        struct control c = { .root = root, .paths = calloc(1, sizeof(char *)) };
        int r = c.paths ? 0 : -ENOMEM;

        if (r >= 0)
                r = add(&c, STK_SYSCONFDIR "/stockade");
        if (r >= 0)
                r = add_xdg(&c, "XDG_CONFIG_HOME", ".config", "stockade");
        if (r >= 0)
                r = add_xdg(&c, "XDG_STATE_HOME", ".local/state", "stockade");
        if (r >= 0)
                r = add_caches(&c);
        if (r >= 0)
                r = add_modules(&c);
        if (r >= 0)
                r = add_policy_files(&c, p);
        if (r < 0) {
                strv_free(c.paths);
                return r;
        }
        *ret = c.paths;
        return 0;
}
