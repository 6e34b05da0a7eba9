/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: the decision for one request.  Every simple command the
 * shell would run is judged: through wrappers (each wrapper layer is also
 * checked against the deny and ask patterns, so `deny: ["sudo *"]` works),
 * into nested `sh -c` strings and `find -exec`, with builtins that run code
 * we cannot see (eval, source, trap, ...) as ASK.  The worst verdict wins:
 * deny > ask > ignore > allow.  Ignore outranks allow so that one
 * unmatched command under `default: ignore` leaves the whole request to the
 * other lines instead of riding along with an allowed one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

struct walk {
        const struct pr_rules *rules;
        struct pr_result *res;
        bool over_limit;   /* PR_MAX_CMDS reached: said once */
        bool stdin_literal; /* the simple command being walked reads a here-document */
        struct pr_written written;  /* files the string writes, in order */
        const char *cwd;            /* the request's, canonical; NULL: unknown */
        const char *const *protected; /* the run's protected paths (absolute, canonical); NULL: none known */
};

static int rank(enum stk_verdict v)
{
        switch (v) {
        case STK_ALLOW: return 1;
        case STK_IGNORE: return 2;
        case STK_ASK: return 3;
        case STK_DENY: return 4;
        default: return 0;
        }
}

/* The words as one line for the log: quoted where a word has blanks. */
static char *command_text(const struct pr_word *w, size_t n)
{
        struct stk_buf b = { 0 };

        for (size_t i = 0; i < n && b.len < 400; i++) {
                bool quote = !w[i].text[0] || strpbrk(w[i].text, " \t\n");
                if (i)
                        stk_buf_addc(&b, ' ');
                if (quote)
                        stk_buf_addc(&b, '\'');
                stk_buf_add(&b, w[i].text, strlen(w[i].text));
                if (quote)
                        stk_buf_addc(&b, '\'');
        }
        if (b.len >= 400) {
                stk_buf_truncate(&b, 400);
                stk_buf_add(&b, "...", 3);
        }
        return stk_buf_take(&b);
}

static void record(struct walk *k, char *command, enum stk_verdict v, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Takes `command` (NULL when out of memory). */
static void record(struct walk *k, char *command, enum stk_verdict v, const char *fmt, ...)
{
        struct pr_result *r = k->res;
        char *why = NULL;
        va_list ap;

        if (rank(v) > rank(r->verdict))
                r->verdict = v;
        if (r->n >= PR_MAX_ENTRIES) {
                r->dropped++;
                free(command);
                return;
        }
        va_start(ap, fmt);
        if (vasprintf(&why, fmt, ap) < 0)
                why = NULL;
        va_end(ap);
        if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 8;
                struct pr_entry *ne = stk_reallocarray(r->entries, cap, sizeof(*ne));
                if (ne) {
                        r->entries = ne;
                        r->cap = cap;
                }
        }
        if (!command || !why || r->n == r->cap) {
                r->oom = true;
                free(command);
                free(why);
                return;
        }
        r->entries[r->n++] = (struct pr_entry){ command, v, why };
}

static void record_words(struct walk *k, const struct pr_word *w, size_t n, enum stk_verdict v, const char *why)
{
        record(k, command_text(w, n), v, "%s", why);
}

static void record_judgement(struct walk *k, const struct pr_word *w, size_t n, const struct pr_judgement *j)
{
        if (!j->pattern)
                record(k, command_text(w, n), j->verdict, "default (no pattern matches)");
        else
                record(k, command_text(w, n), j->verdict, "%s \"%s\"%s", pr_kind_name(j->kind), j->pattern->text,
                       j->unsure ? " may match: some words are known only at run time" : "");
}

/* A wrapper or shell layer: only deny and ask patterns apply to it. */
static void judge_layer(struct walk *k, const struct pr_word *w, size_t n)
{
        struct pr_judgement j;

        pr_rules_judge_layer(k->rules, w, n, &j);
        if (j.verdict != STK_VERDICT_UNSET)
                record_judgement(k, w, n, &j);
}

static void check_assignment(struct walk *k, const char *assign)
{
        const char *why = pr_risky_assignment(assign);

        if (why)
                record(k, strdup(assign), STK_ASK, "assignment: %s", why);
}

static void check_words(struct walk *k, const struct pr_word *w, size_t n, int shells, int hops);

/* A write target inside a protected path (the sandbox's own list, .git/
 * included) is DENY: the sandbox would refuse it too, and the agent should
 * hear why before anything runs. */
