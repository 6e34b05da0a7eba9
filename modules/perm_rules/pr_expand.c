/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: expansions inside a word (bash(1) "EXPANSION", "QUOTING"):
 * $name ${...} $( ) $(( )) ` ` "..." $'...' and here-document bodies.
 * Command substitutions are parsed on the spot, so their commands join the
 * list.  The text of an expansion is kept as written: it is known only at
 * run time.
 *
 * Bash evaluates a variable used in arithmetic as an expression, and an
 * array subscript in that value is expanded, so X='a[$(cmd)]'; $((X)) runs
 * cmd.  Arithmetic that reads a variable, a ${x:off} offset or a ${a[i]}
 * subscript is therefore opaque (ASK); only literal numbers pass.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

#define BAD(p) ((p)->error || (p)->oom)

static bool name_start(char c)
{
        return c == '_' || isalpha((unsigned char) c);
}

static bool name_char(char c)
{
        return c == '_' || isalnum((unsigned char) c);
}

static void take_buf_into(struct pr_parser *p, struct stk_buf *b)
{
        if (b->err < 0)
                p->oom = true;
        free(stk_buf_take(b));
}

/* $# $? $$ $! ${#...}: always a number, whatever the variables hold. */
bool pr_numeric_expansion(const char *s, size_t n)
{
        return (n == 2 && s[0] == '$' && strchr("#?$!", s[1])) || (n > 3 && strncmp(s, "${#", 3) == 0);
}

/* One `$...` or backtick inside arithmetic: does it read a value? */
static bool arith_expansion(struct pr_parser *p, struct stk_buf *scratch)
{
        size_t start = p->pos;

        if (pr_at(p, 0) == '`') {
                (void) pr_lex_backtick(p, scratch, true);
                return true;
        }
        (void) pr_lex_dollar(p, scratch, true);
        return !pr_numeric_expansion(p->s + start, p->pos - start);
}

/* The body of $(( )) or (( )) up to the closing `))`, or of the older
 * $[ ] up to its `]`. */
