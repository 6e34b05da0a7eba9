/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: the forms of a tool's command line (pr_tools.c says why):
 * global options stripped so that the subcommand comes second, alternative
 * spellings mapped, and the options that make the tool run code of the
 * string's choosing found (configuration injection).  The grammars are
 * data: one row per tool, one list of global options each.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pr_internal.h"

struct gopt {
        const char *name;
        bool arg;            /* takes a value: `--name=v`, `--name v`, `-nv`, `-n v` */
        const char *ask;     /* set: this option makes the tool run code of its value's choosing */
};

enum {
        T_ANYWHERE = 1u << 0,   /* options may also follow the subcommand; an unknown one may take a value */
        T_STRICT   = 1u << 1,   /* the global options are a closed set: an unknown one is ASK */
        T_PLUS     = 1u << 2,   /* cargo +toolchain */
};

struct tool {
        const char *prog;
        const struct gopt *globals;   /* NULL-terminated */
        unsigned flags;
};

#define G(...) (const struct gopt[]){ __VA_ARGS__, { NULL, false, NULL } }
#define RUNS "names a program or configuration that the tool runs"

static const struct gopt git_globals[] = {
        { "-C", true, NULL }, { "-c", true, NULL }, { "--config-env", true, NULL },
        { "--git-dir", true, "points git at another repository, whose configuration can run programs" },
        { "--work-tree", true, NULL }, { "--namespace", true, NULL }, { "--super-prefix", true, NULL },
        { "--list-cmds", true, NULL }, { "--attr-source", true, NULL },
        { "-p", false, NULL }, { "--paginate", false, NULL }, { "-P", false, NULL }, { "--no-pager", false, NULL },
        { "--bare", false, NULL }, { "--no-replace-objects", false, NULL }, { "--literal-pathspecs", false, NULL },
        { "--glob-pathspecs", false, NULL }, { "--noglob-pathspecs", false, NULL },
        { "--icase-pathspecs", false, NULL }, { "--no-optional-locks", false, NULL }, { "--no-advice", false, NULL },
        { "--no-lazy-fetch", false, NULL }, { "--html-path", false, NULL }, { "--man-path", false, NULL },
        { "--info-path", false, NULL }, { "-v", false, NULL }, { "--version", false, NULL }, { "-h", false, NULL },
        { "--help", false, NULL },
        { "--exec-path", false, "--exec-path=DIR makes git run its subcommands from DIR" },
        { NULL, false, NULL },
};

static const struct gopt npm_globals[] = {
        { "-w", true, NULL }, { "--workspace", true, NULL }, { "--registry", true, NULL }, { "--prefix", true, NULL },
        { "-C", true, NULL }, { "--dir", true, NULL }, { "--cwd", true, NULL }, { "--filter", true, NULL },
        { "--cache", true, NULL }, { "--loglevel", true, NULL }, { "--tag", true, NULL }, { "--access", true, NULL },
        { "--otp", true, NULL }, { "--scope", true, NULL },
        { "--userconfig", true, RUNS }, { "--globalconfig", true, RUNS }, { "--script-shell", true, RUNS },
        { "--shell", true, RUNS }, { "--node-options", true, RUNS },
        { "-g", false, NULL }, { "--global", false, NULL }, { "-D", false, NULL }, { "-S", false, NULL },
        { "-E", false, NULL }, { "-O", false, NULL }, { "-P", false, NULL }, { "-f", false, NULL },
        { "--force", false, NULL }, { "-y", false, NULL }, { "--yes", false, NULL }, { "-s", false, NULL },
        { "--silent", false, NULL }, { "-q", false, NULL }, { "--quiet", false, NULL }, { "-d", false, NULL },
        { "--json", false, NULL }, { "-ws", false, NULL }, { "--workspaces", false, NULL },
        { "--include-workspace-root", false, NULL }, { "--ignore-scripts", false, NULL }, { "--dry-run", false, NULL },
        { "--verbose", false, NULL }, { "-r", false, NULL }, { "--recursive", false, NULL },
        { "--provenance", false, NULL },
        { NULL, false, NULL },
};

