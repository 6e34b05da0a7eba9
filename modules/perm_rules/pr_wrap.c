/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: programs that run another program (env, sudo, timeout, ...)
 * and shells.  For each wrapper we know its options well enough to find
 * where the command starts; an option we do not know, or one that hides the
 * command (env -S, sudo -s), makes it opaque (ASK) rather than guessed.
 * GNU getopt_long also accepts abbreviated long options: we do not, so an
 * abbreviation is opaque too.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "pr_internal.h"

#include "pr_wrap.h"

/* The i-th wrapper's name, NULL past the end (explain, the man-page test). */
const char *pr_wrapper_name(size_t i)
{
        return i < pr_n_wrappers ? pr_wrappers[i].name : NULL;
}

/* Shells whose language we parse (bash's grammar covers POSIX sh, dash,
 * ksh and zsh's common ground), and shells we do not parse at all. */
const char *const pr_parsed_shells[] = { "sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "lksh", "ash",
                                             "posh", "yash", "rbash", NULL };
static const char *const other_shells[] = { "fish", "csh", "tcsh", "nu", "pwsh", "elvish", "xonsh", "rc", "es",
                                            "oksh", NULL };
static const char *const shell_long_ok[] = { "norc", "noprofile", "login", "posix", "verbose", "noediting",
                                             "restricted", NULL };

/* A path that names a stream rather than a file in the workspace:
 * /dev/stdin, /dev/fd/3, /proc/self/fd/3, /dev/tcp/..., also spelt
 * //dev/./stdin or ../../dev/stdin.  Any `dev` or `proc` component counts
 * (the working directory is unknown), and so does `-`. */
bool pr_is_stream_path(const char *path)
{
        if (strcmp(path, "-") == 0)
                return true;
        for (const char *c = path; *c;) {
                size_t n = strcspn(c, "/");
                if ((n == 3 && strncmp(c, "dev", 3) == 0) || (n == 4 && strncmp(c, "proc", 4) == 0))
                        return true;
                c += n;
                c += *c == '/';
        }
        return false;
}

const char *pr_basename(const char *path)
{
        const char *slash = strrchr(path, '/');

        return slash && slash[1] ? slash + 1 : path;
}

bool pr_is_identifier(const char *s, size_t n)
{
        if (n == 0 || !(s[0] == '_' || isalpha((unsigned char) s[0])))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!(s[i] == '_' || isalnum((unsigned char) s[i])))
                        return false;
        return true;
}

static bool in_list(const char *const *list, const char *s, size_t n)
{
        for (; list && *list; list++)
                if (strlen(*list) == n && strncmp(*list, s, n) == 0)
                        return true;
        return false;
}

static bool has(const char *set, char c)
{
        return set && c && strchr(set, c);
}

static int opaque(struct pr_unwrap *u, const char *why)
{
        u->kind = PR_UNWRAP_OPAQUE;
        u->why = why;
        return -1;
}

/* Reading one wrapper's words. */
struct wstate {
        const struct pr_wrapper *wr;
        const struct pr_word *w;
        size_t n;
        struct pr_unwrap *u;
        bool unjoined;        /* watch -x: the words are a command, not a string */
        bool direct;          /* runuser -u USER: the command follows, no operand */
        bool shell_dyn;       /* the shell string is an expansion */
};

/* The value of an option at word i: attached (`at`, non-NULL) or the next word. */
static const char *option_value(struct wstate *st, size_t i, const char *at)
{
        if (at)
                return at;
        if (i + 1 >= st->n)
                return NULL;
        st->shell_dyn |= (st->w[i + 1].flags & PR_W_DYN) != 0;
        return st->w[i + 1].text;
}

static int string_option(struct wstate *st, size_t i, const char *attached)
{
        const char *v = option_value(st, i, attached);

        if (!v)
                return opaque(st->u, "a wrapper option's shell string is missing");
        st->u->shell = v;
        return attached ? 1 : 2;
}

