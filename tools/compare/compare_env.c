/* SPDX-License-Identifier: MIT */
/*
 * stockade compare: where the escape suite and the shipped comparison stacks
 * are, and the work tree the benchmark and explain run in.
 *
 * The build tree mirrors the installed layout, so one rule finds both:
 *
 *   escape suite   $(B)/t/escape/{run,escape-fixture,probes/}   $(LIBEXECDIR)/stockade/escape/...
 *   stacks         $(B)/compare/NAME.yaml                       $(DATADIR)/stockade/compare/NAME.yaml
 *
 * The build tree's are used only by the binary that build tree made (the
 * same test as for its modules, core_running_from_build_tree), never because
 * of an environment variable.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

static int dup_into(char **dst, const char *s)
{
        *dst = strdup(s);
        return *dst ? 0 : -ENOMEM;
}

/* The build tree's TREE_REL for the build tree's binary, else INSTALLED. */
static int locate_into(char **dst, const char *tree_rel, const char *installed)
{
        const char *tree = core_build_tree();

        if (!tree)
                return dup_into(dst, installed);
        return asprintf(dst, "%s/%s", tree, tree_rel) < 0 ? -ENOMEM : 0;
}

/* The suite must be complete before anything runs: a missing probe
 * directory would otherwise surface as a harness error in every column. */
static int check_suite(const char *dir)
{
        static const char *const need[] = { "run", "escape-fixture", "probes" };
        char path[PATH_MAX];

        for (size_t i = 0; i < ELEMENTSOF(need); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, need[i]);
                if (access(path, i == 0 ? R_OK : X_OK) < 0) {
                        int r = -errno;
                        core_log(STK_LOG_ERROR, "compare: the escape suite is incomplete: %s: %s%s", path,
                                 strerror(-r), core_running_from_build_tree() ? " (run: make escape-suite)" : "");
                        return r;
                }
        }
        return 0;
}

int compare_locate(struct compare *c, const char *stockade)
{
        int r = dup_into(&c->self, stockade);

        if (r >= 0)
                r = locate_into(&c->escape_dir, "t/escape", STK_LIBEXECDIR "/stockade/escape");
        if (r >= 0)
                r = locate_into(&c->stacks_dir, "compare", STK_DATADIR "/stockade/compare");
        if (r < 0)
                return r;
        return check_suite(c->escape_dir);
}

/* A shipped stack's name: it becomes a file name, so nothing that climbs. */
static bool stack_name_ok(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
                        return false;
        return true;
}

/* NAME (a shipped stack) or FILE (contains a '/' or ends in .yaml) to the
 * absolute path of a regular file. */
int compare_stack_file(const struct compare *c, const char *name, char **ret_path)
{
        _cleanup_free_ char *path = NULL, *canon = NULL;
        size_t n = strlen(name);
        bool is_file = strchr(name, '/') || (n > 5 && streq(name + n - 5, ".yaml"));
        struct stat st;

        if (!is_file && !stack_name_ok(name)) {
                core_log(STK_LOG_ERROR, "compare: bad stack name \"%s\"; expected a file (with a '/' or "
                         "ending in .yaml) or a shipped stack in %s", name, c->stacks_dir);
                return -EINVAL;
        }
        if (asprintf(&path, is_file ? "%s" : "%s/%s.yaml", is_file ? name : c->stacks_dir, name) < 0)
                return -ENOMEM;
        canon = realpath(path, NULL);
        if (!canon || stat(canon, &st) < 0 || !S_ISREG(st.st_mode)) {
                int r = canon ? -EINVAL : -errno;
                core_log(STK_LOG_ERROR, "compare: stack %s: %s; expected a policy file%s%s", path,
                         canon ? "not a regular file" : strerror(-r), is_file ? "" : " shipped in ",
                         is_file ? "" : c->stacks_dir);
                return r == -ENOMEM ? r : -EINVAL;
        }
        *ret_path = TAKE_PTR(canon);
        return 0;
}

static int make_dir(const char *work, const char *rel, mode_t mode)
{
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/%s", work, rel);
        if (mkdir(path, mode) < 0) {
                int r = -errno;
                core_log(STK_LOG_ERROR, "compare: mkdir %s: %s", path, strerror(-r));
                return r;
        }
        return 0;
}