static const struct gopt cargo_globals[] = {
        { "--color", true, NULL }, { "-Z", true, NULL }, { "-C", true, NULL }, { "--explain", true, NULL },
        { "--config", true, "cargo configuration can name programs (runners, wrappers) that cargo runs" },
        { "-v", false, NULL }, { "--verbose", false, NULL }, { "-q", false, NULL }, { "--quiet", false, NULL },
        { "--frozen", false, NULL }, { "--locked", false, NULL }, { "--offline", false, NULL },
        { "-V", false, NULL }, { "--version", false, NULL }, { "--list", false, NULL }, { "-h", false, NULL },
        { "--help", false, NULL },
        { NULL, false, NULL },
};

static const struct gopt container_globals[] = {
        { "--config", true, NULL }, { "-c", true, NULL }, { "--context", true, NULL }, { "-H", true, NULL },
        { "--host", true, NULL }, { "-l", true, NULL }, { "--log-level", true, NULL }, { "--tlscacert", true, NULL },
        { "--tlscert", true, NULL }, { "--tlskey", true, NULL }, { "--url", true, NULL },
        { "--connection", true, NULL }, { "--root", true, NULL }, { "--runroot", true, NULL },
        { "--storage-driver", true, NULL }, { "--runtime", true, RUNS }, { "--namespace", true, NULL },
        { "--address", true, NULL }, { "-n", true, NULL },
        { "-D", false, NULL }, { "--debug", false, NULL }, { "--tls", false, NULL }, { "--tlsverify", false, NULL },
        { "-v", false, NULL }, { "--version", false, NULL }, { "-h", false, NULL }, { "--help", false, NULL },
        { "--remote", false, NULL }, { "-r", false, NULL },
        { NULL, false, NULL },
};

static const struct gopt kubectl_globals[] = {
        { "-n", true, NULL }, { "--namespace", true, NULL }, { "--context", true, NULL },
        { "--kubeconfig", true, NULL }, { "-s", true, NULL }, { "--server", true, NULL }, { "--cluster", true, NULL },
        { "--user", true, NULL }, { "--token", true, NULL }, { "--as", true, NULL }, { "--as-group", true, NULL },
        { "--request-timeout", true, NULL }, { "-v", true, NULL }, { "--v", true, NULL }, { "--cache-dir", true, NULL },
        { "-o", true, NULL }, { "-l", true, NULL }, { "-f", true, NULL },
        { "--insecure-skip-tls-verify", false, NULL }, { "-A", false, NULL }, { "--all-namespaces", false, NULL },
        { "-w", false, NULL }, { "--watch", false, NULL }, { "-h", false, NULL }, { "--help", false, NULL },
        { NULL, false, NULL },
};

static const struct tool tools[] = {
        { "git", git_globals, T_STRICT },
        { "npm", npm_globals, T_ANYWHERE }, { "pnpm", npm_globals, T_ANYWHERE }, { "yarn", npm_globals, T_ANYWHERE },
        { "bun", npm_globals, T_ANYWHERE },
        { "cargo", cargo_globals, T_PLUS },
        { "docker", container_globals, 0 }, { "podman", container_globals, 0 }, { "nerdctl", container_globals, 0 },
        { "kubectl", kubectl_globals, T_ANYWHERE }, { "oc", kubectl_globals, T_ANYWHERE },
};

/* npm resolves a unique abbreviation of a command (`npm pub` publishes). */
struct sub_alias {
        const char *prog, *canon;
        size_t min;   /* the shortest unique prefix */
};
static const struct sub_alias sub_aliases[] = {
        { "npm", "publish", 2 }, { "npm", "unpublish", 3 }, { "pnpm", "publish", 2 },
};

/* git configuration keys whose value is a program, a shell string, or
 * configuration that leads to one (lower case; fnmatch). */
static const char *const git_code_keys[] = {
        "alias.*", "core.sshcommand", "core.editor", "core.pager", "core.fsmonitor", "core.hookspath",
        "core.askpass", "core.gitproxy", "core.alternaterefscommand", "core.worktree", "sequence.editor",
        "diff.external", "diff.*.command", "diff.*.textconv", "difftool.*", "mergetool.*", "merge.*.driver",
        "filter.*", "credential.helper", "credential.*.helper", "protocol.*", "url.*", "pager.*", "gpg.program",
        "gpg.*.program", "uploadpack.*", "receive.*", "remote.*.uploadpack", "remote.*.receivepack",
        "remote.*.vcs", "remote.*.proxy", "remote.*.mirror", "remote.*.push", "include.*", "includeif.*",
        "init.templatedir", "ssh.variant", "sendemail.*", "web.browser", "browser.*", "man.*", "instaweb.*",
        "submodule.*", "hook.*", "trailer.*", "guitool.*", "core.sshcommand", "http.*.proxy", "http.proxy",
        NULL,
};