/* --name[=value]: how many words it takes (1 or 2), or -1 (u says why). */
static int long_option(struct wstate *st, size_t i)
{
        const struct pr_wrapper *wr = st->wr;
        const char *t = st->w[i].text, *name = t + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t) (eq - name) : strlen(name);
        struct pr_unwrap *u = st->u;

        if (in_list(wr->long_opaque, name, n))
                return opaque(u, "a wrapper option that hides the command (a shell, a split string)");
        if (in_list(wr->long_self, name, n)) {
                u->kind = PR_UNWRAP_SELF;
                return 1;
        }
        if (in_list(wr->long_shell, name, n))
                return string_option(st, i, eq ? eq + 1 : NULL);
        st->unjoined |= in_list(wr->long_unjoin, name, n);
        st->direct |= in_list(wr->long_direct, name, n);
        if ((wr->flags & W_XARGS) && n == 7 && strncmp(name, "replace", n) == 0)
                u->replace = eq ? eq + 1 : "{}";
        if (in_list(wr->long_noarg, name, n) || in_list(wr->long_unjoin, name, n) || (wr->flags & W_LONG_ANY))
                return 1;
        if (in_list(wr->long_arg, name, n) || in_list(wr->long_direct, name, n))
                return eq ? 1 : 2;
        return opaque(u, "an option perm_rules does not know for this wrapper");
}

/* -abc, -n5, -n 5: how many words it takes, or -1. */
static int short_options(struct wstate *st, size_t i)
{
        const struct pr_wrapper *wr = st->wr;
        const char *t = st->w[i].text, *next = i + 1 < st->n ? st->w[i + 1].text : NULL;
        struct pr_unwrap *u = st->u;

        for (size_t j = 1; t[j]; j++) {
                char c = t[j];
                if ((wr->flags & W_DIGITS) && isdigit((unsigned char) c))
                        return 1;
                if (has(wr->opaque, c))
                        return opaque(u, "a wrapper option that hides the command (a shell, a split string)");
                if (has(wr->self, c)) {
                        u->kind = PR_UNWRAP_SELF;
                        return 1;
                }
                if (has(wr->shell, c))
                        return string_option(st, i, t[j + 1] ? t + j + 1 : NULL);
                st->unjoined |= has(wr->unjoin, c);
                st->direct |= has(wr->direct, c);
                if (has(wr->arg, c) || has(wr->direct, c)) {
                        if ((wr->flags & W_XARGS) && c == 'I')
                                u->replace = t[j + 1] ? t + j + 1 : next;
                        return t[j + 1] ? 1 : 2;
                }
                if (has(wr->optarg, c)) {
                        if ((wr->flags & W_XARGS) && c == 'i')
                                u->replace = t[j + 1] ? t + j + 1 : "{}";
                        return 1;
                }
                if (!has(wr->noarg, c) && !has(wr->unjoin, c))
                        return opaque(u, "an option perm_rules does not know for this wrapper");
        }
        return 1;
}

static bool reading_options(const struct wstate *st)
{
        return st->u->kind != PR_UNWRAP_OPAQUE && st->u->kind != PR_UNWRAP_SELF && !st->u->shell;
}

/* The options of the wrapper from word i; returns the index of its first
 * operand. */
static size_t wrapper_options(struct wstate *st, size_t i)
{
        const struct pr_word *w = st->w;

        while (i < st->n && reading_options(st)) {
                const char *t = w[i].text, *next = i + 1 < st->n ? w[i + 1].text : NULL;
                int used;
                if (w[i].flags & PR_W_DYN) {
                        opaque(st->u, "a wrapper's option or command is an expansion");
                        break;
                }
                if (strcmp(t, "--") == 0)
                        return i + 1;
                if (t[0] != '-' || (t[1] == '\0' && !(st->wr->flags & W_DASH)))
                        break;
                used = t[1] == '\0' ? 1 : t[1] == '-' ? long_option(st, i) : short_options(st, i);
                if (used == 2 && (!next || (w[i + 1].flags & PR_W_DYN)) && !st->u->shell)
                        opaque(st->u, "a wrapper option's argument is missing or an expansion");
                if (used > 0)
                        i += (size_t) used;
        }
        return i;
}

