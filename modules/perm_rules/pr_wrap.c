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
#include <string.h>

#include "pr_internal.h"

enum {
        W_ASSIGNS = 1u << 0,    /* NAME=value operands before the command (env, sudo) */
        W_OPERAND = 1u << 1,    /* one operand before the command (timeout DURATION) */
        W_DIGITS  = 1u << 2,    /* -N is an option (nice -10) */
        W_DASH    = 1u << 3,    /* a lone `-` is an option (env -) */
        W_XARGS   = 1u << 4,    /* -I / -i / --replace name the stand-in for input */
        W_EMPTY   = 1u << 5,    /* alone, it runs nothing (exec >log, time, command) */
};

struct wrapper {
        const char *name;
        const char *noarg, *arg, *optarg;  /* short options: none, one, attached-only argument */
        const char *opaque, *self;         /* short options that hide the command / run none */
        const char *const *long_noarg, *const *long_arg, *const *long_opaque, *const *long_self;
        unsigned flags;
};

#define L(...) (const char *const[]){ __VA_ARGS__, NULL }

static const struct wrapper wrappers[] = {
        { "env", "i0v", "uC", NULL, "S", NULL,
          L("ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal",
            "list-signal-handling"), L("unset", "chdir"), L("split-string"), NULL, W_ASSIGNS | W_DASH },
        { "nice", NULL, "n", NULL, NULL, NULL, NULL, L("adjustment"), NULL, NULL, W_DIGITS },
        { "nohup", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 },
        { "timeout", "v", "ks", NULL, NULL, NULL, L("preserve-status", "foreground", "verbose"),
          L("kill-after", "signal"), NULL, NULL, W_OPERAND },
        { "xargs", "0prtx", "aEdILnPs", "eil", NULL, NULL,
          L("null", "interactive", "verbose", "exit", "no-run-if-empty", "show-limits", "open-tty",
            "eof", "replace", "max-lines"),
          L("arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"),
          NULL, NULL, W_XARGS },
        { "sudo", "AbEHnPSk", "ugCDprtTU", NULL, "shi", "eKlvV",
          L("askpass", "background", "preserve-env", "set-home", "non-interactive", "preserve-groups",
            "stdin", "reset-timestamp", "bell"),
          L("user", "group", "close-from", "chdir", "prompt", "role", "type", "command-timeout",
            "other-user", "login-class"),
          L("shell", "login", "host", "help"), L("edit", "list", "validate", "version", "remove-timestamp"),
          W_ASSIGNS },
        { "doas", "n", "u", NULL, "sC", "L", NULL, NULL, NULL, NULL, 0 },
        { "command", "p", NULL, NULL, NULL, "vV", NULL, NULL, NULL, NULL, W_EMPTY },
        { "builtin", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, W_EMPTY },
        { "exec", "cl", "a", NULL, NULL, NULL, NULL, NULL, NULL, NULL, W_EMPTY },
        { "time", "pvqa", "fo", NULL, NULL, NULL, L("portability", "verbose", "quiet", "append"),
          L("format", "output"), NULL, NULL, W_EMPTY },
        { "setsid", "cfw", NULL, NULL, NULL, NULL, L("ctty", "fork", "wait"), NULL, NULL, NULL, 0 },
        { "stdbuf", NULL, "ioe", NULL, NULL, NULL, NULL, L("input", "output", "error"), NULL, NULL, 0 },
        { "busybox", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 },
};

/* The i-th wrapper's name, NULL past the end (explain, the man-page test). */
const char *pr_wrapper_name(size_t i)
{
        return i < sizeof(wrappers) / sizeof(wrappers[0]) ? wrappers[i].name : NULL;
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

/* --name[=value]: how many words it takes (1 or 2), or -1 (u says why). */
static int long_option(const struct wrapper *wr, const char *t, struct pr_unwrap *u)
{
        const char *name = t + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t) (eq - name) : strlen(name);

        if (in_list(wr->long_opaque, name, n))
                return opaque(u, "a wrapper option that hides the command (a shell, a split string)");
        if (in_list(wr->long_self, name, n)) {
                u->kind = PR_UNWRAP_SELF;
                return 1;
        }
        if ((wr->flags & W_XARGS) && n == 7 && strncmp(name, "replace", n) == 0)
                u->replace = eq ? eq + 1 : "{}";
        if (in_list(wr->long_noarg, name, n))
                return 1;
        if (in_list(wr->long_arg, name, n))
                return eq ? 1 : 2;
        return opaque(u, "an option perm_rules does not know for this wrapper");
}

