/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: the shell grammar (POSIX XCU 2.9 "Shell Commands", plus the
 * bash forms agents write: [[ ]], (( )), function, coproc, select, ;& ;;&).
 * A recursive-descent parser over pr_lex's tokens whose only output is the
 * list of simple commands; compound commands are walked for the commands
 * inside them.  A function body counts as commands whether or not it is
 * called.  A syntax error ends the parse with an opaque entry: a string the
 * shell would reject, or that we misread, is never silently allowed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

#define BAD(p) ((p)->error || (p)->oom)

void pr_word_done(struct pr_word *w)
{
        free(w->text);
        w->text = NULL;
}

void pr_cmd_done(struct pr_cmd *c)
{
        for (size_t i = 0; i < c->n_words; i++)
                pr_word_done(&c->words[i]);
        free(c->words);
        for (size_t i = 0; i < c->n_assigns; i++)
                free(c->assigns[i]);
        free(c->assigns);
        for (size_t i = 0; i < c->n_writes; i++)
                free(c->writes[i]);
        free(c->writes);
        *c = (struct pr_cmd){ 0 };
}

void pr_cmdlist_done(struct pr_cmdlist *l)
{
        for (size_t i = 0; i < l->n; i++)
                pr_cmd_done(&l->cmds[i]);
        free(l->cmds);
        *l = (struct pr_cmdlist){ 0 };
}

int pr_cmdlist_push(struct pr_cmdlist *l, struct pr_cmd *c)
{
        if (l->n >= PR_MAX_CMDS) {
                l->overflow = true;
                pr_cmd_done(c);
                return 0;
        }
        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 8;
                struct pr_cmd *nc = stk_reallocarray(l->cmds, cap, sizeof(*nc));
                if (!nc) {
                        pr_cmd_done(c);
                        return -ENOMEM;
                }
                l->cmds = nc;
                l->cap = cap;
        }
        l->cmds[l->n++] = *c;
        *c = (struct pr_cmd){ 0 };
        return 0;
}

int pr_cmdlist_opaque(struct pr_cmdlist *l, const char *why)
{
        struct pr_cmd c = { .opaque = why };

        return pr_cmdlist_push(l, &c);
}

/* ---- tokens ---------------------------------------------------------------- */

static struct pr_token *peek(struct pr_parser *p)
{
        if (!p->have_peek) {
                struct pr_token t;
                (void) pr_lex(p, &t);    /* an error is in p->error; t is then EOF */
                if (p->have_peek)        /* left by a failed nested parse */
                        pr_token_done(&p->peek);
                p->peek = t;
                p->have_peek = true;
        }
        return &p->peek;
}

static void take(struct pr_parser *p, struct pr_token *ret)
{
        *ret = *peek(p);
        p->peek = (struct pr_token){ 0 };
        p->have_peek = false;
}

static void skip(struct pr_parser *p)
{
        struct pr_token t;

        take(p, &t);
        pr_token_done(&t);
}

static bool is_op(struct pr_parser *p, enum pr_op op)
{
        struct pr_token *t = peek(p);

        return t->kind == PR_T_OP && t->op == (int) op;
}

/* A reserved word counts only unquoted and unexpanded (`"if"` is a command). */
static bool is_reserved(struct pr_parser *p, const char *word)
{
        struct pr_token *t = peek(p);

        return t->kind == PR_T_WORD && !(t->word.flags & (PR_W_QUOTED | PR_W_DYN | PR_W_ASSIGN)) &&
               t->word.text && strcmp(t->word.text, word) == 0;
}

static bool is_reserved_any(struct pr_parser *p, const char *const *words)
{
        for (; *words; words++)
                if (is_reserved(p, *words))
                        return true;
        return false;
}

static void skip_newlines(struct pr_parser *p)
{
        while (!BAD(p) && peek(p)->kind == PR_T_NEWLINE)
                skip(p);
}

static void expect_word(struct pr_parser *p, const char *word, const char *why)
{
        if (BAD(p))
                return;
        if (is_reserved(p, word))
                skip(p);
        else
                pr_fail(p, why);
}

static void expect_op(struct pr_parser *p, enum pr_op op, const char *why)
{
        if (BAD(p))
                return;
        if (is_op(p, op))
                skip(p);
        else
                pr_fail(p, why);
}

/* Words that end a list: the caller decides whether it expected them. */
static const char *const list_enders[] = { "then", "else", "elif", "fi", "do", "done", "esac", "}", NULL };