/* NAME=value operands of env and sudo; `env $X cmd` is opaque: $X may be
 * an assignment or the command. */
static size_t wrapper_assignments(const struct pr_word *w, size_t n, size_t i, struct pr_unwrap *u)
{
        u->assign_from = i;
        for (; i < n; i++) {
                const char *eq = strchr(w[i].text, '=');
                bool literal_name = eq && eq != w[i].text && !memchr(w[i].text, '$', (size_t) (eq - w[i].text)) &&
                                    !memchr(w[i].text, '`', (size_t) (eq - w[i].text));
                if ((w[i].flags & PR_W_DYN) && !literal_name) {
                        opaque(u, "a wrapper's operand is an expansion: an assignment or the command?");
                        break;
                }
                if (!literal_name)
                        break;
        }
        u->assign_to = i;
        return i;
}

static const struct pr_wrapper *find_wrapper(const struct pr_word *w, size_t n)
{
        const char *base = pr_basename(w[0].text);

        for (size_t k = 0; k < pr_n_wrappers; k++) {
                const struct pr_wrapper *wr = &pr_wrappers[k];
                if (strcmp(base, wr->name) != 0)
                        continue;
                if (!wr->sub || (n > 1 && !(w[1].flags & PR_W_DYN) && strcmp(w[1].text, wr->sub) == 0))
                        return wr;
        }
        return NULL;
}

/* Where the command starts once the options are read: operands, options
 * after them, and what no command at all means. */
static void wrapper_rest(struct wstate *st, size_t i)
{
        const struct pr_wrapper *wr = st->wr;
        struct pr_unwrap *u = st->u;

        if (wr->flags & W_ASSIGNS)
                i = wrapper_assignments(st->w, st->n, i, u);
        for (unsigned k = 0; k < wr->operands && !st->direct && i < st->n && u->kind == PR_UNWRAP_INNER; k++, i++)
                if (st->w[i].flags & PR_W_SPLIT)
                        (void) opaque(u, "a wrapper's operand is an expansion: it may be several words");
        if ((wr->flags & W_OPTS_AFTER) && u->kind == PR_UNWRAP_INNER)
                i = wrapper_options(st, i);
        if (u->kind != PR_UNWRAP_INNER)
                return;
        if (u->shell) {
                u->kind = st->shell_dyn ? PR_UNWRAP_OPAQUE : PR_UNWRAP_SHELL;
                u->why = "a wrapper's shell string is an expansion";
        } else if (wr->flags & W_STRING_ONLY) {
                u->kind = PR_UNWRAP_OPAQUE;
                u->why = "without a command string it runs an interactive shell, which reads stdin";
        } else if (i >= st->n && !u->xargs) {
                u->kind = (wr->flags & W_BARE_SHELL) ? PR_UNWRAP_OPAQUE :
                          (wr->flags & W_EMPTY) ? PR_UNWRAP_EMPTY : PR_UNWRAP_SELF;
                u->why = "with no command it runs an interactive shell, which reads its commands from stdin";
        } else if ((wr->flags & W_JOINED) && !st->unjoined) {
                u->kind = PR_UNWRAP_SHELL;
                u->joined = true;
        }
        u->start = i;
}

int pr_unwrap(const struct pr_word *w, size_t n, struct pr_unwrap *ret)
{
        struct wstate st = { .wr = find_wrapper(w, n), .w = w, .n = n, .u = ret };

        *ret = (struct pr_unwrap){ .kind = PR_UNWRAP_NONE };
        if (!st.wr)
                return 0;
        ret->kind = PR_UNWRAP_INNER;
        ret->xargs = st.wr->flags & W_XARGS;
        wrapper_rest(&st, wrapper_options(&st, st.wr->sub ? 2 : 1));
        return 0;
}