static void check_write_target(struct walk *k, const char *target)
{
        char *abs;
        const char *hit;

        if (!k->protected || (!k->cwd && target[0] != '/'))
                return;
        abs = pr_path_join(k->cwd, target);
        if (!abs) {
                k->res->oom = true;
                return;
        }
        hit = pr_path_under(abs, k->protected);
        if (hit)
                record(k, strdup(target), STK_DENY, "writes into a protected path (%s)", hit);
        free(abs);
}

static bool cmd_is(const struct pr_cmd *c, const char *const *words)
{
        size_t n = 0;

        if (c->opaque || c->n_assigns)
                return false;
        for (; words[n]; n++)
                if (n >= c->n_words || (c->words[n].flags & PR_W_DYN) || strcmp(c->words[n].text, words[n]) != 0)
                        return false;
        return n == c->n_words;
}

/* Claude Code runs every command as
 *   source SNAPSHOT 2>/dev/null || true && shopt -u extglob 2>/dev/null || true
 *     && eval 'CMD' < /dev/null && pwd -P >| $CLAUDE_CODE_TMPDIR/claude-XXXX-cwd
 * (issue 16).  With SNAPSHOT in trusted_sources, the simple commands other
 * than the eval are the client's bookkeeping, harmless builtins whatever
 * joins them: the string is judged as CMD.  Returns the index of the eval,
 * or l->n when the list has another shape. */
static size_t client_wrapper(const struct pr_rules *k, const struct pr_cmdlist *l)
{
        static const char *const truth[] = { "true", NULL }, *const shopt[] = { "shopt", "-u", "extglob", NULL },
                                 *const pwd[] = { "pwd", "-P", NULL };
        size_t i = 0;

        if (l->n >= 2 && l->cmds[0].n_words == 2 && cmd_is(&l->cmds[1], truth) && !l->cmds[0].opaque &&
            !l->cmds[0].n_assigns && strcmp(l->cmds[0].words[0].text, "source") == 0 &&
            !(l->cmds[0].words[1].flags & PR_W_DYN) && pr_rules_trusted(k, l->cmds[0].words[1].text))
                i = 2;
        else
                return l->n;
        if (i + 1 < l->n && cmd_is(&l->cmds[i], shopt) && cmd_is(&l->cmds[i + 1], truth))
                i += 2;
        if (i + 2 != l->n || !cmd_is(&l->cmds[i + 1], pwd) || l->cmds[i].opaque || l->cmds[i].n_words == 0 ||
            strcmp(l->cmds[i].words[0].text, "eval") != 0)
                return l->n;
        return i;
}

static void check_list(struct walk *k, const struct pr_cmdlist *l, int shells)
{
        size_t wrapped = client_wrapper(k->rules, l);

        for (size_t i = 0; i < l->n; i++) {
                const struct pr_cmd *c = &l->cmds[i];
                if (wrapped < l->n && i != wrapped)
                        continue;
                if (c->opaque) {
                        record(k, strdup("(shell string)"), STK_ASK, "cannot see through: %s", c->opaque);
                        continue;
                }
                for (size_t a = 0; a < c->n_assigns; a++)
                        check_assignment(k, c->assigns[a]);
                k->stdin_literal = c->stdin_literal;
                check_words(k, c->words, c->n_words, shells, 0);
                for (size_t w = 0; w < c->n_writes; w++) {
                        check_write_target(k, c->writes[w]);
                        pr_written_add(&k->written, c->writes[w]);
                }
                k->written.dyn |= c->write_dyn;
        }
        if (l->overflow)
                record(k, strdup("(shell string)"), STK_ASK, "cannot see through: more simple commands than "
                       "perm_rules judges");
}

static void nested_shell(struct walk *k, const char *script, int shells)
{
        struct pr_cmdlist l = { 0 };

        if (shells >= PR_MAX_SHELLS) {
                record(k, strdup(script), STK_ASK, "cannot see through: shells nested deeper than perm_rules follows");
                return;
        }
        if (pr_split(script, &l) < 0)
                k->res->oom = true;
        check_list(k, &l, shells + 1);
        pr_cmdlist_done(&l);
}

/* A copy of the words (texts shared) with room for one more. */
static struct pr_word *words_copy(const struct pr_word *w, size_t n)
{
        struct pr_word *c = calloc(n + 1, sizeof(*c));