/* -abc, -n5, -n 5: how many words it takes, or -1. */
static int short_options(const struct wrapper *wr, const char *t, const char *next, struct pr_unwrap *u)
{
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
                if (has(wr->arg, c)) {
                        if ((wr->flags & W_XARGS) && c == 'I')
                                u->replace = t[j + 1] ? t + j + 1 : next;
                        return t[j + 1] ? 1 : 2;
                }
                if (has(wr->optarg, c)) {
                        if ((wr->flags & W_XARGS) && c == 'i')
                                u->replace = t[j + 1] ? t + j + 1 : "{}";
                        return 1;
                }
                if (!has(wr->noarg, c))
                        return opaque(u, "an option perm_rules does not know for this wrapper");
        }
        return 1;
}

/* The options of wrapper `wr`; returns the index of its first operand. */
static size_t wrapper_options(const struct wrapper *wr, const struct pr_word *w, size_t n, struct pr_unwrap *u)
{
        size_t i = 1;

        while (i < n && u->kind != PR_UNWRAP_OPAQUE && u->kind != PR_UNWRAP_SELF) {
                const char *t = w[i].text, *next = i + 1 < n ? w[i + 1].text : NULL;
                int used;
                if (w[i].flags & PR_W_DYN) {
                        opaque(u, "a wrapper's option or command is an expansion");
                        break;
                }
                if (strcmp(t, "--") == 0)
                        return i + 1;
                if (t[0] != '-' || (t[1] == '\0' && !(wr->flags & W_DASH)))
                        break;
                used = t[1] == '\0' ? 1 : t[1] == '-' ? long_option(wr, t, u) : short_options(wr, t, next, u);
                if (used == 2 && (!next || (w[i + 1].flags & PR_W_DYN)))
                        opaque(u, "a wrapper option's argument is missing or an expansion");
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

int pr_unwrap(const struct pr_word *w, size_t n, struct pr_unwrap *ret)
{
        const char *base = pr_basename(w[0].text);
        const struct wrapper *wr = NULL;
        size_t i;

        *ret = (struct pr_unwrap){ .kind = PR_UNWRAP_NONE };
        for (size_t k = 0; k < sizeof(wrappers) / sizeof(wrappers[0]); k++)
                if (strcmp(base, wrappers[k].name) == 0)
                        wr = &wrappers[k];
        if (!wr)
                return 0;
        ret->kind = PR_UNWRAP_INNER;
        ret->xargs = wr->flags & W_XARGS;
        i = wrapper_options(wr, w, n, ret);
        if (ret->kind != PR_UNWRAP_INNER)
                return 0;
        if (wr->flags & W_ASSIGNS)
                i = wrapper_assignments(w, n, i, ret);
        if (ret->kind == PR_UNWRAP_INNER && (wr->flags & W_OPERAND) && i < n) {
                if (w[i].flags & PR_W_SPLIT)
                        (void) opaque(ret, "a wrapper's operand is an expansion: it may be several words");
                i++;
        }
        if (ret->kind != PR_UNWRAP_INNER)
                return 0;
        if (i >= n && !ret->xargs)
                ret->kind = (wr->flags & W_EMPTY) ? PR_UNWRAP_EMPTY : PR_UNWRAP_SELF;
        ret->start = i;
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
        "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_TEMPLATE_DIR", NULL,
};
static const char *const risky_prefixes[] = { "LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG", NULL };
static const char *const risky_suffixes[] = { "PAGER", "EDITOR", "_COMMAND", NULL };

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
