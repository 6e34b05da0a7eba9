/* SPDX-License-Identifier: MIT */
/*
 * Which git config keys make git run or load code, and the paths a value
 * names (issue 13, "Git reads more than .git/hooks and .git/config").
 * The table is the one list: protect_git.c applies it, stockade.yaml(5)
 * describes it, t/unit/test_gitconfig.c checks rows of it.  Keys follow
 * git-config(1) (git 2.39 and the hook.* of later versions); a key not in
 * the table whose value starts like a path or a command (/, ./, ../, ~/,
 * !) is taken as one too, so a key this list forgot is still covered when
 * its value points into the workspace.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "common/stk_buf.h"
#include "common/stk_util.h"
#include "gitconfig.h"

#define ROW(sec, sub, name, kind, why) { sec, sub, name, GITCFG_##kind, why }

const struct gitcfg_rule gitcfg_rules[] = {
        ROW("include", NULL, "path", INCLUDE, "another config file, read in place"),
        ROW("includeif", "*", "path", INCLUDE, "another config file, read when its condition holds (any condition: "
            "gitdir, onbranch and hasconfig are taken as holding)"),
        ROW("core", NULL, "hookspath", DIR, "git runs the hooks of this directory instead of .git/hooks"),
        ROW("core", NULL, "fsmonitor", BOOL_OR_COMMAND, "a hook git runs on every status to list changed files"),
        ROW("core", NULL, "sshcommand", COMMAND, "runs instead of ssh for every fetch and push"),
        ROW("core", NULL, "gitproxy", COMMAND, "runs to connect to git:// remotes"),
        ROW("core", NULL, "pager", COMMAND, "runs over git's paged output (log, diff, show)"),
        ROW("core", NULL, "editor", COMMAND, "runs for commit, tag and rebase messages"),
        ROW("core", NULL, "askpass", COMMAND, "runs to ask for a password"),
        ROW("core", NULL, "alternaterefscommand", COMMAND, "runs to list an alternate's references"),
        ROW("core", NULL, "worktree", WORKTREE, "where hooks and commands run, the base of relative paths"),
        ROW("sequence", NULL, "editor", COMMAND, "rebase -i runs it on the todo list"),
        ROW("diff", NULL, "external", COMMAND, "runs instead of git's own diff"),
        ROW("diff", "*", "textconv", COMMAND, "runs on each file of that diff driver before diffing"),
        ROW("diff", "*", "command", COMMAND, "an external diff driver"),
        ROW("merge", "*", "driver", COMMAND, "a merge driver, run on each conflicting file"),
        ROW("mergetool", "*", "cmd", COMMAND, "git mergetool runs it"),
        ROW("mergetool", "*", "path", FILE, "the program git mergetool runs"),
        ROW("difftool", "*", "cmd", COMMAND, "git difftool runs it"),
        ROW("difftool", "*", "path", FILE, "the program git difftool runs"),
        ROW("filter", "*", "clean", COMMAND, "runs on every file of that filter git adds (git status too)"),
        ROW("filter", "*", "smudge", COMMAND, "runs on every file of that filter git checks out"),
        ROW("filter", "*", "process", COMMAND, "a long-running filter, started by status, add and checkout"),
        ROW("credential", "?", "helper", COMMAND, "runs to get and store credentials (\"!\" a shell command, else "
            "git credential-<name> or a path)"),
        ROW("gpg", NULL, "program", COMMAND, "runs to sign and verify commits and tags"),
        ROW("gpg", "*", "program", COMMAND, "runs to sign and verify in that format (openpgp, x509, ssh)"),
        ROW("gpg", "*", "defaultkeycommand", COMMAND, "runs to find the signing key"),
        ROW("interactive", NULL, "difffilter", COMMAND, "add -p runs the diff through it"),
        ROW("pager", NULL, "*", BOOL_OR_COMMAND, "the pager of one git command, when not a boolean"),
        ROW("alias", NULL, "*", BANG, "\"!cmd\" runs a shell command; else git arguments, whose -c key=value "
            "are read as config"),
        ROW("submodule", "*", "update", BANG, "\"!cmd\" runs a shell command on submodule update"),
        ROW("hook", "*", "command", COMMAND, "a hook defined in config (git 2.46 and later)"),
        ROW("remote", "*", "uploadpack", COMMAND, "runs on fetch from a local or ssh remote"),
        ROW("remote", "*", "receivepack", COMMAND, "runs on push to a local or ssh remote"),
        ROW("remote", "*", "url", EXT_URL, "ext::<command> remotes run a command"),
        ROW("remote", "*", "pushurl", EXT_URL, "ext::<command> remotes run a command"),
        ROW("url", "*", "insteadof", EXT_URL, "rewrites URLs, into ext:: commands too"),
        ROW("url", "*", "pushinsteadof", EXT_URL, "rewrites push URLs, into ext:: commands too"),
        ROW("uploadpack", NULL, "packobjectshook", COMMAND, "runs instead of pack-objects when serving a fetch"),
        ROW("init", NULL, "templatedir", DIR, "git init and clone copy its hooks into the new repository"),
        ROW("browser", "*", "cmd", COMMAND, "git web--browse and help -w run it"),
        ROW("browser", "*", "path", FILE, "the browser program git runs"),
        ROW("man", "*", "cmd", COMMAND, "git help runs it"),
        ROW("man", "*", "path", FILE, "the man viewer git help runs"),
        ROW("imap", NULL, "tunnel", COMMAND, "git imap-send runs it"),
        ROW("sendemail", "?", "smtpserver", COMMAND, "an absolute path is a sendmail-like program"),
        ROW("sendemail", "?", "sendmailcmd", COMMAND, "git send-email runs it"),
        ROW("sendemail", "?", "tocmd", COMMAND, "git send-email runs it"),
        ROW("sendemail", "?", "cccmd", COMMAND, "git send-email runs it"),
        ROW("sendemail", "?", "headercmd", COMMAND, "git send-email runs it"),
        ROW("guitool", "*", "cmd", COMMAND, "git gui runs it"),
        ROW("instaweb", NULL, "httpd", COMMAND, "git instaweb runs it"),
        /* git's naming conventions, for the keys of tools this list does not name */
        ROW("*", "?", "cmd", COMMAND, "by git's convention a command to run"),
        ROW("*", "?", "command", COMMAND, "by git's convention a command to run"),
        ROW("*", "?", "program", COMMAND, "by git's convention a program to run"),
        ROW("*", "?", "helper", COMMAND, "by git's convention a helper program"),
        { NULL, NULL, NULL, GITCFG_NOT_CODE, NULL },
};

