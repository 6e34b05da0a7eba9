/* SPDX-License-Identifier: MIT */
/*
 * The files git reads for a repository and the code they name (issue 13,
 * "Git reads more than .git/hooks and .git/config").  A team's
 * `core.hooksPath .githooks`, a filter's script, an include target: each
 * is a file in the workspace that the user's next host git runs or reads,
 * so each is a protected path of the run.
 *
 * Read, never run: git itself is not asked (a command could have left a
 * git that lies, and git config runs nothing but still reads what the
 * command wrote).  The sources, as git-config(1) lists them: the system
 * files, the global ones ($GIT_CONFIG_GLOBAL, ~/.gitconfig, the XDG one,
 * both places of it), the repository's config and config.worktree, and
 * every include.path and includeIf.*.path below those, whatever the
 * condition (taken as holding: protecting more is the safe side).  Every
 * value of every file counts, not only the last one git would keep: which
 * one wins depends on conditions we do not decide.
 *
 * Fail closed: a file git would read that cannot be read or parsed makes
 * the caller keep the repository's gitdir read-only as a whole, said once
 * a run (junk one run wrote must not stop the next: never an error).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gitconfig.h"
#include "util/util.h"

#define INCLUDE_DEPTH 10        /* git's own limit (MAX_INCLUDE_DEPTH) */
#define CONFIG_MAX (4u << 20)   /* a larger config is not one a person wrote: fail closed */

const char *const gitcfg_runner_names[] = {
        /* lefthook: its config names, the -local ones, its script directories */
        "lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "lefthook.toml", ".lefthook.toml",
        "lefthook.json", ".lefthook.json", "lefthook.jsonc", ".lefthook.jsonc",
        "lefthook-local.yml", ".lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yaml",
        "lefthook-local.toml", ".lefthook-local.toml", "lefthook-local.json", ".lefthook-local.json",
        "lefthook-local.jsonc", ".lefthook-local.jsonc",
        ".config/lefthook.yml", ".config/lefthook.yaml", ".config/lefthook.toml", ".config/lefthook.json",
        ".config/lefthook.jsonc", ".config/lefthook-local.yml", ".config/lefthook-local.yaml",
        ".config/lefthook-local.toml", ".config/lefthook-local.json", ".config/lefthook-local.jsonc",
        ".lefthook", ".lefthook-local",
        /* lint-staged (its package.json key is not covered: package.json stays writable for npm) */
        ".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml", ".lintstagedrc.mjs",
        ".lintstagedrc.mts", ".lintstagedrc.js", ".lintstagedrc.ts", ".lintstagedrc.cjs", ".lintstagedrc.cts",
        "lint-staged.config.mjs", "lint-staged.config.mts", "lint-staged.config.js", "lint-staged.config.ts",
        "lint-staged.config.cjs", "lint-staged.config.cts",
        /* commitlint */
        ".commitlintrc", ".commitlintrc.json", ".commitlintrc.yaml", ".commitlintrc.yml", ".commitlintrc.js",
        ".commitlintrc.cjs", ".commitlintrc.mjs", ".commitlintrc.ts", ".commitlintrc.cts", ".commitlintrc.mts",
        "commitlint.config.js", "commitlint.config.cjs", "commitlint.config.mjs", "commitlint.config.ts",
        "commitlint.config.cts", "commitlint.config.mts",
        /* simple-git-hooks */
        ".simple-git-hooks.cjs", ".simple-git-hooks.js", ".simple-git-hooks.mjs", ".simple-git-hooks.json",
        "simple-git-hooks.cjs", "simple-git-hooks.js", "simple-git-hooks.mjs", "simple-git-hooks.json",
        /* overcommit: its config and its repository hook directory */
        ".overcommit.yml", ".git-hooks",
        /* the usual core.hooksPath of teams that version their hooks */
        ".githooks",
        NULL,
};