static bool git_code_key(const char *kv)
{
        char key[256];
        size_t n = strcspn(kv, "=");

        if (n >= sizeof(key))
                return true;
        for (size_t i = 0; i < n; i++)
                key[i] = (char) ((kv[i] >= 'A' && kv[i] <= 'Z') ? kv[i] + 32 : kv[i]);
        key[n] = '\0';
        for (const char *const *k = git_code_keys; *k; k++)
                if (fnmatch(*k, key, 0) == 0)
                        return true;
        return false;
}

/* Options of git subcommands that run a program named by their value. */
struct sub_opt {
        const char *sub, *opt;   /* opt: exact, or a long option's abbreviation down to `min` chars */
        size_t min;
};
static const struct sub_opt git_code_opts[] = {
        { "rebase", "-x", 2 }, { "rebase", "--exec", 4 }, { "difftool", "-x", 2 }, { "difftool", "--extcmd", 4 },
        { "grep", "-O", 2 }, { "grep", "--open-files-in-pager", 4 }, { "push", "--receive-pack", 4 },
        { "push", "--exec", 4 }, { "send-pack", "--receive-pack", 4 }, { "send-pack", "--exec", 4 },
        { "fetch", "--upload-pack", 4 }, { "pull", "--upload-pack", 4 }, { "clone", "--upload-pack", 4 },
        { "clone", "-u", 2 }, { "clone", "--template", 4 }, { "clone", "-c", 2 }, { "clone", "--config", 5 },
        { "ls-remote", "--upload-pack", 4 }, { "archive", "--exec", 4 }, { "submodule", "foreach", 7 },
        { "bisect", "run", 3 }, { "filter-branch", "--*filter", 4 }, { "filter-branch", "--setup", 4 },
        { "init", "--template", 4 }, { "mergetool", "-t", 2 }, { "mergetool", "--tool", 4 },
        { "difftool", "-t", 2 }, { "difftool", "--tool", 4 },
};

static bool opt_matches(const struct sub_opt *o, const char *word)
{
        size_t n = strcspn(word, "=");

        if (strchr(o->opt, '*')) {
                char name[128];
                if (n >= sizeof(name))
                        return false;
                memcpy(name, word, n);
                name[n] = '\0';
                return fnmatch(o->opt, name, 0) == 0;
        }
        if (o->opt[1] != '-')   /* short, or a word like `foreach` */
                return strncmp(word, o->opt, strlen(o->opt)) == 0 && (o->opt[0] == '-' || word[strlen(o->opt)] == '\0');
        return n >= o->min && n <= strlen(o->opt) && strncmp(word, o->opt, n) == 0;
}

/* Configuration injection inside a git subcommand's words. */
static const char *git_sub_check(const char *sub, const struct pr_word *w, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                const char *t = w[i].text;
                if (w[i].flags & PR_W_DYN)
                        continue;
                if (strncmp(t, "ext::", 5) == 0 || strncmp(t, "fd::", 4) == 0)
                        return "a git transport that runs a command (ext::, fd::)";
                if (strcmp(sub, "config") == 0 && t[0] != '-' && git_code_key(t))
                        return "git configuration whose value is a program or a shell string";
                for (size_t k = 0; k < sizeof(git_code_opts) / sizeof(git_code_opts[0]); k++)
                        if (strcmp(git_code_opts[k].sub, sub) == 0 && opt_matches(&git_code_opts[k], t))
                                return "a git option that runs a program or a shell string named by its value";
        }
        return NULL;
}

static const struct gopt *find_gopt(const struct tool *t, const char *word, size_t len)
{
        for (const struct gopt *g = t->globals; g->name; g++)
                if (strlen(g->name) == len && strncmp(g->name, word, len) == 0)
                        return g;
        return NULL;
}

struct scan {
        const struct tool *t;
        const struct pr_word *w;
        size_t n;
        size_t subs[PR_MAX_FORMS];   /* where the subcommand may be */
        size_t n_subs;
        const char *ask;
        bool force, mirror;          /* git -c remote.*.push=+..., -c remote.*.mirror=true */
        bool stop;                   /* an expansion or an unknown option: no further subcommand known */
};

