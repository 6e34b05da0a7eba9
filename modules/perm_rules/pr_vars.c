/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: variables that arithmetic may read (issue 14).
 *
 * Bash evaluates a variable's value used in arithmetic as an expression,
 * so `X='a[$(cmd)]'; echo $((X))` runs cmd, and arithmetic that reads a
 * variable is ASK.  One case is common and safe: the variable of a `for`
 * loop over literal numbers, a brace range or `$(seq N...)`, which holds a
 * number (`for i in $(seq 3); do echo $((i*2)); done`).  A read of such a
 * name is put aside until the whole string is parsed; it passes when the
 * name is bound nowhere else in the string (no assignment, no word equal
 * to it or to NAME=... that read, printf -v or declare could use, no
 * ${NAME:=...}).  Anything past the small tables here stays ASK.
 */
#include <ctype.h>
#include <string.h>

#include "pr_internal.h"

static bool listed(const struct pr_names *l, const char *name, size_t len)
{
        for (size_t i = 0; i < l->n; i++)
                if (strlen(l->v[i]) == len && strncmp(l->v[i], name, len) == 0)
                        return true;
        return false;
}

static void add(struct pr_names *l, const char *name, size_t len)
{
        if (len < sizeof(l->v[0]) && listed(l, name, len))
                return;
        if (l->n >= PR_MAX_VARS || len >= sizeof(l->v[0])) {
                l->overflow = true;
                return;
        }
        memcpy(l->v[l->n], name, len);
        l->v[l->n++][len] = '\0';
}

static size_t ident_len(const char *s)
{
        size_t n = 0;

        if (!(s[0] == '_' || isalpha((unsigned char) s[0])))
                return 0;
        while (s[n] == '_' || isalnum((unsigned char) s[n]))
                n++;
        return n;
}

void pr_vars_taint(struct pr_parser *p, const char *word)
{
        size_t n;

        if (word[0] == '-' && word[1] == 'v')   /* printf -vNAME */
                word += 2;
        n = ident_len(word);
        if (n && (word[n] == '\0' || word[n] == '=' || word[n] == '[' || (word[n] == '+' && word[n + 1] == '=')))
                add(&p->vars.tainted, word, n);
}

void pr_vars_taint_name(struct pr_parser *p, const char *name, size_t len)
{
        add(&p->vars.tainted, name, len);
}

/* 42, {1..9}, {1..9..2}, $(seq 3), $(seq 1 2 9) */
static bool numeric_word(const struct pr_word *w)
{
        const char *t = w->text;

        if (!(w->flags & PR_W_DYN))
                return t[0] && strspn(t + (t[0] == '-'), "0123456789") == strlen(t + (t[0] == '-'));
        if (strncmp(t, "$(seq ", 6) == 0)
                return strspn(t + 6, "0123456789 -") == strlen(t + 6) - 1 && t[strlen(t) - 1] == ')';
        if (t[0] == '{' && t[strlen(t) - 1] == '}')
                return strspn(t + 1, "0123456789.-") == strlen(t) - 2 && strstr(t, "..");
        return false;
}

void pr_vars_loop(struct pr_parser *p, const struct pr_word *name, const struct pr_word *words, size_t n)
{
        bool numeric = !(name->flags & (PR_W_QUOTED | PR_W_DYN)) && ident_len(name->text) == strlen(name->text);

        for (size_t i = 0; i < n && numeric; i++)
                numeric = numeric_word(&words[i]);
        if (numeric)
                add(&p->vars.numeric, name->text, strlen(name->text));
        else
                pr_vars_taint(p, name->text);
}

bool pr_vars_defer(struct pr_parser *p, const char *name, size_t len)
{
        if (!listed(&p->vars.numeric, name, len))
                return false;
        add(&p->vars.pending, name, len);
        return !p->vars.pending.overflow;
}

void pr_vars_resolve(struct pr_parser *p)
{
        struct pr_vars *v = &p->vars;
        bool safe = !v->tainted.overflow && !v->numeric.overflow && !v->pending.overflow;

        for (size_t i = 0; i < v->pending.n && safe; i++)
                safe = !listed(&v->tainted, v->pending.v[i], strlen(v->pending.v[i]));
        if (!safe)
                pr_opaque(p, "arithmetic reads a variable that is also assigned elsewhere: bash evaluates array "
                             "subscripts in such a value, which can run commands");
        v->pending.n = 0;
}