static void shell_opaque(struct pr_shell *ret, const char *why)
{
        ret->kind = PR_SHELL_OPAQUE;
        ret->why = why;
}

/* One option word of a shell: -c sets *c; -o/-O take the next words.
 * Returns why it is opaque, or NULL. */
static const char *shell_option(const char *t, bool *c, size_t *need)
{
        for (size_t j = 1; t[j]; j++) {
                if (t[j] == 'c' && t[0] == '-')
                        *c = true;
                else if (t[j] == 's' && t[0] == '-')
                        return "a shell reading its commands from standard input";
                else if (t[j] == 'i')
                        return "an interactive shell runs its startup files";
                else if (t[j] == 'o' || t[j] == 'O')
                        (*need)++;
                else if (!isalpha((unsigned char) t[j]))
                        return "a shell option perm_rules does not know";
        }
        return NULL;
}

/* Returns the index of the first operand, or sets ret opaque. */
static size_t shell_options(const struct pr_word *w, size_t n, bool *c, struct pr_shell *ret)
{
        const char *why = NULL;
        size_t i = 1;

        for (; i < n && !why; i++) {
                const char *t = w[i].text;
                size_t need = 0;
                if (w[i].flags & PR_W_DYN) {
                        why = "a shell option is an expansion";
                } else if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
                        return i + 1;
                } else if (t[0] == '-' && t[1] == '-') {
                        if (!in_list(shell_long_ok, t + 2, strlen(t + 2)))
                                why = "a shell option perm_rules does not know (or a startup file)";
                } else if ((t[0] != '-' && t[0] != '+') || !t[1]) {
                        return i;
                } else if (!(why = shell_option(t, c, &need)) && i + need >= n) {
                        why = "a shell option's argument is missing";
                } else {
                        i += need;
                }
        }
        if (why)
                shell_opaque(ret, why);
        return i;
}

void pr_shell_args(const struct pr_word *w, size_t n, struct pr_shell *ret)
{
        const char *base = pr_basename(w[0].text);
        bool c = false;
        size_t i;

        *ret = (struct pr_shell){ .kind = PR_SHELL_NONE };
        if (in_list(other_shells, base, strlen(base))) {
                shell_opaque(ret, "a shell whose language perm_rules does not parse");
                return;
        }
        if (!in_list(pr_parsed_shells, base, strlen(base)))
                return;
        i = shell_options(w, n, &c, ret);
        if (ret->kind == PR_SHELL_OPAQUE)
                return;
        if (i >= n)
                shell_opaque(ret, c ? "a shell -c without a command string"
                                    : "a shell reading its commands from standard input "
                                      "(a pipe or here-document into a shell)");
        else if (w[i].flags & PR_W_DYN)
                shell_opaque(ret, c ? "a shell's command string is an expansion"
                                    : "a shell's script file is an expansion");
        else if (!c && pr_is_stream_path(w[i].text))
                shell_opaque(ret, "a shell reading its script from a pipe, a descriptor or a device "
                                  "(/dev/stdin, /dev/fd/N, /proc/self/fd/N)");
        else
                *ret = (struct pr_shell){ c ? PR_SHELL_STRING : PR_SHELL_FILE, i, NULL };
}

/* Variables that choose which program a name runs, or make a shell or a
 * program run code of the variable's choosing. */
static const char *const risky_names[] = {
        "PATH", "BASH_ENV", "ENV", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "ZDOTDIR", "SHELL",
        "BASH_LOADABLES_PATH", "GCONV_PATH", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME",
        "PERL5OPT", "PERL5LIB", "RUBYOPT", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "GIT_SSH",
        "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_TEMPLATE_DIR",
        /* where git, npm and others find configuration that names programs (issue 14) */
        "HOME", "XDG_CONFIG_HOME", "GIT_DIR", "RUSTC_WRAPPER", "RUSTC", "RUSTDOC", "NODE_PATH", NULL,
};
static const char *const risky_prefixes[] = { "LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG", "npm_config_",
                                              "NPM_CONFIG_", NULL };