static bool part_is(const char *pat, const char *s, size_t len)
{
        return streq(pat, "*") || (strlen(pat) == len && strncmp(pat, s, len) == 0);
}

static bool sub_matches(const char *pat, const struct gitcfg_key *k)
{
        if (!pat)
                return !k->sub;
        return streq(pat, "?") || k->sub;
}

static bool looks_like_code(const char *v)
{
        return v && (v[0] == '/' || v[0] == '!' || strncmp(v, "./", 2) == 0 || strncmp(v, "../", 3) == 0 ||
                     strncmp(v, "~/", 2) == 0);
}

enum gitcfg_kind gitcfg_classify(const char *key, const char *value, const struct gitcfg_rule **ret_rule)
{
        struct gitcfg_key k;

        *ret_rule = NULL;
        if (gitcfg_split_key(key, &k) < 0)
                return GITCFG_NOT_CODE;
        for (const struct gitcfg_rule *r = gitcfg_rules; r->section; r++)
                if (part_is(r->section, k.section, k.section_len) && sub_matches(r->sub, &k) &&
                    part_is(r->name, k.name, strlen(k.name))) {
                        *ret_rule = r;
                        return r->kind;
                }
        return looks_like_code(value) ? GITCFG_COMMAND : GITCFG_NOT_CODE;
}