static bool at_list_end(struct pr_parser *p)
{
        struct pr_token *t = peek(p);

        if (BAD(p) || t->kind == PR_T_EOF)
                return true;
        if (t->kind == PR_T_OP && (t->op == PR_OP_RPAREN || t->op == PR_OP_CASE_END))
                return true;
        return is_reserved_any(p, list_enders);
}

/* ---- simple commands --------------------------------------------------------- */

static void parse_command(struct pr_parser *p);

/* Returns 1 when it gives stdin a here-document or here-string, -1 when
 * it gives stdin something else, 0 when it leaves stdin alone. */
static int add_write(struct pr_cmd *c, struct pr_word *w);
static void note(struct pr_parser *p, int r);

/* An output redirection's target, unless it duplicates a descriptor
 * (>&2, >&-) or is a device (/dev/null). */
static void note_write(struct pr_parser *p, struct pr_cmd *c, struct pr_word *target, bool dup_op)
{
        const char *t = target->text;

        if (!t || (dup_op && !(target->flags & PR_W_DYN) && (strspn(t, "0123456789") == strlen(t) || !strcmp(t, "-"))))
                return;
        if (target->flags & PR_W_DYN)
                c->write_dyn = true;
        else if (strncmp(t, "/dev/", 5) != 0 && add_write(c, target) < 0)
                p->oom = true;
}

static int parse_redirection(struct pr_parser *p, struct pr_cmd *c)
{
        struct pr_token r, target;
        int literal;

        take(p, &r);
        literal = !r.input || r.other_fd ? 0 : r.heredoc || r.herestring ? 1 : -1;
        take(p, &target);
        if (target.kind == PR_T_WORD && r.output)
                note_write(p, c, &target.word, r.dup);
        if (target.kind != PR_T_WORD) {
                pr_fail(p, "a redirection without a target");
        } else if (r.heredoc) {
                if (p->n_heredocs >= PR_MAX_HEREDOCS) {
                        pr_fail(p, "too many here-documents on one line");
                } else {
                        /* Any quoting in the delimiter turns expansion off in the body. */
                        p->heredocs[p->n_heredocs++] = (struct pr_heredoc){
                                .delim = target.word.text, .strip_tabs = r.strip_tabs,
                                .expand = !(target.word.flags & PR_W_QUOTED) };
                        target.word.text = NULL;
                }
        }
        pr_token_done(&r);
        pr_token_done(&target);
        return literal;
}

/* A compound command's redirections: its writes become an entry of their
 * own (no words), after the commands inside. */
static void parse_redirections(struct pr_parser *p)
{
        struct pr_cmd c = { 0 };

        while (!BAD(p) && peek(p)->kind == PR_T_REDIR)
                (void) parse_redirection(p, &c);   /* stdin: its inner commands read their own */
        if (!BAD(p) && (c.n_writes || c.write_dyn))
                note(p, pr_cmdlist_push(p->out, &c));
        pr_cmd_done(&c);
}

/* `array` with room for one more element (doubling), or NULL with
 * `array` untouched. */
static void *grow(void *array, size_t n, size_t *cap, size_t size)
{
        size_t ncap = *cap ? *cap * 2 : 8;
        void *na;

        if (n < *cap)
                return array;
        na = stk_reallocarray(array, ncap, size);
        if (na)
                *cap = ncap;
        return na;
}

static int add_word(struct pr_cmd *c, struct pr_word *w)
{
        struct pr_word *nw;

        if (c->n_words >= PR_MAX_WORDS)
                return -E2BIG;
        nw = grow(c->words, c->n_words, &c->cap_words, sizeof(*nw));
        if (!nw)
                return -ENOMEM;
        c->words = nw;
        c->words[c->n_words++] = *w;
        *w = (struct pr_word){ 0 };
        return 0;
}

static int add_assign(struct pr_cmd *c, struct pr_word *w)
{
        char **na;

        if (c->n_assigns >= PR_MAX_WORDS)
                return -E2BIG;
        na = grow(c->assigns, c->n_assigns, &c->cap_assigns, sizeof(*na));
        if (!na)
                return -ENOMEM;
        c->assigns = na;
        c->assigns[c->n_assigns++] = w->text;
        w->text = NULL;
        return 0;
}

static int add_write(struct pr_cmd *c, struct pr_word *w)
{
        char **nw;

        if (c->n_writes >= PR_MAX_WORDS)
                return -E2BIG;
        nw = stk_reallocarray(c->writes, c->n_writes + 1, sizeof(*nw));
        if (!nw)
                return -ENOMEM;
        c->writes = nw;
        c->writes[c->n_writes++] = w->text;
        w->text = NULL;
        return 0;
}

static void note(struct pr_parser *p, int r)
{
        if (r == -ENOMEM)
                p->oom = true;
        else if (r < 0)
                pr_fail(p, "more words in one command than perm_rules reads");
}

