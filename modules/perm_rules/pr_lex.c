/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: the shell's lexer, as far as deciding what runs needs it
 * (bash(1) "QUOTING", "EXPANSION"; POSIX XCU 2.3 "Token Recognition").
 *
 * A word comes out with its quotes and escapes removed, because the shell
 * removes them too: r''m, "rm" and \rm all run rm.  What is known only at
 * run time (an expansion, a glob, a brace list, a tilde) is kept as written
 * and flagged, so the rules can treat it as unknown instead of as text.
 * Command substitutions met inside a word ($( ), ` `, <( )) are parsed on
 * the spot: their commands join the list like any other (pr_expand.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

#define BAD(p) ((p)->error || (p)->oom)

void pr_fail(struct pr_parser *p, const char *why)
{
        if (!p->error)
                p->error = why;
}

void pr_opaque(struct pr_parser *p, const char *why)
{
        if (pr_cmdlist_opaque(p->out, why) < 0)
                p->oom = true;
}

/* Every recursion (nested lists, substitutions, ${ }) goes through here, so
 * a hostile string of a million `$(` costs a bounded stack. */
int pr_enter(struct pr_parser *p)
{
        if (p->depth >= PR_MAX_DEPTH) {
                pr_fail(p, "nested deeper than perm_rules parses");
                return -1;
        }
        p->depth++;
        return 0;
}

void pr_leave(struct pr_parser *p)
{
        p->depth--;
}

void pr_token_done(struct pr_token *t)
{
        pr_word_done(&t->word);
        *t = (struct pr_token){ 0 };
}

/* Bash removes a backslash-newline before it reads a character anywhere
 * but inside single quotes, $'...', a comment or a quoted here-document
 * body, so `$\<newline>{X}` is `${X}` and `&\<newline>&` is `&&`.  Every
 * read of the lexer goes through these: `pos` never rests on a line
 * continuation, and a lookahead skips them.  The raw readers (quotes,
 * comments, escapes) use p->s directly. */
static size_t skip_continuations(const struct pr_parser *p, size_t at)
{
        while (at + 1 < p->len && p->s[at] == '\\' && p->s[at + 1] == '\n')
                at += 2;
        return at;
}

void pr_norm(struct pr_parser *p)
{
        p->pos = skip_continuations(p, p->pos);
}

char pr_at(const struct pr_parser *p, size_t k)
{
        size_t at = skip_continuations(p, p->pos);

        for (; k > 0 && at < p->len; k--)
                at = skip_continuations(p, at + 1);
        return at < p->len ? p->s[at] : '\0';
}

void pr_adv(struct pr_parser *p, size_t k)
{
        pr_norm(p);
        for (; k > 0 && p->pos < p->len; k--)
                p->pos = skip_continuations(p, p->pos + 1);
}

/* Past a backslash and the character it quotes (which may be a
 * backslash: `\\<newline>` is no continuation). */
void pr_adv_escape(struct pr_parser *p)
{
        p->pos = p->pos + 2 <= p->len ? p->pos + 2 : p->len;
        pr_norm(p);
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static bool name_start(char c)
{
        return c == '_' || isalpha((unsigned char) c);
}

static bool name_char(char c)
{
        return c == '_' || isalnum((unsigned char) c);
}

/* NAME=( elements ): an element `[i]=v` has an arithmetic subscript. */
static void lex_array(struct pr_parser *p, struct stk_buf *b)
{
        size_t start = p->pos;

        if (pr_enter(p) < 0)
                return;
        pr_adv(p, 1);
        while (!BAD(p)) {
                struct pr_token t;
                pr_lex_skip_blanks(p);
                while (pr_at(p, 0) == '\n' || pr_at(p, 0) == '#') {
                        while (pr_at(p, 0) == '#' && p->pos < p->len && p->s[p->pos] != '\n')
                                p->pos++;   /* a comment: no continuation */
                        if (pr_at(p, 0) == '\n')
                                pr_adv(p, 1);
                        pr_lex_skip_blanks(p);
                }
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated array assignment");
                        break;
                }
                if (pr_at(p, 0) == ')') {
                        pr_adv(p, 1);
                        break;
                }
                if (strchr(";&|(<>", pr_at(p, 0))) {
                        pr_fail(p, "unexpected operator in an array assignment");
                        break;
                }
                if (pr_lex(p, &t) < 0 || t.kind != PR_T_WORD) {
                        pr_token_done(&t);
                        pr_fail(p, "bad array element");
                        break;
                }
                if (t.word.text && t.word.text[0] == '[' && strstr(t.word.text, "]=")) {
                        const char *e = strstr(t.word.text, "]=");
                        for (const char *q = t.word.text + 1; q < e; q++)
                                if (!isdigit((unsigned char) *q)) {
                                        pr_opaque(p, "an array subscript is arithmetic: it can run commands "
                                                     "hidden in a variable");
                                        break;
                                }
                }
                pr_token_done(&t);
        }
        stk_buf_add(b, p->s + start, p->pos - start);
        pr_leave(p);
}

struct word_state {
        struct stk_buf b;
        unsigned flags;
        bool literal;      /* nothing quoted or expanded yet: NAME= may be an assignment */
        bool bracket;      /* an unquoted [ seen: a later ] makes a glob */
        int braces;        /* unquoted { ... } for brace expansion */
        bool brace_list;
};

/* NAME= NAME+= NAME[...]= with everything so far unquoted */
static bool assignment_name(const struct stk_buf *b)
{
        size_t n = b->len;

        if (n && b->s[n - 1] == '+')
                n--;
        if (n && b->s[n - 1] == ']') {
                const char *lb = memchr(b->s, '[', n);
                if (!lb)
                        return false;
                n = (size_t) (lb - b->s);
        }
        return pr_is_identifier(b->s, n);
}

/* An unquoted ordinary character: globs, brace lists, ~ and zsh's =cmd
 * make the word's final text unknown. */
static void lex_plain(struct pr_parser *p, struct word_state *w, size_t start)
{
        char c = p->s[p->pos];
        bool at_start = p->pos == start;

        switch (c) {
        case '*': case '?':
                w->flags |= PR_W_DYN | PR_W_SPLIT;
                break;
        case '[': w->bracket = true; break;
        case ']':
                if (w->bracket)
                        w->flags |= PR_W_DYN | PR_W_SPLIT;
                break;
        case '{': w->braces++; break;
        case ',': w->brace_list |= w->braces > 0; break;
        case '.': w->brace_list |= w->braces > 0 && pr_at(p, 1) == '.'; break;
        case '}':
                if (w->braces > 0 && w->brace_list)
                        w->flags |= PR_W_DYN | PR_W_SPLIT;
                w->braces -= w->braces > 0;
                break;
        case '~':
                if (at_start)
                        w->flags |= PR_W_DYN;
                break;
        case '=':
                if (at_start && name_start(pr_at(p, 1)))
                        w->flags |= PR_W_DYN;   /* zsh: =rm is the path of rm */
                else if (w->literal && !(w->flags & PR_W_ASSIGN) && assignment_name(&w->b))
                        w->flags |= PR_W_ASSIGN;
                break;
        default:
                break;
        }
        stk_buf_addc(&w->b, c);
        pr_adv(p, 1);
}

static void lex_word(struct pr_parser *p, struct pr_word *ret)
{
        struct word_state w = { .literal = true };
        size_t start = p->pos;

        while (!BAD(p) && (pr_norm(p), p->pos < p->len)) {
                char c = p->s[p->pos], n = pr_at(p, 1);
                if (is_blank(c) || strchr("\n;&|)", c))
                        break;
                if (c == '(') {
                        if (!(w.flags & PR_W_ASSIGN) || !w.literal || w.b.len == 0 || w.b.s[w.b.len - 1] != '=')
                                break;
                        lex_array(p, &w.b);
                } else if ((c == '<' || c == '>') && n != '(') {
                        break;
                } else if (c == '<' || c == '>') {   /* <( ) >( ): a path to a pipe */
                        size_t s0 = p->pos;
                        pr_adv(p, 2);
                        pr_parse_subst(p);
                        stk_buf_add(&w.b, p->s + s0, p->pos - s0);
                        w.flags |= PR_W_DYN;
                        w.literal = false;
                } else if (c == '\'') {
                        const char *end = memchr(p->s + p->pos + 1, '\'', p->len - p->pos - 1);
                        if (!end) {
                                pr_fail(p, "unterminated single quote");
                                break;
                        }
                        stk_buf_add(&w.b, p->s + p->pos + 1, (size_t) (end - p->s) - p->pos - 1);
                        p->pos = (size_t) (end - p->s) + 1;
                        w.flags |= PR_W_QUOTED;
                        w.literal = false;
                } else if (c == '"' || c == '$' || c == '`') {
                        w.flags |= c == '"' ? pr_lex_dquote(p, &w.b) : c == '$' ? pr_lex_dollar(p, &w.b, false)
                                                                  : pr_lex_backtick(p, &w.b, false);
                        w.literal = false;
                } else if (c == '\\' && n == '\n') {
                        p->pos += 2;    /* line continuation */
                } else if (c == '\\' && p->pos + 1 < p->len) {
                        stk_buf_addc(&w.b, p->s[p->pos + 1]);
                        pr_adv_escape(p);
                        w.flags |= PR_W_QUOTED;
                        w.literal = false;
                } else {
                        lex_plain(p, &w, start);
                }
        }
        ret->flags = w.flags;
        ret->text = stk_buf_take(&w.b);
        if (!ret->text)
                p->oom = true;
}

void pr_lex_skip_blanks(struct pr_parser *p)
{
        for (pr_norm(p); p->pos < p->len && is_blank(p->s[p->pos]);)
                pr_adv(p, 1);
}

/* One line of a here-document body into `line` (emptied first).  With an
 * unquoted delimiter bash joins a line that ends in an unquoted backslash
 * to the next before it compares the delimiter, so `EO\<newline>F` ends
 * the body; a quoted delimiter keeps lines as they are. */
static void heredoc_line(struct pr_parser *p, const struct pr_heredoc *d, struct stk_buf *line)
{
        stk_buf_truncate(line, 0);
        while (p->pos < p->len) {
                const char *at = p->s + p->pos, *nl = memchr(at, '\n', p->len - p->pos);
                size_t len = nl ? (size_t) (nl - at) : p->len - p->pos, slashes = 0;
                p->pos += len + (nl != NULL);
                while (d->strip_tabs && len && *at == '\t') {
                        at++;
                        len--;
                }
                while (slashes < len && at[len - 1 - slashes] == '\\')
                        slashes++;
                if (!d->expand || !nl || slashes % 2 == 0) {
                        stk_buf_add(line, at, len);
                        return;
                }
                stk_buf_add(line, at, len - 1);
        }
}

/* After a newline: the bodies of the here-documents opened on that line. */
static void read_heredocs(struct pr_parser *p)
{
        struct stk_buf line = { 0 };

        for (size_t h = 0; h < p->n_heredocs && !BAD(p); h++) {
                struct pr_heredoc *d = &p->heredocs[h];
                struct stk_buf body = { 0 };
                while (p->pos < p->len) {
                        heredoc_line(p, d, &line);
                        if (line.len == strlen(d->delim) && memcmp(line.s, d->delim, line.len) == 0)
                                break;
                        stk_buf_add(&body, line.s ? line.s : "", line.len);
                        stk_buf_addc(&body, '\n');
                }
                /* An unterminated body ends at the end of the string, as in bash. */
                char *text = stk_buf_take(&body);
                if (!text || line.err < 0)
                        p->oom = true;
                else if (d->expand)
                        pr_parse_nested(p, text, true);
                free(text);
        }
        free(stk_buf_take(&line));
        for (size_t h = 0; h < p->n_heredocs; h++)
                free(p->heredocs[h].delim);
        p->n_heredocs = 0;
}

static void lex_operator(struct pr_parser *p, struct pr_token *t)
{
        char c = pr_at(p, 0), n = pr_at(p, 1);

        t->kind = PR_T_OP;
        pr_adv(p, 1);
        switch (c) {
        case ';':
                t->op = PR_OP_SEMI;
                if (n == ';' || n == '&') {   /* ;; ;& ;;& */
                        t->op = PR_OP_CASE_END;
                        pr_adv(p, 1 + (n == ';' && pr_at(p, 1) == '&'));
                }
                break;
        case '&':
                t->op = n == '&' ? PR_OP_AND : PR_OP_AMP;
                pr_adv(p, n == '&');
                if (n == '>') {   /* &> &>> */
                        t->kind = PR_T_REDIR;
                        t->output = true;
                        pr_adv(p, 1 + (pr_at(p, 1) == '>'));
                }
                break;
        case '|':
                t->op = n == '|' ? PR_OP_OR : PR_OP_PIPE;
                pr_adv(p, n == '|' || n == '&');
                break;
        case '(': t->op = PR_OP_LPAREN; break;
        default: t->op = PR_OP_RPAREN; break;
        }
}

/* < > >> << <<- <<< <& >& <> >| (an IO number before it already skipped). */
static void lex_redirection(struct pr_parser *p, struct pr_token *t)
{
        char c = pr_at(p, 0), n = pr_at(p, 1);

        t->kind = PR_T_REDIR;
        t->input = c == '<';
        t->output = c == '>' || n == '>';
        pr_adv(p, 1);
        if (c == '<' && n == '<') {
                pr_adv(p, 1);
                if (pr_at(p, 0) == '<') {
                        pr_adv(p, 1);            /* <<< here-string: its word is an ordinary word */
                        t->herestring = true;
                } else {
                        t->heredoc = true;
                        t->strip_tabs = pr_at(p, 0) == '-';
                        pr_adv(p, t->strip_tabs);
                }
        } else if (n && strchr(c == '<' ? "&>" : ">&|", n)) {
                t->dup = n == '&';
                pr_adv(p, 1);
        }
}

/* `2>`, `{fd}>`: an IO number or name before a redirection. */
static size_t io_prefix(const struct pr_parser *p)
{
        size_t k = 0;

        if (isdigit((unsigned char) pr_at(p, 0))) {
                while (isdigit((unsigned char) pr_at(p, k)))
                        k++;
        } else if (pr_at(p, 0) == '{' && name_start(pr_at(p, 1))) {
                for (k = 1; name_char(pr_at(p, k)); k++)
                        ;
                if (pr_at(p, k) != '}')
                        return 0;
                k++;
        } else {
                return 0;
        }
        if ((pr_at(p, k) == '<' || pr_at(p, k) == '>') && pr_at(p, k + 1) != '(')
                return k;
        return 0;
}

/* The next token; a syntax error leaves p->error set and returns -1. */
int pr_lex(struct pr_parser *p, struct pr_token *t)
{
        size_t io;
        char c;

        *t = (struct pr_token){ .kind = PR_T_EOF };
        for (;;) {
                pr_lex_skip_blanks(p);
                if (BAD(p) || p->pos >= p->len)
                        return BAD(p) ? -1 : 0;
                if (p->s[p->pos] != '#')
                        break;
                while (p->pos < p->len && p->s[p->pos] != '\n')
                        p->pos++;   /* a comment: no continuation */
        }
        c = p->s[p->pos];
        if (c == '\n') {
                pr_adv(p, 1);
                t->kind = PR_T_NEWLINE;
                read_heredocs(p);
        } else if (strchr(";&|()", c)) {
                lex_operator(p, t);
        } else if ((c == '<' || c == '>') && pr_at(p, 1) != '(') {
                lex_redirection(p, t);
        } else if ((io = io_prefix(p)) > 0) {
                bool zero = io == 1 && pr_at(p, 0) == '0';
                pr_adv(p, io);
                lex_redirection(p, t);
                t->other_fd = !zero;
        } else {
                t->kind = PR_T_WORD;
                lex_word(p, &t->word);
        }
        return BAD(p) ? -1 : 0;
}

/* The parser holds a `(` token at command position: a second `(` right
 * after it makes an arithmetic command `(( ... ))`. */
bool pr_lex_arith_command(struct pr_parser *p)
{
        if (pr_at(p, 0) != '(')
                return false;
        pr_adv(p, 1);
        pr_scan_arith(p, false);
        return true;
}