        if (c && n)
                memcpy(c, w, n * sizeof(*c));
        return c;
}

/* xargs runs its command with words read from stdin appended, or with each
 * -I stand-in replaced by a line of it. */
static void check_xargs(struct walk *k, const struct pr_word *w, size_t n, const char *replace, int shells, int hops)
{
        static const struct pr_word echo = { (char *) "echo", 0 };
        static const struct pr_word input = { (char *) "<words from stdin>", PR_W_DYN | PR_W_SPLIT };
        struct pr_word *c;

        if (n == 0) {
                w = &echo;
                n = 1;
        }
        c = words_copy(w, n);
        if (!c) {
                k->res->oom = true;
                return;
        }
        if (replace) {
                for (size_t i = 0; i < n; i++)
                        if (strstr(c[i].text, replace))
                                c[i].flags |= PR_W_DYN;
        } else {
                c[n++] = input;
        }
        check_words(k, c, n, shells, hops);
        free(c);
}

/* find -exec/-execdir/-ok/-okdir CMD ... ; (or {} +): CMD runs too. */
static void check_find(struct walk *k, const struct pr_word *w, size_t n, int shells, int hops)
{
        static const char *const actions[] = { "-exec", "-execdir", "-ok", "-okdir", NULL };

        for (size_t i = 1; i < n; i++) {
                bool is_action = false, plus = false;
                size_t start = i + 1, j;
                for (const char *const *a = actions; *a; a++)
                        is_action |= !(w[i].flags & PR_W_DYN) && strcmp(w[i].text, *a) == 0;
                if (!is_action)
                        continue;
                for (j = start; j < n; j++) {
                        if (w[j].flags & PR_W_DYN)
                                continue;
                        if (strcmp(w[j].text, ";") == 0)
                                break;
                        if (strcmp(w[j].text, "+") == 0 && j > start && strcmp(w[j - 1].text, "{}") == 0) {
                                plus = true;
                                break;
                        }
                }
                if (j >= n) {
                        record_words(k, w, n, STK_ASK, "cannot see through: find -exec without ; or +");
                        return;
                }
                struct pr_word *c = words_copy(w + start, j - start);
                if (!c) {
                        k->res->oom = true;
                        return;
                }
                for (size_t m = 0; m < j - start; m++)
                        if (strstr(c[m].text, "{}"))
                                c[m].flags |= PR_W_DYN | (plus ? PR_W_SPLIT : 0);
                check_words(k, c, j - start, shells, hops + 1);
                free(c);
                i = j;
        }
}

struct builtin_rule {
        const char *name;
        const char *why;
};

/* Shell builtins that run code perm_rules cannot read. */
static const struct builtin_rule opaque_builtins[] = {
        { "trap", "trap runs its string later" },
        { "alias", "an alias makes a name run other words" },
        { "enable", "enable can load a builtin from a shared object" },
        { "fc", "fc runs commands from the history" },
        { "let", "let is arithmetic: it can run commands hidden in a variable" },
        { "bind", "bind -x runs commands" },
        { "complete", "complete -C runs commands" },
        { "compgen", "compgen -C runs commands" },
        { NULL, NULL },
};

/* Builtins taking variable names: bash expands a subscript in a name
 * (printf -v 'a[$(cmd)]' runs cmd). */
static const char *const name_builtins[] = { "declare", "typeset", "local", "export", "readonly", "unset", "read",
                                             "printf", "wait", "getopts", "test", "[", "mapfile", "readarray", NULL };
static const char *const declaration_builtins[] = { "declare", "typeset", "local", "export", "readonly", NULL };

static bool listed(const char *const *list, const char *s)
{
        for (; *list; list++)
                if (strcmp(*list, s) == 0)
                        return true;
        return false;
}

static bool option_has(const struct pr_word *w, size_t n, char c)
{
        for (size_t i = 1; i < n; i++)
                if (w[i].text[0] == '-' && strchr(w[i].text + 1, c))
                        return true;
        return false;
}

/* alias, alias -p, alias NAME: prints definitions, defines none (a client's
 * shell snapshot lists the aliases so: `alias | sed ... >> SNAPSHOT`). */
static bool alias_only_prints(const struct pr_word *w, size_t n)
{
        for (size_t i = 1; i < n; i++)
                if ((w[i].flags & PR_W_DYN) || strchr(w[i].text, '='))
                        return false;
        return true;
}

