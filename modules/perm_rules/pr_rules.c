/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: patterns and how a simple command matches them.
 *
 * A pattern is words split on blanks; quotes group a word with blanks and
 * make the characters inside literal, a backslash makes the next one
 * literal.  Each word is an fnmatch(3) glob (no FNM_PATHNAME: `*` spans
 * slashes) for one argv word.  A final bare `*` stands for any number of
 * further words, none included; otherwise the counts must be equal.  The
 * first word matches the program by its text or, when the glob has no
 * slash, by its basename: `git` matches /usr/bin/git, `/usr/bin/git` only
 * that path.
 *
 * A word the shell expands at run time ($X, a glob) has no text here.  A
 * pattern `may` match when some expansion could make it match (an unquoted
 * expansion may become zero or many words), and is `sure` to when every
 * expansion does.  Deny needs `sure` to deny and turns `may` into ASK;
 * allow needs `sure`.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

const char *pr_kind_name(enum pr_kind k)
{
        static const char *const names[] = { "deny", "ask", "allow" };

        return k < PR_NKINDS ? names[k] : "?";
}

const char *pr_verdict_name(enum stk_verdict v)
{
        switch (v) {
        case STK_ALLOW: return "allow";
        case STK_DENY: return "deny";
        case STK_ASK: return "ask";
        case STK_IGNORE: return "ignore";
        default: return "unset";
        }
}

int pr_verdict_parse(const char *s, enum stk_verdict *ret)
{
        static const enum stk_verdict all[] = { STK_ALLOW, STK_DENY, STK_ASK, STK_IGNORE };

        for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
                if (strcmp(s, pr_verdict_name(all[i])) == 0) {
                        *ret = all[i];
                        return 0;
                }
        return -EINVAL;
}

/* fnmatch treats a lone `[` as a literal; in a policy it is more likely a
 * typo, so a bracket expression must be closed (write \[ for the char). */
static const char *glob_problem(const char *g)
{
        for (size_t i = 0; g[i]; i++) {
                if (g[i] == '\\') {
                        if (!g[++i])
                                return "ends with a lone backslash";
                } else if (g[i] == '[') {
                        size_t j = i + 1;
                        j += g[j] == '!' || g[j] == '^';
                        j += g[j] == ']';
                        while (g[j] && g[j] != ']') {
                                if (g[j] == '[' && g[j + 1] && strchr(":.=", g[j + 1])) {
                                        const char *end = strstr(g + j + 2, (char[]){ g[j + 1], ']', 0 });
                                        if (!end)
                                                return "has an unclosed [: class";
                                        j = (size_t) (end - g) + 2;
                                } else {
                                        j++;
                                }
                        }
                        if (!g[j])
                                return "has an unclosed [ (write \\[ for a literal bracket)";
                        i = j;
                }
        }
        return NULL;
}

void pr_pattern_done(struct pr_pattern *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->globs[i]);
        free(p->globs);
        free(p->text);
        *p = (struct pr_pattern){ 0 };
}

/* One word of a pattern; a bare `*` is remembered, since the last one
 * stands for any number of words. */
static int push_glob(struct pr_pattern *p, struct stk_buf *b, bool quoted, bool *last_bare, const char **why)
{
        char *g = stk_buf_take(b);
        char **ng;

        if (!g)
                return -ENOMEM;
        *why = glob_problem(g);
        if (!*why && p->n > PR_MAX_PATTERN_WORDS)
                *why = "has more words than perm_rules matches";
        if (*why) {
                free(g);
                return -EINVAL;
        }
        ng = stk_reallocarray(p->globs, p->n + 1, sizeof(*ng));
        if (!ng) {
                free(g);
                return -ENOMEM;
        }
        p->globs = ng;
        p->globs[p->n++] = g;
        *last_bare = !quoted && strcmp(g, "*") == 0;
        return 0;
}

/* Inside quotes, glob characters are escaped: '*' is a literal star. */
static const char *pattern_quote(const char *s, struct stk_buf *b)
{
        char q = *s++;

        for (; *s && *s != q; s++) {
                if (strchr("*?[]\\", *s))
                        stk_buf_addc(b, '\\');
                stk_buf_addc(b, *s);
        }
        return *s ? s + 1 : NULL;
}

/* One character (or quoted run) of a pattern word at *s; advances *s.
 * Returns why the pattern is bad, or NULL. */
static const char *pattern_char(const char **s, struct stk_buf *b, bool *quoted)
{
        const char *c = *s;

        if (*c == '\'' || *c == '"') {
                *quoted = true;
                *s = pattern_quote(c, b);
                return *s ? NULL : "has an unterminated quote";
        }
        if (*c == '\\') {
                *quoted = true;
                if (!c[1])
                        return "ends with a lone backslash";
                stk_buf_add(b, c, 2);   /* kept: fnmatch reads \x as a literal x */
                *s = c + 2;
                return NULL;
        }
        stk_buf_addc(b, *c);
        *s = c + 1;
        return NULL;
}