/* `name ( )` after the first word: a function definition; its body is
 * parsed like any command. */
static bool function_definition(struct pr_parser *p, const struct pr_cmd *c)
{
        if (c->n_words != 1 || c->n_assigns || !is_op(p, PR_OP_LPAREN))
                return false;
        skip(p);
        expect_op(p, PR_OP_RPAREN, "a function definition without ()");
        skip_newlines(p);
        if (!BAD(p))
                parse_command(p);
        return true;
}

/* Assignments, words and redirections in any order; assignments count
 * only before the first word. */
static void parse_simple(struct pr_parser *p, struct pr_word *first)
{
        struct pr_cmd c = { 0 };

        if (first)
                note(p, add_word(&c, first));
        while (!BAD(p)) {
                struct pr_token *t = peek(p);
                if (t->kind == PR_T_REDIR) {
                        int in = parse_redirection(p, &c);
                        if (in)
                                c.stdin_literal = in > 0;
                } else if (t->kind == PR_T_WORD) {
                        struct pr_token w;
                        take(p, &w);
                        if (w.word.text)
                                pr_vars_taint(p, w.word.text);
                        if (c.n_words == 0 && (w.word.flags & PR_W_ASSIGN))
                                note(p, add_assign(&c, &w.word));
                        else
                                note(p, add_word(&c, &w.word));
                        pr_token_done(&w);
                        if (!BAD(p) && function_definition(p, &c)) {
                                pr_cmd_done(&c);
                                return;
                        }
                } else {
                        break;
                }
        }
        if (!BAD(p) && (c.n_words || c.n_assigns || c.n_writes || c.write_dyn))
                note(p, pr_cmdlist_push(p->out, &c));
        pr_cmd_done(&c);
}

/* ---- compound commands ------------------------------------------------------- */

static void parse_if(struct pr_parser *p)
{
        skip(p);
        pr_parse_list(p);
        expect_word(p, "then", "if without then");
        pr_parse_list(p);
        while (!BAD(p) && is_reserved(p, "elif")) {
                skip(p);
                pr_parse_list(p);
                expect_word(p, "then", "elif without then");
                pr_parse_list(p);
        }
        if (!BAD(p) && is_reserved(p, "else")) {
                skip(p);
                pr_parse_list(p);
        }
        expect_word(p, "fi", "if without fi");
}

static void parse_loop_body(struct pr_parser *p)
{
        if (BAD(p))
                return;
        if (is_reserved(p, "{")) {   /* bash also takes `for x in a; { ...; }` */
                skip(p);
                pr_parse_list(p);
                expect_word(p, "}", "{ without }");
                return;
        }
        expect_word(p, "do", "a loop without do");
        pr_parse_list(p);
        expect_word(p, "done", "a loop without done");
}

static void parse_while(struct pr_parser *p)
{
        skip(p);
        pr_parse_list(p);
        parse_loop_body(p);
}

/* for NAME [in WORDS]; do ...; done   and   for ((...)); do ...; done */
static void parse_for(struct pr_parser *p)
{
        struct pr_token name;

        skip(p);
        if (is_op(p, PR_OP_LPAREN) && pr_lex_arith_command(p)) {
                skip(p);
        } else {
                struct pr_cmd words = { 0 };
                take(p, &name);
                if (name.kind != PR_T_WORD)
                        pr_fail(p, "for without a variable name");
                skip_newlines(p);
                if (!BAD(p) && is_reserved(p, "in")) {
                        skip(p);
                        while (!BAD(p) && peek(p)->kind == PR_T_WORD) {
                                struct pr_token w;
                                take(p, &w);   /* its substitutions are already in the list */
                                note(p, add_word(&words, &w.word));
                                pr_token_done(&w);
                        }
                }
                if (!BAD(p) && name.kind == PR_T_WORD)
                        pr_vars_loop(p, &name.word, words.words, words.n_words);
                pr_cmd_done(&words);
                pr_token_done(&name);
        }
        if (!BAD(p) && (is_op(p, PR_OP_SEMI) || peek(p)->kind == PR_T_NEWLINE))
                skip(p);
        skip_newlines(p);
        parse_loop_body(p);
}

static void parse_case_patterns(struct pr_parser *p)
{
        if (is_op(p, PR_OP_LPAREN))
                skip(p);
        while (!BAD(p)) {
                if (peek(p)->kind != PR_T_WORD) {
                        pr_fail(p, "case without a pattern");
                        return;
                }
                skip(p);
                if (is_op(p, PR_OP_PIPE)) {
                        skip(p);
                        continue;
                }
                expect_op(p, PR_OP_RPAREN, "a case pattern without )");
                return;
        }
}