/* ---- shell words ------------------------------------------------------- */

enum token { TOK_END, TOK_WORD, TOK_SEP, TOK_REDIR };

struct lexer {
        const char *p;
        struct stk_buf word;
        bool opaque;            /* the word has an expansion: $x, $(...), `...` */
};

static bool is_op(char ch)
{
        return ch && strchr(";&|()\n<>", ch);
}

static bool is_blank(char ch)
{
        return ch == ' ' || ch == '\t';
}

static void lex_double(struct lexer *l)
{
        for (l->p++; *l->p && *l->p != '"'; l->p++) {
                if (*l->p == '\\' && l->p[1] && strchr("$`\"\\\n", l->p[1]))
                        l->p++;
                else if (*l->p == '$' || *l->p == '`')
                        l->opaque = true;
                if (*l->p != '\n' || l->p[-1] != '\\')
                        stk_buf_addc(&l->word, *l->p);
        }
        if (*l->p)
                l->p++;
}

static void lex_word(struct lexer *l)
{
        while (*l->p && !is_blank(*l->p) && !is_op(*l->p)) {
                char ch = *l->p;

                if (ch == '\'') {
                        const char *end = strchr(l->p + 1, '\'');
                        size_t n = end ? (size_t) (end - l->p - 1) : strlen(l->p + 1);
                        stk_buf_add(&l->word, l->p + 1, n);
                        l->p += n + 1 + (end != NULL);
                } else if (ch == '"') {
                        lex_double(l);
                } else if (ch == '\\' && l->p[1]) {
                        if (l->p[1] != '\n')
                                stk_buf_addc(&l->word, l->p[1]);
                        l->p += 2;
                } else {
                        l->opaque |= ch == '$' || ch == '`';
                        stk_buf_addc(&l->word, ch);
                        l->p++;
                }
        }
}

static enum token lex(struct lexer *l)
{
        stk_buf_truncate(&l->word, 0);
        l->opaque = false;
        while (is_blank(*l->p))
                l->p++;
        if (!*l->p)
                return TOK_END;
        if (*l->p == '#') {             /* a comment, to the end of the line */
                l->p += strcspn(l->p, "\n");
                return lex(l);
        }
        if (*l->p == '<' || *l->p == '>') {
                l->p += strspn(l->p, "<>&|");
                return TOK_REDIR;
        }
        if (is_op(*l->p)) {
                l->p += strspn(l->p, ";&|()\n");
                return TOK_SEP;
        }
        lex_word(l);
        return TOK_WORD;
}

/* ---- the words that name files ----------------------------------------- */

/* Where the walk of one simple command is. */
enum walk_state {
        W_COMMAND,      /* looking for the command word (past env, exec, VAR=x) */
        W_SCRIPT,       /* an interpreter's options, then its script */
        W_SHELL_STRING, /* the string of sh -c */
        W_SKIP_ONE,     /* the argument of python -m, perl -e: not a file */
        W_ARGS,         /* arguments */
};

enum interp { I_NONE, I_SHELL, I_OTHER };

struct walk {
        gitcfg_exists_fn exists;
        gitcfg_path_fn fn;
        void *userdata;
        unsigned depth;
        enum walk_state state;
        enum interp interp;
};

static const char *base_name(const char *w)
{
        const char *slash = strrchr(w, '/');

        return slash ? slash + 1 : w;
}

static bool in_list(const char *w, const char *const *list)
{
        for (size_t i = 0; list[i]; i++)
                if (streq(w, list[i]))
                        return true;
        return false;
}

/* Programs that run the next word as the command: `env X=1 ./hook`. */
static bool is_prefix(const char *w)
{
        static const char *const prefixes[] = { "env", "exec", "command", "nohup", "nice", "time", "sudo", "doas",
                                                "xargs", "stdbuf", "setsid", "timeout", "builtin", NULL };

        return in_list(base_name(w), prefixes);
}