int pr_pattern_parse(const char *text, struct pr_pattern *ret, const char **ret_why)
{
        struct pr_pattern p = { .text = strdup(text) };
        struct stk_buf b = { 0 };
        bool in_word = false, quoted = false, last_bare = false;
        const char *s = text;
        int r = p.text ? 0 : -ENOMEM;

        *ret_why = NULL;
        while (r >= 0 && *s) {
                if (*s == ' ' || *s == '\t') {
                        if (in_word)
                                r = push_glob(&p, &b, quoted, &last_bare, ret_why);
                        in_word = quoted = false;
                        s++;
                } else {
                        in_word = true;
                        *ret_why = pattern_char(&s, &b, &quoted);
                        r = *ret_why ? -EINVAL : 0;
                }
        }
        if (r >= 0 && in_word)
                r = push_glob(&p, &b, quoted, &last_bare, ret_why);
        free(stk_buf_take(&b));
        if (r >= 0 && last_bare) {
                free(p.globs[--p.n]);
                p.rest = true;
        }
        if (r >= 0 && (p.n > PR_MAX_PATTERN_WORDS || (p.n == 0 && !p.rest))) {
                /* pr_pattern_may's rows are PR_MAX_PATTERN_WORDS + 1 long */
                *ret_why = p.n ? "has more words than perm_rules matches" : "is empty";
                r = -EINVAL;
        }
        if (r < 0) {
                pr_pattern_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

static bool program_matches(const char *glob, const char *word)
{
        if (fnmatch(glob, word, 0) == 0)
                return true;
        return !strchr(glob, '/') && fnmatch(glob, pr_basename(word), 0) == 0;
}

static bool word_matches(const struct pr_pattern *p, size_t i, const struct pr_word *w)
{
        return i == 0 ? program_matches(p->globs[0], w->text) : fnmatch(p->globs[i], w->text, 0) == 0;
}

static bool all_stars(const char *g)
{
        return *g && strspn(g, "*") == strlen(g);
}

bool pr_pattern_sure(const struct pr_pattern *p, const struct pr_word *w, size_t n)
{
        size_t i = 0, j = 0;

        for (;; i++, j++) {
                if (i == p->n)
                        return p->rest || j == n;
                if (j == n || (w[j].flags & PR_W_SPLIT))
                        return false;
                if (w[j].flags & PR_W_DYN) {
                        if (!all_stars(p->globs[i]))
                                return false;
                } else if (!word_matches(p, i, &w[j])) {
                        return false;
                }
        }
}

/* may[i] for words j.. is computed from j = n down, one row per word: an
 * unquoted expansion may vanish (row below, same i) or stand for pattern
 * word i and more (same row, i + 1). */
bool pr_pattern_may(const struct pr_pattern *p, const struct pr_word *w, size_t n)
{
        bool next[PR_MAX_PATTERN_WORDS + 1], cur[PR_MAX_PATTERN_WORDS + 1];
        size_t np = p->n;

        for (size_t i = 0; i <= np; i++)
                cur[i] = i == np;
        for (size_t j = n; j-- > 0;) {
                memcpy(next, cur, sizeof(cur));
                for (size_t i = np + 1; i-- > 0;) {
                        if (i == np)
                                cur[i] = p->rest || ((w[j].flags & PR_W_SPLIT) && next[np]);
                        else if (w[j].flags & PR_W_SPLIT)
                                cur[i] = next[i] || cur[i + 1];
                        else if (w[j].flags & PR_W_DYN)
                                cur[i] = next[i + 1];
                        else
                                cur[i] = next[i + 1] && word_matches(p, i, &w[j]);
                }
        }
        return cur[0] || (p->rest && np == 0);
}

static void judge(const struct pr_rules *r, const struct pr_word *w, size_t n, bool layer, struct pr_judgement *ret)
{
        *ret = (struct pr_judgement){ .verdict = STK_VERDICT_UNSET };
        for (size_t i = 0; i < r->n[PR_DENY]; i++)
                if (pr_pattern_sure(&r->pats[PR_DENY][i], w, n)) {
                        *ret = (struct pr_judgement){ STK_DENY, &r->pats[PR_DENY][i], PR_DENY, false };
                        return;
                }
        for (size_t i = 0; i < r->n[PR_DENY]; i++)
                if (pr_pattern_may(&r->pats[PR_DENY][i], w, n)) {
                        *ret = (struct pr_judgement){ STK_ASK, &r->pats[PR_DENY][i], PR_DENY, true };
                        return;
                }
        for (size_t i = 0; i < r->n[PR_ASK]; i++)
                if (pr_pattern_may(&r->pats[PR_ASK][i], w, n)) {
                        *ret = (struct pr_judgement){ STK_ASK, &r->pats[PR_ASK][i], PR_ASK, false };
                        return;
                }
        if (layer)
                return;
        for (size_t i = 0; i < r->n[PR_ALLOW]; i++)
                if (pr_pattern_sure(&r->pats[PR_ALLOW][i], w, n)) {
                        *ret = (struct pr_judgement){ STK_ALLOW, &r->pats[PR_ALLOW][i], PR_ALLOW, false };
                        return;
                }
        ret->verdict = r->dflt;
}

void pr_rules_judge(const struct pr_rules *r, const struct pr_word *w, size_t n, struct pr_judgement *ret)
{
        judge(r, w, n, false, ret);
}

void pr_rules_judge_layer(const struct pr_rules *r, const struct pr_word *w, size_t n, struct pr_judgement *ret)
{
        judge(r, w, n, true, ret);
}

void pr_rules_done(struct pr_rules *r)
{
        for (size_t i = 0; i < r->n_trusted; i++)
                free(r->trusted[i]);
        free(r->trusted);
        for (int k = 0; k < PR_NKINDS; k++) {
                for (size_t i = 0; i < r->n[k]; i++)
                        pr_pattern_done(&r->pats[k][i]);
                free(r->pats[k]);
        }
        *r = (struct pr_rules){ 0 };
}

static int compile_kind(struct pr_rules *r, enum pr_kind k, const char *const *list, char **ret_error)
{
        size_t n = 0;

        while (list && list[n])
                n++;
        r->pats[k] = calloc(n + 1, sizeof(struct pr_pattern));
        if (!r->pats[k])
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *why = NULL;
                int q = pr_pattern_parse(list[i], &r->pats[k][i], &why);
                if (q == -EINVAL && asprintf(ret_error, "%s: pattern \"%s\" %s", pr_kind_name(k), list[i], why) < 0)
                        *ret_error = NULL;
                if (q < 0)
                        return q;
                r->n[k]++;
        }
        return 0;
}

int pr_rules_compile(const char *const *deny, const char *const *ask, const char *const *allow,
                     const char *dflt, struct pr_rules *ret, char **ret_error)
{
        struct pr_rules r = { .dflt = STK_ASK };
        const char *const *lists[PR_NKINDS] = { deny, ask, allow };
        int q = 0;

        *ret_error = NULL;
        if (dflt && pr_verdict_parse(dflt, &r.dflt) < 0) {
                if (asprintf(ret_error, "default: \"%s\" is not one of ask, allow, deny, ignore", dflt) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        for (int k = 0; q >= 0 && k < PR_NKINDS; k++)
                q = compile_kind(&r, (enum pr_kind) k, lists[k], ret_error);
        if (q < 0) {
                pr_rules_done(&r);
                return q;
        }
        *ret = r;
        return 0;
}

static char *trusted_glob(const char *g, const char *home)
{
        char *out = NULL;

        if (g[0] == '/')
                return strdup(g);
        if (g[0] != '~' || (g[1] != '/' && g[1] != '\0') || !home || home[0] != '/')
                return NULL;
        return asprintf(&out, "%s%s", home, g + 1) < 0 ? NULL : out;
}

int pr_rules_trust(struct pr_rules *r, const char *const *globs, const char *home, char **ret_error)
{
        size_t n = 0;

        *ret_error = NULL;
        while (globs && globs[n])
                n++;
        r->trusted = calloc(n + 1, sizeof(*r->trusted));
        if (!r->trusted)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char *g = trusted_glob(globs[i], home);
                const char *why = g ? glob_problem(g) : NULL;
                if (!g || why) {
                        if (asprintf(ret_error, "trusted_sources: \"%s\" %s", globs[i],
                                     why ? why : "is neither an absolute path nor ~/... (with HOME set)") < 0)
                                *ret_error = NULL;
                        free(g);
                        return -EINVAL;
                }
                r->trusted[r->n_trusted++] = g;
        }
        return 0;
}

static bool plain_absolute(const char *path)
{
        if (path[0] != '/')
                return false;
        for (const char *c = path + 1; *c;) {
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += len;
                c += *c == '/';
        }
        return true;
}

bool pr_rules_trusted(const struct pr_rules *r, const char *path)
{
        if (!plain_absolute(path))
                return false;
        for (size_t i = 0; i < r->n_trusted; i++)
                if (fnmatch(r->trusted[i], path, FNM_PATHNAME | FNM_PERIOD) == 0)
                        return true;
        return false;
}

int pr_rules_options(struct pr_rules *r, const char *const *trusted, const char *home, const char *interpreters,
                     char **ret_error)
{
        int q;

        *ret_error = NULL;
        if (interpreters && strcmp(interpreters, "ask") != 0 && strcmp(interpreters, "allow") != 0) {
                if (asprintf(ret_error, "interpreters: \"%s\" is neither ask nor allow", interpreters) < 0)
                        *ret_error = NULL;
                q = -EINVAL;
        } else {
                r->interpreters_ask = interpreters && strcmp(interpreters, "ask") == 0;
                q = pr_rules_trust(r, trusted, home, ret_error);
        }
        if (q < 0)
                pr_rules_done(r);
        return q;
}