static void parse_case(struct pr_parser *p)
{
        skip(p);
        if (peek(p)->kind != PR_T_WORD)
                pr_fail(p, "case without a word");
        else
                skip(p);
        skip_newlines(p);
        expect_word(p, "in", "case without in");
        while (!BAD(p)) {
                skip_newlines(p);
                if (is_reserved(p, "esac")) {
                        skip(p);
                        return;
                }
                parse_case_patterns(p);
                pr_parse_list(p);
                if (is_op(p, PR_OP_CASE_END))
                        skip(p);
                else if (!is_reserved(p, "esac"))
                        pr_fail(p, "case without esac");
        }
}

static void parse_function(struct pr_parser *p)
{
        skip(p);
        if (peek(p)->kind != PR_T_WORD) {
                pr_fail(p, "function without a name");
                return;
        }
        skip(p);
        if (is_op(p, PR_OP_LPAREN)) {
                skip(p);
                expect_op(p, PR_OP_RPAREN, "function name ( without )");
        }
        skip_newlines(p);
        if (!BAD(p))
                parse_command(p);
}

static bool is_integer(const char *s)
{
        if (*s == '-' || *s == '+')
                s++;
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static bool is_arith_operator(const char *s)
{
        static const char *const ops[] = { "-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL };

        for (const char *const *o = ops; *o; o++)
                if (strcmp(s, *o) == 0)
                        return true;
        return false;
}

/* [[ ... ]]: no command inside, but -eq & co. evaluate their operands as
 * arithmetic (X='a[$(cmd)]'; [[ $X -eq 0 ]] runs cmd), and -v takes a
 * name whose subscript bash expands. */
static void parse_conditional(struct pr_parser *p)
{
        bool arith = false, unknown_operand = false;

        skip(p);
        while (!BAD(p)) {
                struct pr_token *t = peek(p);
                if (t->kind == PR_T_EOF) {
                        pr_fail(p, "[[ without ]]");
                        return;
                }
                if (is_reserved(p, "]]")) {
                        skip(p);
                        break;
                }
                if (t->kind == PR_T_WORD && t->word.text) {
                        const char *s = t->word.text;
                        if (is_arith_operator(s) && !(t->word.flags & PR_W_QUOTED))
                                arith = true;
                        else if (!is_integer(s) && !pr_numeric_expansion(s, strlen(s)) &&
                                 !(s[0] == '-' && s[1] && !(t->word.flags & PR_W_DYN)))
                                unknown_operand = true;
                        if (strchr(s, '[') && (strchr(s, '$') || strchr(s, '`')))
                                pr_opaque(p, "a subscripted name in [[ ]]: bash evaluates the subscript");
                }
                skip(p);
        }
        if (arith && unknown_operand)
                pr_opaque(p, "[[ ... -eq ... ]] evaluates its operands as arithmetic, which can run commands "
                             "hidden in a variable");
}

/* coproc [NAME] command: NAME only before a compound command. */
static void parse_coproc(struct pr_parser *p)
{
        static const char *const compound[] = { "{", "if", "while", "until", "for", "select", "case", "[[", NULL };
        struct pr_token name;

        skip(p);
        if (peek(p)->kind != PR_T_WORD || is_reserved_any(p, compound)) {
                parse_command(p);
                return;
        }
        take(p, &name);
        if (!BAD(p) && (is_op(p, PR_OP_LPAREN) || is_reserved_any(p, compound))) {
                pr_token_done(&name);
                parse_command(p);
        } else {
                parse_simple(p, &name.word);
                pr_token_done(&name);
        }
}

static void parse_group(struct pr_parser *p, bool subshell)
{
        skip(p);
        pr_parse_list(p);
        if (subshell)
                expect_op(p, PR_OP_RPAREN, "( without )");
        else
                expect_word(p, "}", "{ without }");
}

/* A compound command's reserved word, or false. */
static bool parse_compound(struct pr_parser *p)
{
        if (is_op(p, PR_OP_LPAREN)) {
                if (pr_lex_arith_command(p))
                        skip(p);
                else
                        parse_group(p, true);
        } else if (is_reserved(p, "{")) {
                parse_group(p, false);
        } else if (is_reserved(p, "if")) {
                parse_if(p);
        } else if (is_reserved(p, "while") || is_reserved(p, "until")) {
                parse_while(p);
        } else if (is_reserved(p, "for") || is_reserved(p, "select")) {
                parse_for(p);
        } else if (is_reserved(p, "case")) {
                parse_case(p);
        } else if (is_reserved(p, "[[")) {
                parse_conditional(p);
        } else {
                return false;
        }
        parse_redirections(p);
        return true;
}

static void parse_command(struct pr_parser *p)
{
        struct pr_token *t;

        if (pr_enter(p) < 0)
                return;
        t = peek(p);
        if (BAD(p)) {
        } else if (parse_compound(p)) {
        } else if (is_reserved(p, "function")) {
                parse_function(p);
        } else if (is_reserved(p, "coproc")) {
                parse_coproc(p);
        } else if (is_reserved(p, "!") || is_reserved(p, "time")) {
                skip(p);    /* `a | ! b` is bash's syntax error; seeing b is safe either way */
                parse_command(p);
        } else if (is_reserved_any(p, list_enders)) {
                pr_fail(p, "a reserved word where a command should be");
        } else if (t->kind == PR_T_WORD || t->kind == PR_T_REDIR) {
                parse_simple(p, NULL);
        } else {
                pr_fail(p, "a command is missing");
        }
        pr_leave(p);
}

/* ---- lists --------------------------------------------------------------------- */

/* [time [-p]] [!] command { | command } */
static void parse_pipeline(struct pr_parser *p)
{
        for (;;) {
                if (is_reserved(p, "!")) {
                        skip(p);
                } else if (is_reserved(p, "time")) {
                        skip(p);
                        if (is_reserved(p, "-p"))
                                skip(p);
                } else {
                        break;
                }
        }
        parse_command(p);
        while (!BAD(p) && is_op(p, PR_OP_PIPE)) {
                skip(p);
                skip_newlines(p);
                parse_command(p);
        }
}

static void parse_and_or(struct pr_parser *p)
{
        parse_pipeline(p);
        while (!BAD(p) && (is_op(p, PR_OP_AND) || is_op(p, PR_OP_OR))) {
                skip(p);
                skip_newlines(p);
                parse_pipeline(p);
        }
}

/* and-or lists separated by ; & or newlines, up to whatever ends the list
 * (EOF, `)`, `;;`, `fi`, `done`, ...): the caller checks it is the one it
 * expected. */
void pr_parse_list(struct pr_parser *p)
{
        if (pr_enter(p) < 0)
                return;
        for (;;) {
                skip_newlines(p);
                if (at_list_end(p))
                        break;
                parse_and_or(p);
                if (BAD(p))
                        break;
                if (is_op(p, PR_OP_SEMI) || is_op(p, PR_OP_AMP) || peek(p)->kind == PR_T_NEWLINE)
                        skip(p);
                else
                        break;
        }
        pr_leave(p);
}

/* After `$(`, `<(` or `>(`: a list and its `)`. */
void pr_parse_subst(struct pr_parser *p)
{
        pr_parse_list(p);
        expect_op(p, PR_OP_RPAREN, "unterminated $( or <(");
}

static void parser_done(struct pr_parser *p)
{
        if (p->have_peek)
                pr_token_done(&p->peek);
        p->have_peek = false;
        for (size_t h = 0; h < p->n_heredocs; h++)
                free(p->heredocs[h].delim);
        p->n_heredocs = 0;
}

static void parse_script(struct pr_parser *p)
{
        pr_parse_list(p);
        if (!BAD(p))
                pr_vars_resolve(p);
        if (!BAD(p) && peek(p)->kind != PR_T_EOF)
                pr_fail(p, is_op(p, PR_OP_RPAREN) ? "unexpected )" : "unexpected token");
}

/* A backtick body or here-document: its own string, one level deeper. */
void pr_parse_nested(struct pr_parser *p, const char *script, bool heredoc_body)
{
        struct pr_parser sub = { .s = script, .len = strlen(script), .out = p->out };

        if (pr_enter(p) < 0)
                return;
        sub.depth = p->depth;
        if (heredoc_body) {
                pr_lex_heredoc_body(&sub);
                pr_vars_resolve(&sub);
        }
        else
                parse_script(&sub);
        parser_done(&sub);
        p->oom |= sub.oom;
        if (sub.error)
                pr_fail(p, sub.error);
        pr_leave(p);
}

int pr_split(const char *script, struct pr_cmdlist *out)
{
        struct pr_parser p = { .s = script, .out = out };
        int r;

        p.len = strnlen(script, PR_MAX_SCRIPT + 1);
        if (p.len > PR_MAX_SCRIPT)
                return pr_cmdlist_opaque(out, "the command string is longer than perm_rules parses");
        parse_script(&p);
        parser_done(&p);
        if (p.oom)
                return -ENOMEM;
        r = p.error ? pr_cmdlist_opaque(out, p.error) : 0;
        return r;
}