/* One repository's scan: the run, the repository, what it finds. */
struct repo_scan {
        struct gitcfg_run *run;
        const struct gitcfg_repo *repo;
        char ***paths;
        char **entries;         /* key, value pairs ("" for a bare key), every file */
        char **bases;           /* where relative paths are taken from: top, core.worktree */
        unsigned depth;         /* of includes */
        bool failed;            /* a file could not be read or parsed */
        const char *file;       /* the one being read */
};

void gitcfg_run_done(struct gitcfg_run *run)
{
        run->roots = strv_free(run->roots);
        run->warned = strv_free(run->warned);
}

/* "." and ".." and doubled slashes taken out of an absolute path, in
 * place (path_canonicalize keeps a ".." in what does not exist). */
static void normalize(char *p)
{
        char *out = p, *in = p;

        while (*in) {
                while (*in == '/')
                        in++;
                size_t n = strcspn(in, "/");
                if (n == 0)
                        break;
                if (n == 1 && in[0] == '.') {
                        in += n;
                } else if (n == 2 && in[0] == '.' && in[1] == '.') {
                        while (out > p && *--out != '/')
                                ;
                        in += n;
                } else {
                        *out++ = '/';
                        memmove(out, in, n);
                        out += n;
                        in += n;
                }
        }
        if (out == p)
                *out++ = '/';
        *out = '\0';
}

/* word made absolute: as is, ~/ under $HOME, else under base; NULL where
 * it cannot be (~user, no home) or out of memory (errno). */
static char *absolute(const struct repo_scan *sc, const char *base, const char *word)
{
        char *p;

        errno = 0;
        if (word[0] == '/')
                p = strdup(word);
        else if (strncmp(word, "~/", 2) == 0 || streq(word, "~"))
                p = sc->run->home ? stk_path_join(sc->run->home, word[1] ? word + 2 : "") : NULL;
        else if (word[0] == '~')
                p = NULL; /* ~user: another user's home, not a writable root of ours */
        else if (strncmp(word, "%(prefix)/", 10) == 0)
                p = NULL; /* git's own installation, read-only to the command */
        else
                p = stk_path_join(base, word);
        if (p)
                normalize(p);
        return p;
}

static bool beneath_roots(const struct gitcfg_run *run, const char *p)
{
        for (size_t i = 0; run->roots[i]; i++)
                if (!streq(run->roots[i], "/") && stk_path_beneath(p, run->roots[i]))
                        return true;
        return false;
}

static int add_once(char ***paths, const char *p)
{
        return strv_contains((const char *const *) *paths, p) ? 0 : strv_push(paths, p);
}

/* abs leads through a symlink in a writable root (the roots are
 * canonical): a mount protects what it leads to, not the link, which a
 * command under bwrap can replace with a directory of its own (under
 * Landlock, fs_guard refuses it).  Said once a run; stockade.yaml(5). */
static void symlink_on_the_way(struct gitcfg_run *run, const char *abs, const char *canon)
{
        if (strv_contains((const char *const *) run->warned, abs) || strv_push(&run->warned, abs) < 0)
                return;
        core_log(STK_LOG_WARNING, "%s, which git's config names as code, leads through a symlink (to %s): what it "
                 "leads to is kept read-only, but under bwrap the command can replace the link", abs, canon);
}

/* The path as written and where its symlinks lead, each where a writable
 * root holds it (a root itself never: that would make the workspace
 * read-only from one line of config). */
static int protect_path(struct repo_scan *sc, const char *abs)
{
        _cleanup_free_ char *canon = NULL;
        int r = 0;

        for (size_t i = 0; sc->run->roots[i]; i++)
                if (streq(abs, sc->run->roots[i]))
                        return 0;
        if (!beneath_roots(sc->run, abs))
                return 0;
        r = add_once(sc->paths, abs);
        if (r < 0 || path_canonicalize(abs, &canon) < 0 || streq(canon, abs))
                return r;
        symlink_on_the_way(sc->run, abs, canon);
        return beneath_roots(sc->run, canon) ? protect_path(sc, canon) : 0;
}

/* ---- reading files -------------------------------------------------------- */