static void check_builtin(struct walk *k, const struct pr_word *w, size_t n)
{
        const char *name = w[0].text;

        if (strchr(name, '/'))
                return;
        for (const struct builtin_rule *b = opaque_builtins; b->name; b++)
                if (strcmp(name, b->name) == 0 && !(strcmp(name, "alias") == 0 && alias_only_prints(w, n)))
                        record_words(k, w, n, STK_ASK, b->why);
        if ((strcmp(name, "hash") == 0 && option_has(w, n, 'p')) ||
            ((strcmp(name, "mapfile") == 0 || strcmp(name, "readarray") == 0) && option_has(w, n, 'C')))
                record_words(k, w, n, STK_ASK, "this option makes a name run a program or a callback");
        if (listed(declaration_builtins, name)) {
                if (option_has(w, n, 'i'))
                        record_words(k, w, n, STK_ASK, "an integer variable evaluates what is assigned to it "
                                     "as arithmetic, which can run commands");
                for (size_t i = 1; i < n; i++)
                        if (w[i].text[0] != '-' && strchr(w[i].text, '='))
                                check_assignment(k, w[i].text);
        }
        if (listed(declaration_builtins, name) && option_has(w, n, 'n'))
                record_words(k, w, n, STK_ASK, "a name reference assigns through another name, "
                             "which may be PATH or BASH_ALIASES");
        if (listed(name_builtins, name))
                for (size_t i = 1; i < n; i++)
                        if (strstr(w[i].text, "BASH_ALIASES") || strstr(w[i].text, "BASH_CMDS")) {
                                record_words(k, w, n, STK_ASK, "writing BASH_ALIASES or BASH_CMDS makes a "
                                             "name run another program");
                                break;
                        }
        if (listed(name_builtins, name))
                for (size_t i = 1; i < n; i++)
                        if (strchr(w[i].text, '[') && (strchr(w[i].text, '$') || strchr(w[i].text, '`'))) {
                                record_words(k, w, n, STK_ASK, "a subscripted variable name: bash evaluates "
                                             "the subscript, which can run commands");
                                break;
                        }
}

/* Words from `from` joined by blanks, parsed as a script (eval, watch,
 * sg); with an expansion among them the string is built at run time: ASK
 * for `why`. */
static void run_joined(struct walk *k, const struct pr_word *w, size_t n, size_t from, int shells, const char *why)
{
        struct stk_buf b = { 0 };
        char *script;

        for (size_t i = from; i < n; i++)
                if (w[i].flags & PR_W_DYN) {
                        record_words(k, w, n, STK_ASK, why);
                        return;
                }
        for (size_t i = from; i < n; i++) {
                if (i > from)
                        stk_buf_addc(&b, ' ');
                stk_buf_add(&b, w[i].text, strlen(w[i].text));
        }
        script = stk_buf_take(&b);
        if (!script) {
                k->res->oom = true;
                return;
        }
        nested_shell(k, script, shells);
        free(script);
}

/* eval of literal words runs their text, joined by blanks, as a script:
 * it is parsed like `sh -c` (Claude Code wraps every command in
 * `eval '<cmd>'`).  An expansion among them is built at run time: ASK. */
static void check_eval(struct walk *k, const struct pr_word *w, size_t n, int shells)
{
        size_t i = 1;

        if (i < n && strcmp(w[i].text, "--") == 0 && !(w[i].flags & PR_W_DYN))
                i++;
        run_joined(k, w, n, i, shells, "eval runs a string built at run time");
}

/* "$HOME/F" or "${HOME}/F", the only expansion HOME (an assignment to
 * HOME in the string is ASK of its own): the caller's $HOME, so the file is
 * known; true when it is in trusted_sources (Claude Code's snapshot script
 * sources "$HOME/.bashrc", read-only in the sandbox). */
static bool trusted_home_source(struct walk *k, const char *text)
{
        const char *home = getenv("HOME"), *rest = NULL;
        char path[4096];

        if (strncmp(text, "$HOME/", 6) == 0)
                rest = text + 5;
        else if (strncmp(text, "${HOME}/", 8) == 0)
                rest = text + 7;
        if (!rest || !home || home[0] != '/' || strpbrk(rest, "$`\\*?[") ||
            snprintf(path, sizeof(path), "%s%s", home, rest) >= (int) sizeof(path))
                return false;
        return pr_rules_trusted(k->rules, path);
}