static enum interp interpreter(const char *w)
{
        static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", NULL };
        static const char *const others[] = { "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua",
                                              "tclsh", "Rscript", "awk", "gawk", "osascript", NULL };
        const char *b = base_name(w);

        if (in_list(b, shells))
                return I_SHELL;
        if (in_list(b, others) || strncmp(b, "python", 6) == 0)
                return I_OTHER;
        return I_NONE;
}

static bool is_assignment(const char *w)
{
        size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

        return n > 0 && !isdigit((unsigned char) w[0]) && w[n] == '=';
}

/* An argument: a file if it has a slash or exists (an option's
 * --x=./file part too).  Not a URL, nor one with a % (git's placeholders,
 * %f of a filter, --format=%h/%s of an alias): each protected path that
 * is missing becomes a directory on the host for the run (fs_bwrap). */
static int maybe_path(struct walk *w, const char *word)
{
        if (word[0] == '-') {
                const char *eq = strchr(word, '=');
                if (!eq)
                        return 0;
                word = eq + 1;
        }
        if (!word[0] || strchr(word, '%') || strstr(word, "://"))
                return 0;
        if (!strchr(word, '/') && !w->exists(word, w->userdata))
                return 0;
        return w->fn(word, false, w->userdata);
}

static int command_word(struct walk *w, const char *word)
{
        int r = 0;

        if (is_assignment(word) || is_prefix(word) || word[0] == '-' || isdigit((unsigned char) word[0]))
                return 0; /* still before the command word */
        if (strchr(word, '/'))
                r = w->fn(word, true, w->userdata);
        w->interp = interpreter(word);
        w->state = w->interp == I_NONE ? W_ARGS : W_SCRIPT;
        return r;
}

/* An interpreter's option: -c (shells) takes a command string; -c, -e, -m
 * and their kin of the others take inline code or a module name. */
static void script_option(struct walk *w, const char *word)
{
        static const char *const inline_opts[] = { "-c", "-e", "-E", "-m", "--eval", "-r", "-x", NULL };

        if (w->interp == I_SHELL && word[1] != '-' && strchr(word + 1, 'c'))
                w->state = W_SHELL_STRING;
        else if (w->interp == I_OTHER && in_list(word, inline_opts))
                w->state = W_SKIP_ONE;
}

static int walk_commands(struct walk *w, const char *command);

static int on_word(struct walk *w, const char *word, bool opaque)
{
        if (!word[0])
                return 0; /* '' names no file (and is no command either) */
        if (opaque) {
                if (w->state == W_COMMAND || w->state == W_SCRIPT || w->state == W_SHELL_STRING)
                        w->state = W_ARGS; /* a command we cannot know: its arguments still count */
                return 0;
        }
        switch (w->state) {
        case W_COMMAND:
                return command_word(w, word);
        case W_SCRIPT:
                if (word[0] == '-') {
                        script_option(w, word);
                        return 0;
                }
                if (streq(word, "run") && w->interp == I_OTHER)
                        return 0; /* deno run x.ts, bun run x.ts */
                w->state = W_ARGS;
                return w->fn(word, true, w->userdata);
        case W_SHELL_STRING:
                w->state = W_ARGS;
                return w->depth < 4 ? walk_commands(&(struct walk) { .exists = w->exists, .fn = w->fn,
                                                                      .userdata = w->userdata,
                                                                      .depth = w->depth + 1 }, word)
                                    : 0;
        case W_SKIP_ONE:
                w->state = W_ARGS;
                return 0;
        case W_ARGS:
                return maybe_path(w, word);
        }
        return 0;
}