static void sub_at(struct scan *s, size_t i)
{
        for (size_t k = 0; k < s->n_subs; k++)
                if (s->subs[k] == i)
                        return;
        if (i < s->n && s->n_subs < PR_MAX_FORMS && !(s->w[i].flags & PR_W_DYN) && s->w[i].text[0] != '-')
                s->subs[s->n_subs++] = i;
}

/* git -c KEY=VALUE and --config-env=KEY=ENV. */
static void git_config_value(struct scan *s, const char *kv)
{
        size_t k = strcspn(kv, "=");
        const char *v = kv[k] ? kv + k + 1 : "";

        if (git_code_key(kv) && !s->ask)
                s->ask = "git -c with a key whose value is a program, a shell string or a push rule";
        if (k > 7 && strncasecmp(kv, "remote.", 7) == 0 && k > 7 + 7 && strncasecmp(kv + k - 7, ".mirror", 7) == 0 &&
            strcasecmp(v, "false") != 0 && strcasecmp(v, "no") != 0 && strcmp(v, "0") != 0)
                s->mirror = true;
        if (k > 7 && strncasecmp(kv, "remote.", 7) == 0 && k > 7 + 5 && strncasecmp(kv + k - 5, ".push", 5) == 0 &&
            v[0] == '+')
                s->force = true;
}

static void option_value(struct scan *s, const struct gopt *g, const char *value)
{
        if (g->ask && !s->ask && (strcmp(g->name, "--exec-path") != 0 || value))
                s->ask = g->ask;
        if (!value || strcmp(s->t->prog, "git") != 0)
                return;
        if (strcmp(g->name, "-c") == 0)
                git_config_value(s, value);
        else if (strcmp(g->name, "--config-env") == 0)
                git_config_value(s, value);
}

static void unknown_option(struct scan *s, size_t i, bool may_take_value)
{
        if (s->t->flags & T_STRICT) {
                if (!s->ask)
                        s->ask = "a global option perm_rules does not know for this tool";
                s->stop = true;
        } else if (may_take_value) {
                sub_at(s, i + 1);    /* the next word: a value, or the subcommand */
        }
}

/* One global option word at i; returns the words it uses. */
static size_t global_option(struct scan *s, size_t i)
{
        const char *t = s->w[i].text, *eq = strchr(t, '=');
        const struct gopt *g;

        if (t[1] == '-' || find_gopt(s->t, t, strlen(t))) {
                size_t len = eq ? (size_t) (eq - t) : strlen(t);
                g = find_gopt(s->t, t, len);
                if (!g) {
                        unknown_option(s, i, !eq);
                        return !eq && (s->t->flags & T_ANYWHERE) ? 2 : 1;
                }
                if (g->arg && !eq)
                        option_value(s, g, i + 1 < s->n ? s->w[i + 1].text : NULL);
                else
                        option_value(s, g, eq ? eq + 1 : NULL);
                return g->arg && !eq ? 2 : 1;
        }
        for (size_t j = 1; t[j]; j++) {
                g = find_gopt(s->t, (char[]){ '-', t[j], '\0' }, 2);
                if (!g) {
                        unknown_option(s, i, t[j + 1] == '\0');
                        if (s->stop)
                                return 1;
                        continue;
                }
                if (g->arg) {
                        option_value(s, g, t[j + 1] ? t + j + 1 : i + 1 < s->n ? s->w[i + 1].text : NULL);
                        return t[j + 1] ? 1 : 2;
                }
        }
        return 1;
}

static void scan_globals(struct scan *s)
{
        size_t i = 1;

        if ((s->t->flags & T_PLUS) && i < s->n && s->w[i].text[0] == '+' && !(s->w[i].flags & PR_W_DYN))
                i++;
        while (i < s->n && !s->stop) {
                const char *t = s->w[i].text;
                if (s->w[i].flags & PR_W_DYN)
                        return;      /* the raw words are judged with it as unknown */
                if (strcmp(t, "--") == 0) {
                        sub_at(s, i + 1);
                        return;
                }
                if (t[0] != '-' || t[1] == '\0') {
                        sub_at(s, i);
                        return;
                }
                i += global_option(s, i);
        }
}

static const char *sub_alias(const char *prog, const char *sub)
{
        for (size_t a = 0; a < sizeof(sub_aliases) / sizeof(sub_aliases[0]); a++) {
                const struct sub_alias *al = &sub_aliases[a];
                size_t n = strlen(sub);
                if (strcmp(al->prog, prog) == 0 && n >= al->min && strncmp(al->canon, sub, n) == 0)
                        return al->canon;
        }
        return sub;
}