/* source FILE / . FILE: a file of the workspace is the sandbox's business
 * and is judged as the command it is (like `sh ./build.sh`); a file in the
 * client's trusted_sources (its shell snapshot) is no command at all.  A
 * file named by an expansion, or a stream (/dev/stdin, /dev/fd/N), is
 * code perm_rules cannot read: ASK.  Returns true when w is still to be
 * judged. */
static bool check_source(struct walk *k, const struct pr_word *w, size_t n)
{
        size_t i = 1;

        if (i < n && strcmp(w[i].text, "--") == 0 && !(w[i].flags & PR_W_DYN))
                i++;
        if (i < n && (w[i].flags & PR_W_DYN) && trusted_home_source(k, w[i].text)) {
                record_words(k, w, n, STK_ALLOW, "trusted_sources");
                return false;
        }
        if (i >= n || (w[i].flags & PR_W_DYN)) {
                record_words(k, w, n, STK_ASK, "source runs a file named at run time");
                return false;
        }
        if (pr_is_stream_path(w[i].text)) {
                record_words(k, w, n, STK_ASK, "source reads a pipe, a descriptor or a device (/dev/stdin, "
                             "/dev/fd/N): code perm_rules cannot read");
                return false;
        }
        if (pr_rules_trusted(k->rules, w[i].text)) {
                record_words(k, w, n, STK_ALLOW, "trusted_sources");
                return false;
        }
        return true;
}

/* The command as its tool reads it (pr_forms.c): each form is judged
 * too, and the worst verdict wins, so a form only tightens. */
static void check_forms(struct walk *k, const struct pr_word *w, size_t n)
{
        struct pr_forms f;
        struct pr_judgement j;

        if (pr_tool_forms(w, n, &f) < 0) {
                k->res->oom = true;
                return;
        }
        if (f.ask)
                record_words(k, w, n, STK_ASK, f.ask);
        for (size_t i = 0; i < f.n; i++) {
                pr_rules_judge(k->rules, f.f[i].w, f.f[i].n, &j);
                if (j.pattern)   /* a form no pattern matches adds nothing to the default */
                        record_judgement(k, f.f[i].w, f.f[i].n, &j);
        }
        pr_forms_done(&f);
}

/* su -c STRING, watch 'cmd', sg group cmd...: a shell string. */
static void wrapped_shell(struct walk *k, const struct pr_word *w, size_t n, const struct pr_unwrap *u, int shells)
{
        if (u->joined)
                run_joined(k, w, n, u->start, shells, "a wrapper runs its words as a shell string, and one is "
                           "an expansion");
        else
                nested_shell(k, u->shell, shells);
}

/* Code named in the arguments (pr_code.c): shell strings are parsed,
 * the rest is ASK. */
static void check_code(struct walk *k, const struct pr_word *w, size_t n, int shells)
{
        const char *why = pr_interpreter_check(w, n, k->stdin_literal, k->rules->interpreters_ask);
        struct pr_code c;

        if (why)
                record_words(k, w, n, STK_ASK, why);
        if (pr_known_runner(pr_basename(w[0].text)))
                record_words(k, w, n, STK_ASK, "a program that runs its arguments, whose grammar perm_rules "
                             "does not model");
        for (size_t i = 1; i < n;) {
                i = (size_t) pr_code_scan(w, n, i, &c);
                if (c.kind == PR_CODE_ASK)
                        record_words(k, w, n, STK_ASK, c.why);
                else if (c.kind == PR_CODE_SHELL)
                        nested_shell(k, c.shell, shells);
        }
}

/* Peel wrappers off; follow shells.  Returns false when done (the words
 * were handled), true when w/n is a command to judge. */