static int walk_commands(struct walk *w, const char *command)
{
        struct lexer l = { .p = command };
        bool redirect = false;
        enum token t;
        int r = 0;

        w->state = W_COMMAND;
        while (r >= 0 && (t = lex(&l)) != TOK_END) {
                if (l.word.err) {
                        r = -ENOMEM;
                        break;
                }
                if (t == TOK_SEP) {
                        w->state = W_COMMAND;
                } else if (t == TOK_REDIR) {
                        redirect = true;
                } else if (redirect) {
                        /* the file of a redirection: sh < script.sh reads code from it */
                        redirect = false;
                        if (!l.opaque)
                                r = maybe_path(w, l.word.s ? l.word.s : "");
                } else {
                        r = on_word(w, l.word.s ? l.word.s : "", l.opaque);
                }
        }
        if (r >= 0 && l.word.err)
                r = -ENOMEM;
        stk_buf_done(&l.word);
        return r;
}

int gitcfg_command_paths(const char *command, gitcfg_exists_fn exists, gitcfg_path_fn fn, void *userdata)
{
        struct walk w = { .exists = exists, .fn = fn, .userdata = userdata };

        if (command[0] == '!')
                command++;
        return walk_commands(&w, command);
}

/* ---- values ------------------------------------------------------------ */

/* A git boolean (git_parse_maybe_bool): no command then. */
static bool is_bool(const char *v)
{
        static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "1", "0", "", NULL };

        for (size_t i = 0; words[i]; i++)
                if (strcasecmp(v, words[i]) == 0)
                        return true;
        return false;
}

/* -c takes a key as a person writes it: section and name lowercased, as
 * the parser leaves them, the subsection kept. */
static void lower_key(char *key)
{
        char *first = strchr(key, '.'), *last = strrchr(key, '.');

        for (char *p = key; *p; p++)
                if (!first || p < first || p > last)
                        *p = (char) tolower((unsigned char) *p);
}

/* A git alias without "!": git arguments; each -c key=value is config for
 * the command it runs. */
static int alias_config(const char *value, gitcfg_exists_fn exists, gitcfg_path_fn fn, void *userdata)
{
        struct lexer l = { .p = value };
        _cleanup_free_ char *pending = NULL;
        bool next_is_config = false;
        int r = 0;

        while (r >= 0 && lex(&l) != TOK_END) {
                const char *w = l.word.s ? l.word.s : "";
                const char *kv = next_is_config ? w : strncmp(w, "-c", 2) == 0 && w[2] ? w + 2 : NULL;

                next_is_config = streq(w, "-c");
                if (!kv || !strchr(kv, '='))
                        continue;
                free(pending);
                pending = strdup(kv);
                if (!pending) {
                        r = -ENOMEM;
                        break;
                }
                *strchr(pending, '=') = '\0';
                lower_key(pending);
                r = gitcfg_value_paths(pending, pending + strlen(pending) + 1, exists, fn, userdata);
        }
        stk_buf_done(&l.word);
        return r;
}

int gitcfg_value_paths(const char *key, const char *value, gitcfg_exists_fn exists, gitcfg_path_fn fn,
                       void *userdata)
{
        const struct gitcfg_rule *rule;

        if (!value)
                return 0;
        switch (gitcfg_classify(key, value, &rule)) {
        case GITCFG_DIR:
        case GITCFG_FILE:
                return value[0] ? fn(value, true, userdata) : 0;
        case GITCFG_COMMAND:
                return gitcfg_command_paths(value, exists, fn, userdata);
        case GITCFG_BANG:
                if (value[0] == '!')
                        return gitcfg_command_paths(value, exists, fn, userdata);
                return alias_config(value, exists, fn, userdata);
        case GITCFG_BOOL_OR_COMMAND:
                return is_bool(value) ? 0 : gitcfg_command_paths(value, exists, fn, userdata);
        case GITCFG_EXT_URL:
                return strncmp(value, "ext::", 5) == 0 ? gitcfg_command_paths(value + 5, exists, fn, userdata) : 0;
        case GITCFG_INCLUDE:    /* relative to the including file: protect_git.c */
        case GITCFG_WORKTREE:   /* a base, not a file: protect_git.c */
        case GITCFG_NOT_CODE:
                return 0;
        }
        return 0;
}