static void warn_once(struct repo_scan *sc, const char *file, const char *what)
{
        sc->failed = true;
        if (strv_contains((const char *const *) sc->run->warned, file))
                return;
        if (strv_push(&sc->run->warned, file) < 0)
                return; /* the warning is lost, the protection is not: failed is set */
        if (sc->repo->gitdir)
                core_log(STK_LOG_WARNING, "%s: %s; %s is kept read-only as a whole", file, what, sc->repo->gitdir);
        else
                core_log(STK_LOG_WARNING, "%s: %s; the paths it names are not known", file, what);
}

/* The file's text: 1 with *ret, 0 where there is none (git skips a missing
 * file), -errno otherwise.  A fifo would block, a device is no config. */
static int slurp(const char *file, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;

        if (fd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if ((uintmax_t) st.st_size > CONFIG_MAX)
                return -EFBIG;
        buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return -ENOMEM;
        while (len <= (size_t) st.st_size) {
                ssize_t n = read(fd, buf + len, (size_t) st.st_size + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        if (len > (size_t) st.st_size)
                return -EFBIG; /* it grew while read */
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 1;
}

static int read_config(struct repo_scan *sc, const char *file);

/* An include: the target protected (it is config git reads: a command
 * that could write it could set anything), then read in its turn. */
static int include(struct repo_scan *sc, const char *value)
{
        _cleanup_free_ char *dir = strdup(sc->file), *target = NULL;
        const char *file = sc->file;
        int r;

        if (!dir)
                return -ENOMEM;
        if (!value || !value[0])
                return 0; /* git: an error for a bare key; nothing to read either way */
        *strrchr(dir, '/') = '\0';
        target = absolute(sc, dir[0] ? dir : "/", value);
        if (!target)
                return errno == ENOMEM ? -ENOMEM : 0;
        r = protect_path(sc, target);
        if (r < 0)
                return r;
        if (sc->depth >= INCLUDE_DEPTH) {
                warn_once(sc, target, "includes nested deeper than git's limit");
                return 0;
        }
        sc->depth++;
        r = read_config(sc, target);
        sc->depth--;
        sc->file = file;
        return r;
}

static int on_item(const struct gitcfg_item *it, void *userdata)
{
        struct repo_scan *sc = userdata;
        const struct gitcfg_rule *rule;
        int r;

        if (gitcfg_classify(it->key, it->value, &rule) == GITCFG_INCLUDE)
                return include(sc, it->value);
        if (streq(it->key, "core.hookspath") && sc->repo->hooks_path)
                *sc->repo->hooks_path = true;
        r = strv_push(&sc->entries, it->key);
        return r < 0 ? r : strv_push(&sc->entries, it->value ? it->value : "");
}

static int read_config(struct repo_scan *sc, const char *file)
{
        _cleanup_free_ char *text = NULL;
        struct gitcfg_error err;
        size_t len = 0;
        int r = slurp(file, &text, &len);

        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                char why[128];
                snprintf(why, sizeof(why), "git's config cannot be read: %s", strerror(-r));
                warn_once(sc, file, why);
                return 0;
        }
        if (r == 0)
                return 0;
        sc->file = file;
        r = gitcfg_parse(text, len, on_item, sc, &err);
        if (r == -EINVAL) {
                char why[256];
                snprintf(why, sizeof(why), "%u:%u: not a config git would read: %s", err.line, err.col, err.why);
                warn_once(sc, file, why);
                return 0;
        }
        return r;
}

/* ---- the sources ---------------------------------------------------------- */

/* The system files: git's prefix decides which one it reads, and the
 * user's next git may not be ours, so every usual place. */
static const char *const system_files[] = {
        "/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig",
        "/Library/Developer/CommandLineTools/usr/share/git-core/gitconfig", NULL,
};

static int read_env_file(struct repo_scan *sc, const char *var)
{
        const char *v = getenv(var);

        return v && v[0] == '/' ? read_config(sc, v) : 0;
}

static int read_user_files(struct repo_scan *sc)
{
        const struct gitcfg_run *run = sc->run;
        int r = read_env_file(sc, "GIT_CONFIG_SYSTEM");

        for (size_t i = 0; r >= 0 && system_files[i]; i++)
                r = read_config(sc, system_files[i]);
        if (r >= 0)
                r = read_env_file(sc, "GIT_CONFIG_GLOBAL");
        for (int k = 0; r >= 0 && run->home && k < 3; k++) {
                _cleanup_free_ char *f = k == 0 ? stk_path_join(run->home, ".gitconfig")
                                         : k == 1 ? stk_path_join(run->home, ".config/git/config")
                                                  : run->xdg ? stk_path_join(run->xdg, "git/config") : NULL;
                if (!f)
                        return k == 2 && !run->xdg ? 0 : -ENOMEM;
                r = read_config(sc, f);
        }
        return r;
}

/* The repository's own: config in the common dir, config.worktree in the
 * gitdir and the common dir (git reads them with
 * extensions.worktreeConfig; read always, it can only add). */
static int read_repo_files(struct repo_scan *sc)
{
        const struct gitcfg_repo *g = sc->repo;
        const char *files[][2] = {
                { g->common, "config" }, { g->gitdir, "config.worktree" }, { g->common, "config.worktree" },
        };
        int r = 0;

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *f = stk_path_join(files[i][0], files[i][1]);
                if (!f)
                        return -ENOMEM;
                if (i == 2 && streq(g->gitdir, g->common))
                        break;
                r = read_config(sc, f);
        }
        return r;
}

/* ---- what the values name ------------------------------------------------- */

struct at_base {
        struct repo_scan *sc;
        const char *base;
};

static bool word_exists(const char *word, void *userdata)
{
        struct at_base *a = userdata;
        _cleanup_free_ char *p = absolute(a->sc, a->base, word);
        struct stat st;

        return p && lstat(p, &st) == 0;
}

static int word_path(const char *word, bool sure, void *userdata)
{
        struct at_base *a = userdata;
        _cleanup_free_ char *p = absolute(a->sc, a->base, word);

        if (!p)
                return errno == ENOMEM ? -ENOMEM : 0;
        (void) sure; /* a maybe was already checked by the caller (it has a slash, or exists) */
        return protect_path(a->sc, p);
}

/* core.worktree: where hooks and commands run instead of top; relative to
 * the gitdir (git-config(1)). */
static int add_worktree_bases(struct repo_scan *sc)
{
        const struct gitcfg_rule *rule;

        for (size_t i = 0; sc->entries && sc->entries[i]; i += 2) {
                const char *v = sc->entries[i + 1];
                char *p;

                if (gitcfg_classify(sc->entries[i], v, &rule) != GITCFG_WORKTREE || !v[0] || !sc->repo->gitdir)
                        continue;
                p = absolute(sc, sc->repo->gitdir, v);
                if (!p)
                        return errno == ENOMEM ? -ENOMEM : 0;
                if (strv_push_take(&sc->bases, p) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int protect_values(struct repo_scan *sc)
{
        int r = strv_push(&sc->bases, sc->repo->top);

        if (r >= 0)
                r = add_worktree_bases(sc);
        for (size_t b = 0; r >= 0 && sc->bases[b]; b++) {
                struct at_base a = { .sc = sc, .base = sc->bases[b] };
                for (size_t i = 0; r >= 0 && sc->entries && sc->entries[i]; i += 2)
                        r = gitcfg_value_paths(sc->entries[i], sc->entries[i + 1][0] ? sc->entries[i + 1] : NULL,
                                               word_exists, word_path, &a);
        }
        return r;
}

int gitcfg_repo_paths(struct gitcfg_run *run, const struct gitcfg_repo *repo, char ***paths)
{
        struct repo_scan sc = { .run = run, .repo = repo, .paths = paths };
        int r = read_user_files(&sc);

        if (r >= 0 && repo->gitdir)
                r = read_repo_files(&sc);
        if (r >= 0)
                r = protect_values(&sc);
        strv_free(sc.entries);
        strv_free(sc.bases);
        if (r < 0)
                return r;
        return sc.failed ? 1 : 0;
}