static bool unwrap(struct walk *k, const struct pr_word **w, size_t *n, int shells, int *hops)
{
        for (;; (*hops)++) {
                struct pr_unwrap u;
                struct pr_shell sh;
                if (*n == 0)
                        return false;
                if (*hops > PR_MAX_HOPS) {
                        record_words(k, *w, *n, STK_ASK, "cannot see through: more wrappers than perm_rules follows");
                        return false;
                }
                if ((*w)[0].flags & PR_W_DYN) {
                        record_words(k, *w, *n, STK_ASK, "cannot see through: the program is an expansion, "
                                     "known only at run time");
                        return false;
                }
                pr_unwrap(*w, *n, &u);
                if (u.kind != PR_UNWRAP_NONE && u.kind != PR_UNWRAP_SELF) {   /* SELF: judged whole below */
                        judge_layer(k, *w, *n);
                        for (size_t a = u.assign_from; a < u.assign_to; a++)
                                check_assignment(k, (*w)[a].text);
                }
                switch (u.kind) {
                case PR_UNWRAP_OPAQUE:
                        record_words(k, *w, *n, STK_ASK, u.why);
                        return false;
                case PR_UNWRAP_EMPTY:
                        return false;
                case PR_UNWRAP_SHELL:
                        wrapped_shell(k, *w, *n, &u, shells);
                        return false;
                case PR_UNWRAP_SELF:
                        return true;
                case PR_UNWRAP_INNER:
                        if (u.xargs) {
                                check_xargs(k, *w + u.start, *n - u.start, u.replace, shells, *hops + 1);
                                return false;
                        }
                        *w += u.start;
                        *n -= u.start;
                        continue;
                case PR_UNWRAP_NONE:
                        break;
                }
                pr_shell_args(*w, *n, &sh);
                if (sh.kind == PR_SHELL_OPAQUE || sh.kind == PR_SHELL_STRING)
                        judge_layer(k, *w, *n);
                if (sh.kind == PR_SHELL_OPAQUE)
                        record_words(k, *w, *n, STK_ASK, sh.why);
                else if (sh.kind == PR_SHELL_STRING)
                        nested_shell(k, (*w)[sh.script].text, shells);
                return sh.kind == PR_SHELL_NONE || sh.kind == PR_SHELL_FILE;
        }
}

static void check_words(struct walk *k, const struct pr_word *w, size_t n, int shells, int hops)
{
        struct pr_judgement j;
        const char *why;

        if (n == 0)
                return;
        if (++k->res->n_cmds > PR_MAX_CMDS) {
                if (!k->over_limit)
                        record(k, strdup("(shell string)"), STK_ASK, "cannot see through: more simple commands "
                               "than perm_rules judges");
                k->over_limit = true;
                return;
        }
        if (!unwrap(k, &w, &n, shells, &hops))
                return;
        if (strcmp(w[0].text, "eval") == 0) {
                judge_layer(k, w, n);
                check_eval(k, w, n, shells);
                return;
        }
        if ((strcmp(w[0].text, "source") == 0 || strcmp(w[0].text, ".") == 0) && !check_source(k, w, n))
                return;
        check_builtin(k, w, n);
        k->res->n_simple++;
        pr_rules_judge(k->rules, w, n, &j);
        record_judgement(k, w, n, &j);
        check_forms(k, w, n);
        check_code(k, w, n, shells);
        why = pr_runs_written(&k->written, w, n);
        if (why)
                record_words(k, w, n, STK_ASK, why);
        size_t before = k->written.n;
        pr_written_from_words(&k->written, w, n);
        for (size_t i = before; i < k->written.n; i++)
                check_write_target(k, k->written.paths[i]);
        if (strcmp(pr_basename(w[0].text), "find") == 0)
                check_find(k, w, n, shells, hops);
}

void pr_result_done(struct pr_result *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->entries[i].command);
                free(r->entries[i].why);
        }
        free(r->entries);
        *r = (struct pr_result){ 0 };
}

int pr_decide(const struct pr_rules *rules, const char *const *argv, struct pr_result *ret)
{
        return pr_decide_in(rules, argv, NULL, NULL, ret);
}

int pr_decide_in(const struct pr_rules *rules, const char *const *argv, const char *cwd,
                 const char *const *protected, struct pr_result *ret)
{
        struct walk k = { .rules = rules, .res = ret, .cwd = cwd, .protected = protected };
        struct pr_word *w;
        size_t n = 0;

        *ret = (struct pr_result){ .verdict = STK_VERDICT_UNSET };
        while (argv && argv[n])
                n++;
        if (n == 0) {
                record(&k, strdup("(empty)"), STK_DENY, "an empty command");
                return ret->oom ? -ENOMEM : 0;
        }
        /* argv words are final: no shell expands them. */
        w = calloc(n, sizeof(*w));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                w[i].text = (char *) argv[i];
        check_words(&k, w, n, 0, 0);
        free(w);
        pr_written_done(&k.written);
        if (ret->verdict == STK_VERDICT_UNSET)
                record(&k, strdup("(nothing runs)"), rules->dflt, "default (no simple command)");
        return ret->oom ? -ENOMEM : 0;
}