static int make_file(const char *work, const char *rel, mode_t mode, const char *text)
{
        char path[PATH_MAX];
        size_t n = strlen(text);
        ssize_t k;
        int fd, r = 0;

        snprintf(path, sizeof(path), "%s/%s", work, rel);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0)
                r = -errno;
        if (fd >= 0) {
                k = write(fd, text, n);
                if (k != (ssize_t) n)
                        r = k < 0 ? -errno : -EIO;
                if (close(fd) < 0 && r == 0)
                        r = -errno;
        }
        if (r < 0)
                core_log(STK_LOG_ERROR, "compare: writing %s: %s", path, strerror(-r));
        return r;
}

static bool replaced_var(const char *entry, const char *const *names, size_t n)
{
        for (size_t k = 0; k < n; k++)
                if (strncmp(entry, names[k], strlen(names[k])) == 0)
                        return true;
        return false;
}

/* environ, but HOME and the XDG directories inside the work tree: no user
 * layer from the real ~/.config, no cache written into the real HOME, and
 * the hidden ~/.ssh is the work tree's. */
static int build_env(struct compare *c)
{
        static const char *const replaced[] = { "HOME=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=" };
        static const char *const subdir[] = { "home", "xdg", "cache" };
        _cleanup_strv_ char **env = calloc(1, sizeof(char *));

        if (!env)
                return -ENOMEM;
        for (size_t i = 0; environ[i]; i++)
                if (!replaced_var(environ[i], replaced, ELEMENTSOF(replaced)) && strv_push(&env, environ[i]) < 0)
                        return -ENOMEM;
        for (size_t k = 0; k < ELEMENTSOF(replaced); k++) {
                char *e = NULL;
                if (asprintf(&e, "%s%s/%s", replaced[k], c->work, subdir[k]) < 0)
                        return -ENOMEM;
                if (strv_push_take(&env, e) < 0)
                        return -ENOMEM;
        }
        c->envp = TAKE_PTR(env);
        return 0;
}

/* Under $STOCKADE_ESCAPE_TMP or /var/tmp, as the escape suite's fixtures:
 * not in /tmp, which is private inside the sandbox. */
int compare_work_setup(struct compare *c)
{
        const char *base = getenv("STOCKADE_ESCAPE_TMP");
        int r;

        if (!base || base[0] != '/')
                base = "/var/tmp";
        if (asprintf(&c->work, "%s/stockade-compare.XXXXXX", base) < 0) {
                c->work = NULL;
                return -ENOMEM;
        }
        if (!mkdtemp(c->work)) {
                r = -errno;
                core_log(STK_LOG_ERROR, "compare: mkdtemp %s: %s", c->work, strerror(-r));
                free(c->work);
                c->work = NULL;
                return r;
        }
        if (asprintf(&c->ws, "%s/ws", c->work) < 0) {
                c->ws = NULL;
                return -ENOMEM;
        }
        /* a workspace like an agent's: a git directory with hooks and config */
        r = make_dir(c->work, "ws", 0755);
        if (r >= 0) r = make_dir(c->work, "ws/.git", 0755);
        if (r >= 0) r = make_dir(c->work, "ws/.git/hooks", 0755);
        if (r >= 0) r = make_file(c->work, "ws/.git/config", 0644, "[core]\n");
        if (r >= 0) r = make_dir(c->work, "home", 0755);
        if (r >= 0) r = make_dir(c->work, "home/.ssh", 0700);
        if (r >= 0) r = make_file(c->work, "home/.ssh/id_rsa", 0600, "not a real key\n");
        if (r >= 0) r = make_dir(c->work, "xdg", 0755);
        if (r >= 0) r = make_dir(c->work, "cache", 0755);
        return r < 0 ? r : build_env(c);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        if (remove(path) < 0)
                core_log(STK_LOG_WARNING, "compare: cannot remove %s: %s", path, strerror(errno));
        return 0; /* remove what can be removed; a leftover is only disk space */
}

void compare_work_remove(struct compare *c)
{
        if (!c->work)
                return;
        /* FTW_PHYS: never follow a link out of the tree; FTW_MOUNT: never
         * descend into something mounted inside it */
        if (nftw(c->work, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
                core_log(STK_LOG_WARNING, "compare: removing %s: %s", c->work, strerror(errno));
}