/* [prog, sub, words after sub, (globals, for options-anywhere tools), extras]. */
static int add_form(struct pr_forms *f, const char *prog, const char *sub, const struct pr_word *before, size_t nb,
                    const struct pr_word *after, size_t na, const char *const *extra)
{
        struct pr_word *w;
        size_t k = 0, ne = 0;

        while (extra && extra[ne])
                ne++;
        if (f->n >= PR_MAX_FORMS)
                return 0;
        w = calloc(2 + nb + na + ne, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w[k++] = (struct pr_word){ (char *) prog, 0 };
        w[k++] = (struct pr_word){ (char *) sub, 0 };
        for (size_t i = 0; i < na; i++)
                w[k++] = after[i];
        for (size_t i = 0; i < nb; i++)
                w[k++] = before[i];
        for (size_t i = 0; i < ne; i++)
                w[k++] = (struct pr_word){ (char *) extra[i], 0 };
        f->f[f->n++] = (struct pr_form){ w, k };
        return 0;
}

/* The forms for subcommand position `at` of tool t (words w[0..n)). */
static int sub_forms(struct pr_forms *f, const struct scan *s, size_t at)
{
        const char *prog = s->t->prog, *sub = sub_alias(prog, s->w[at].text);
        const char *extra[3] = { NULL, NULL, NULL };
        size_t nb = (s->t->flags & T_ANYWHERE) ? at - 1 : 0, ne = 0;
        const struct pr_word *before = s->w + 1;
        int r = 0;

        if (strcmp(prog, "git") == 0) {
                const char *why = git_sub_check(s->w[at].text, s->w + at + 1, s->n - at - 1);
                if (why && !f->ask)
                        f->ask = why;
                if (s->force)
                        extra[ne++] = "--force";
                if (s->mirror)
                        extra[ne++] = "--mirror";
        }
        if (at != 1 || sub != s->w[at].text || ne || strcmp(pr_basename(s->w[0].text), prog) != 0)
                r = add_form(f, prog, sub, before, nb, s->w + at + 1, s->n - at - 1, extra);
        if (r >= 0 && strcmp(prog, "git") == 0 && (strcmp(sub, "send-pack") == 0 || strcmp(sub, "http-push") == 0))
                r = add_form(f, prog, "push", before, nb, s->w + at + 1, s->n - at - 1, extra);
        return r;
}

/* `git-push ...` or /usr/lib/git-core/git-push: git with that subcommand. */
static int dashed_git(const struct pr_word *w, size_t n, struct pr_forms *f)
{
        const char *base = pr_basename(w[0].text), *sub = base + 4;
        struct pr_word *c = calloc(n + 1, sizeof(*c));
        int r;

        if (!c)
                return -ENOMEM;
        c[0] = (struct pr_word){ (char *) "git", 0 };
        c[1] = (struct pr_word){ (char *) sub, 0 };
        for (size_t i = 1; i < n; i++)
                c[i + 1] = w[i];
        r = pr_tool_forms(c, n + 1, f);
        if (r >= 0 && f->n == 0)
                r = add_form(f, "git", sub, NULL, 0, w + 1, n - 1, NULL);
        free(c);
        return r;
}

int pr_tool_forms(const struct pr_word *w, size_t n, struct pr_forms *ret)
{
        const char *base = pr_basename(w[0].text);
        struct scan s = { .w = w, .n = n };
        int r = 0;

        *ret = (struct pr_forms){ 0 };
        if (strncmp(base, "git-", 4) == 0 && base[4] && !strchr(base + 4, '/'))
                return dashed_git(w, n, ret);
        for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
                if (strcmp(base, tools[t].prog) == 0)
                        s.t = &tools[t];
        if (!s.t)
                return 0;
        scan_globals(&s);
        ret->ask = s.ask;
        for (size_t i = 0; i < s.n_subs && r >= 0; i++)
                r = sub_forms(ret, &s, s.subs[i]);
        if (r < 0)
                pr_forms_done(ret);
        return r;
}

void pr_forms_done(struct pr_forms *f)
{
        for (size_t i = 0; i < f->n; i++)
                free(f->f[i].w);
        *f = (struct pr_forms){ 0 };
}