void pr_scan_arith(struct pr_parser *p, bool brackets)
{
        struct stk_buf scratch = { 0 };
        char close = brackets ? ']' : ')', open = brackets ? '[' : '(';
        bool reads = false;
        int nest = 0;

        if (pr_enter(p) < 0)
                return;
        while (!BAD(p)) {
                char c = pr_at(p, 0);
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated $(( (( or $[");
                } else if (c == close && nest == 0) {
                        if (!brackets && pr_at(p, 1) != ')')
                                pr_fail(p, "unbalanced parentheses in arithmetic");
                        pr_adv(p, brackets ? 1 : 2);
                        break;
                } else if (c == '$' || c == '`') {
                        reads |= arith_expansion(p, &scratch);
                } else if (isdigit((unsigned char) c)) {   /* 42, 0x1f, 16#ff */
                        while (name_char(pr_at(p, 0)) || pr_at(p, 0) == '#' || pr_at(p, 0) == '@')
                                pr_adv(p, 1);
                } else if (name_start(c)) {
                        struct stk_buf name = { 0 };
                        while (name_char(pr_at(p, 0))) {
                                stk_buf_addc(&name, pr_at(p, 0));
                                pr_adv(p, 1);
                        }
                        reads |= name.err < 0 || !pr_vars_defer(p, name.s, name.len);
                        take_buf_into(p, &name);
                } else {
                        nest += c == open ? 1 : c == close ? -1 : 0;
                        pr_adv(p, 1);
                }
        }
        take_buf_into(p, &scratch);
        pr_leave(p);
        if (reads && !BAD(p))
                pr_opaque(p, "arithmetic reads a variable or command output: bash evaluates array "
                             "subscripts in such a value, which can run commands");
}

/* The word part of ${name<op>word}, up to the unquoted `}` that ends it
 * (bash does not count nested braces there).  Returns whether it reads a
 * variable, for a ${x:offset} whose offset is arithmetic. */
static bool scan_param_word(struct pr_parser *p)
{
        struct stk_buf scratch = { 0 };
        bool reads = false;

        while (!BAD(p)) {
                char c = pr_at(p, 0);
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated ${");
                } else if (c == '}') {
                        pr_adv(p, 1);
                        break;
                } else if (c == '\\') {
                        pr_adv_escape(p);
                } else if (c == '\'') {
                        const char *end = memchr(p->s + p->pos + 1, '\'', p->len - p->pos - 1);
                        if (!end)
                                pr_fail(p, "unterminated single quote");
                        else
                                p->pos = (size_t) (end - p->s) + 1;
                } else if (c == '"') {
                        (void) pr_lex_dquote(p, &scratch);
                } else if (c == '$' || c == '`') {
                        (void) (c == '$' ? pr_lex_dollar(p, &scratch, false) : pr_lex_backtick(p, &scratch, false));
                        reads = true;
                } else {
                        reads |= name_start(c);
                        pr_adv(p, 1);
                }
        }
        take_buf_into(p, &scratch);
        return reads;
}

/* `[...]` after a parameter name.  Returns 1 for [@] / [*], 0 for a
 * literal index, and makes anything else opaque: an indexed array's
 * subscript is arithmetic. */
static int scan_subscript(struct pr_parser *p)
{
        struct stk_buf scratch = { 0 };
        bool numeric = true;
        int depth = 0;
        size_t start;

        pr_adv(p, 1);
        start = p->pos;

        while (!BAD(p)) {
                char c = pr_at(p, 0);
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated [ in ${");
                } else if (c == ']' && depth == 0) {
                        break;
                } else if (c == '$' || c == '`' || c == '"') {
                        (void) (c == '$' ? pr_lex_dollar(p, &scratch, true) :
                                c == '`' ? pr_lex_backtick(p, &scratch, true) : pr_lex_dquote(p, &scratch));
                        numeric = false;
                } else {
                        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
                        numeric &= isdigit((unsigned char) c) || c == '-' || c == ' ';
                        pr_adv(p, 1);
                }
        }
        take_buf_into(p, &scratch);
        if (BAD(p))
                return 0;
        size_t n = p->pos - start;
        pr_adv(p, 1);
        if (n == 1 && (p->s[start] == '@' || p->s[start] == '*'))
                return 1;
        if (!numeric || n == 0)
                pr_opaque(p, "an array subscript is arithmetic: it can run commands hidden in a variable");
        return 0;
}

/* ${...}; returns whether it may become several words even in quotes. */
static bool scan_param(struct pr_parser *p)
{
        bool bang = false, list = false;
        char c, name[31];
        size_t name_len = 0;

        if (pr_enter(p) < 0)
                return false;
        pr_adv(p, 2);
        if (pr_at(p, 0) == '!' && pr_at(p, 1) != '}') {
                bang = true;
                pr_adv(p, 1);
        } else if (pr_at(p, 0) == '#' && pr_at(p, 1) && (name_char(pr_at(p, 1)) || strchr("@*!?$", pr_at(p, 1)))) {
                pr_adv(p, 1);  /* ${#name}: a length */
        }
        c = pr_at(p, 0);
        if (name_start(c)) {
                while (name_char(pr_at(p, 0))) {
                        if (name_len < sizeof(name))
                                name[name_len] = pr_at(p, 0);
                        name_len++;
                        pr_adv(p, 1);
                }
        } else if (isdigit((unsigned char) c)) {
                while (isdigit((unsigned char) pr_at(p, 0)))
                        pr_adv(p, 1);
        } else if (c && strchr("@*#?-$!", c)) {
                list = c == '@';
                pr_adv(p, 1);
        } else {
                pr_fail(p, "bad ${} substitution");
        }
        if (!BAD(p) && pr_at(p, 0) == '[')
                list |= scan_subscript(p) == 1;
        c = pr_at(p, 0);
        if (!BAD(p) && bang) {
                if ((c == '*' || c == '@') && pr_at(p, 1) == '}')
                        list = true;   /* ${!prefix*}: variable names, no lookup */
                else if (!list)
                        pr_opaque(p, "${!name} looks up a variable named by a value: it can run commands");
        }
        if (!BAD(p) && c != '}' && name_len)   /* ${i:=x}, ${i=x} assign; count every operator */
                pr_vars_taint_name(p, name, name_len < sizeof(name) ? name_len : 99);   /* 99: too long, overflow */
        if (BAD(p)) {
        } else if (c == '}') {
                pr_adv(p, 1);
        } else if (c == ':' && !(pr_at(p, 1) && strchr("-=+?", pr_at(p, 1)))) {
                pr_adv(p, 1);
                if (scan_param_word(p))
                        pr_opaque(p, "a ${x:offset} offset is arithmetic that reads a variable");
        } else {
                if (c == '@' && pr_at(p, 1) == 'P')
                        pr_opaque(p, "${x@P} expands a value as a prompt, running its command substitutions");
                (void) scan_param_word(p);
        }
        pr_leave(p);
        return list;
}

static unsigned long read_digits(struct pr_parser *p, int base, size_t max, size_t *ret_n)
{
        unsigned long v = 0;
        size_t k = 0;

        for (; k < max; k++, p->pos++) {
                char c = pr_at(p, 0);
                int d = isdigit((unsigned char) c) ? c - '0' : isxdigit((unsigned char) c) ? tolower((unsigned char) c) - 'a' + 10 : 99;
                if (d >= base)
                        break;
                v = v * (unsigned long) base + (unsigned long) d;
        }
        *ret_n = k;
        return v;
}

/* One escape of $'...' after its backslash: the value, or -1 when bash
 * keeps the backslash and the character as they are. */
static long ansi_escape(struct pr_parser *p, char e)
{
        static const char simple[] = "a\ab\be\033E\033f\fn\nr\rt\tv\v\\\\''\"\"??";
        const char *hit = strchr(simple, e);
        size_t n;
        unsigned long v;

        if (e && hit && (hit - simple) % 2 == 0)
                return (unsigned char) hit[1];
        if (e == 'x' || e == 'u' || e == 'U') {
                v = read_digits(p, 16, e == 'x' ? 2 : e == 'u' ? 4 : 8, &n);
                return n == 0 ? -1 : v > 0x10ffff ? 0xfffd : (long) v;
        }
        if (e >= '0' && e <= '7') {
                p->pos--;
                return (long) (read_digits(p, 8, 3, &n) & 0xff);
        }
        if (e == 'c' && p->pos < p->len)
                return p->s[p->pos++] & 0x1f;
        return -1;
}

static void put_utf8(struct stk_buf *b, unsigned long v)
{
        char u[4];
        int n = v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;

        for (int i = n - 1; i > 0; i--, v >>= 6)
                u[i] = (char) (0x80 | (v & 0x3f));
        u[0] = (char) ((n == 2 ? 0xc0 : n == 3 ? 0xe0 : 0xf0) | v);
        stk_buf_add(b, u, (size_t) n);
}

/* $'...': decoded as bash does, since $'\x72m' runs rm; a NUL ends the
 * string for the shell ($'rm\0x' is rm). */
static void lex_ansi_c(struct pr_parser *p, struct stk_buf *b)
{
        bool cut = false;

        while (!BAD(p)) {
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated $'");
                        break;
                }
                char c = p->s[p->pos++];
                if (c == '\'')
                        break;
                if (c != '\\' || p->pos >= p->len) {
                        if (!cut)
                                stk_buf_addc(b, c);
                        continue;
                }
                char e = p->s[p->pos++];
                long v = ansi_escape(p, e);
                cut |= v == 0;
                if (cut)
                        continue;
                if (v < 0) {
                        stk_buf_addc(b, '\\');
                        stk_buf_addc(b, e);
                } else if ((e == 'u' || e == 'U') && v >= 0x80) {
                        put_utf8(b, (unsigned long) v);
                } else {
                        stk_buf_addc(b, (char) v);
                }
        }
}

/* `...`: the body, with \\ \` \$ (and \" in double quotes) unescaped, is a
 * script of its own. */
unsigned pr_lex_backtick(struct pr_parser *p, struct stk_buf *b, bool dq)
{
        struct stk_buf body = { 0 };
        size_t start = p->pos, i = p->pos + 1;
        char *script;

        while (i < p->len && p->s[i] != '`') {
                char n = i + 1 < p->len ? p->s[i + 1] : '\0';
                if (p->s[i] == '\\' && n && (strchr("\\`$", n) || (dq && n == '"'))) {
                        stk_buf_addc(&body, n);
                        i += 2;
                } else {
                        stk_buf_addc(&body, p->s[i++]);
                }
        }
        if (i >= p->len) {
                pr_fail(p, "unterminated `");
                free(stk_buf_take(&body));
                return PR_W_DYN;
        }
        p->pos = i + 1;
        pr_norm(p);
        script = stk_buf_take(&body);
        if (!script)
                p->oom = true;
        else
                pr_parse_nested(p, script, false);
        free(script);
        stk_buf_add(b, p->s + start, p->pos - start);
        return PR_W_DYN | (dq ? 0 : PR_W_SPLIT);
}

unsigned pr_lex_dollar(struct pr_parser *p, struct stk_buf *b, bool dq)
{
        size_t start = p->pos;
        char n = pr_at(p, 1);
        unsigned split = dq ? 0 : PR_W_SPLIT;

        if (n == '(' && pr_at(p, 2) == '(') {
                pr_adv(p, 3);
                pr_scan_arith(p, false);
        } else if (n == '[') {     /* $[ ]: bash's old arithmetic */
                pr_adv(p, 2);
                pr_scan_arith(p, true);
        } else if (n == '(') {
                pr_adv(p, 2);
                pr_parse_subst(p);
        } else if (n == '{') {
                if (scan_param(p))
                        split = PR_W_SPLIT;
        } else if (n == '\'' && !dq) {
                pr_adv(p, 1);
                p->pos++;   /* the text of $'...' is read raw */
                lex_ansi_c(p, b);
                return PR_W_QUOTED;
        } else if (n == '"' && !dq) {
                /* $"...": translated through a message catalog, so its text
                 * is not what is written. */
                pr_adv(p, 1);
                return pr_lex_dquote(p, b) | PR_W_DYN;
        } else if (name_start(n)) {
                pr_adv(p, 1);
                while (name_char(pr_at(p, 0)))
                        pr_adv(p, 1);
        } else if (n && (isdigit((unsigned char) n) || strchr("@*#?-$!", n))) {
                pr_adv(p, 2);
                if (n == '@')
                        split = PR_W_SPLIT;
        } else {
                stk_buf_addc(b, '$');
                pr_adv(p, 1);
                return 0;
        }
        stk_buf_add(b, p->s + start, p->pos - start);
        return PR_W_DYN | split;
}

/* "...": returns flags; "$@" may still be many words. */
unsigned pr_lex_dquote(struct pr_parser *p, struct stk_buf *b)
{
        unsigned flags = PR_W_QUOTED;

        pr_adv(p, 1);
        while (!BAD(p)) {
                char c = pr_at(p, 0);
                if (p->pos >= p->len) {
                        pr_fail(p, "unterminated double quote");
                } else if (c == '"') {
                        pr_adv(p, 1);
                        break;
                } else if (c == '\\' && p->pos + 1 < p->len && strchr("$`\"\\", p->s[p->pos + 1])) {
                        stk_buf_addc(b, p->s[p->pos + 1]);
                        pr_adv_escape(p);
                } else if (c == '$') {
                        flags |= pr_lex_dollar(p, b, true);
                } else if (c == '`') {
                        flags |= pr_lex_backtick(p, b, true);
                } else {
                        stk_buf_addc(b, c);
                        pr_adv(p, 1);
                }
        }
        return flags;
}

/* A here-document body with an unquoted delimiter: $ ` and \ work as in
 * double quotes, so its substitutions run. */
void pr_lex_heredoc_body(struct pr_parser *p)
{
        struct stk_buf scratch = { 0 };

        while (!BAD(p) && p->pos < p->len) {
                char c = pr_at(p, 0);
                if (c == '\\')
                        pr_adv_escape(p);
                else if (c == '$')
                        (void) pr_lex_dollar(p, &scratch, true);
                else if (c == '`')
                        (void) pr_lex_backtick(p, &scratch, true);
                else
                        pr_adv(p, 1);
        }
        take_buf_into(p, &scratch);
}