static const char *const risky_suffixes[] = { "PAGER", "EDITOR", "_COMMAND", "_RUNNER", NULL };

/* NODE_OPTIONS flags that change limits and messages, not what runs
 * (--require, --import, --loader do: they are not here). */
static const char *const node_options_ok[] = {
        "--max-old-space-size=*", "--max-semi-space-size=*", "--stack-size=*", "--no-warnings", "--no-deprecation",
        "--trace-warnings", "--trace-deprecation", "--throw-deprecation", "--enable-source-maps",
        "--unhandled-rejections=*", "--openssl-legacy-provider", "--experimental-vm-modules",
        "--dns-result-order=*", "--max-http-header-size=*", "--trace-uncaught", "--no-experimental-fetch",
        "--experimental-specifier-resolution=node", "--heapsnapshot-near-heap-limit=*", "--use-openssl-ca", NULL,
};

/* A value that keeps a variable harmless (issue 14's clarifications), or
 * false for the name-based rule. */
static bool harmless_value(const char *name, size_t n, const char *value)
{
        if (n == 4 && strncmp(name, "PATH", 4) == 0)   /* appending: the old directories come first */
                return strcmp(value, "$PATH") == 0 || strncmp(value, "$PATH:", 6) == 0 ||
                       strncmp(value, "${PATH}:", 8) == 0 || strncmp(value, "\"$PATH\":", 8) == 0;
        if (n == 10 && strncmp(name, "PYTHONPATH", 10) == 0) {   /* workspace code is the sandbox's business */
                const char *dollar = strchr(value, '$');
                return !dollar || strncmp(dollar, "$PYTHONPATH", 11) == 0;
        }
        if (n == 12 && strncmp(name, "NODE_OPTIONS", 12) == 0) {
                for (const char *t = value; *t;) {
                        size_t len = strcspn(t, " \t");
                        char flag[128];
                        bool ok = false;
                        if (len >= sizeof(flag))
                                return false;
                        memcpy(flag, t, len);
                        flag[len] = '\0';
                        for (const char *const *f = node_options_ok; *f && !ok && len; f++)
                                ok = fnmatch(*f, flag, 0) == 0 && !strpbrk(flag, "$`");
                        if (len && !ok)
                                return false;
                        t += len;
                        t += strspn(t, " \t");
                }
                return true;
        }
        return false;
}

const char *pr_risky_assignment(const char *assign)
{
        size_t n = strcspn(assign, "=[");
        const char *lb = assign[n] == '[' ? assign + n : NULL;

        if (n && assign[n - 1] == '+')
                n--;
        if (lb) {
                size_t len = strcspn(lb + 1, "]");
                if (len == 0 || lb[1 + len] != ']' || strspn(lb + 1, "0123456789") != len)
                        return "an array subscript in an assignment is arithmetic: it can run commands "
                               "hidden in a variable";
        }
        if (assign[n] == '=' && harmless_value(assign, n, assign + n + 1))
                return NULL;
        if (assign[n] == '+' && assign[n + 1] == '=' && n == 4 && strncmp(assign, "PATH", 4) == 0 &&
            assign[n + 2] == ':')
                return NULL;   /* PATH+=:dir appends */
        if (in_list(risky_names, assign, n))
                return "this variable chooses which program runs, or makes one run its value";
        for (const char *const *p = risky_prefixes; *p; p++)
                if (strncmp(assign, *p, strlen(*p)) == 0)
                        return "this variable chooses which program runs, or makes one run its value";
        for (const char *const *s = risky_suffixes; *s; s++)
                if (n >= strlen(*s) && strncmp(assign + n - strlen(*s), *s, strlen(*s)) == 0)
                        return "this variable chooses which program runs, or makes one run its value";
        return NULL;
}
