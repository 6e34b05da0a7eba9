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
        for (size_t i = 0; i < p->n_sets; i++) {
                for (size_t j = 0; j < p->sets[i].n; j++)
                        free(p->sets[i].elems[j]);
                free(p->sets[i].elems);
        }
        free(p->sets);
        for (size_t i = 0; i < p->n; i++)
                free(p->globs[i]);
        free(p->globs);
        free(p->text);
        *p = (struct pr_pattern){ 0 };
}

/* A flag set {a,b,...}: opt-in syntax (a `{` could not start a useful
 * word glob before: fnmatch has no braces).  `{}` stays a literal word, as
 * in "find * -exec * {} ;". */
static bool is_set_word(const char *g, bool quoted)
{
        size_t n = strlen(g);

        return !quoted && n > 2 && g[0] == '{' && g[n - 1] == '}';
}

static int push_set(struct pr_pattern *p, char *g, const char **why)
{
        struct pr_set set = { 0 };
        struct pr_set *ns;
        size_t len = strlen(g);
        int r = 0;

        g[len - 1] = '\0';
        for (char *e = g + 1, *end; r == 0; e = end + 1) {
                end = e + strcspn(e, ",");
                bool last = *end == '\0';
                *end = '\0';
                char **ne = stk_reallocarray(set.elems, set.n + 1, sizeof(*ne));
                if (!ne || !(set.elems = ne, ne[set.n] = strdup(e)))
                        r = -ENOMEM;
                else if (!*e || set.n >= PR_MAX_PATTERN_WORDS || (*why = glob_problem(e)))
                        r = (set.n++, *why = *why ? *why : "has an empty or too long flag set {...}", -EINVAL);
                else
                        set.n++;
                if (last)
                        break;
        }
        ns = r == 0 ? stk_reallocarray(p->sets, p->n_sets + 1, sizeof(*ns)) : NULL;
        if (r == 0 && !ns)
                r = -ENOMEM;
        if (r < 0) {
                for (size_t i = 0; i < set.n; i++)
                        free(set.elems[i]);
                free(set.elems);
                free(g);
                return r;
        }
        if (p->n_sets == 0)
                p->set_at = p->n;
        p->sets = ns;
        p->sets[p->n_sets++] = set;
        free(g);
        return 0;
}

/* One word of a pattern; a bare `*` is remembered, since the last one
 * stands for any number of words. */
static int push_glob(struct pr_pattern *p, struct stk_buf *b, bool quoted, bool *last_bare, const char **why)
{
        char *g = stk_buf_take(b);
        char **ng;

        if (!g)
                return -ENOMEM;
        if (is_set_word(g, quoted)) {
                *last_bare = false;
                return push_set(p, g, why);
        }
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
        if (r >= 0 && p.n_sets) {
                p.rest = true;
                if (p.n != p.set_at) {
                        *ret_why = "has a word after a flag set {...} (only more sets and a final * may follow)";
                        r = -EINVAL;
                }
        }
        if (r >= 0 && (p.n > PR_MAX_PATTERN_WORDS || (p.n == 0 && !p.rest) || (p.n == 0 && p.n_sets))) {
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

static bool fixed_sure(const struct pr_pattern *p, const struct pr_word *w, size_t n)
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
static bool fixed_may(const struct pr_pattern *p, const struct pr_word *w, size_t n)
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

/* The canonical spelling of a set element that is a plain option, by the
 * command's own grammar (`-R` is `-r` for rm); NULL when it has none. */
static const char *element_canon(const struct pr_word *w, size_t from, const char *elem, struct pr_cands *scratch)
{
        struct pr_word one[2] = { w[0], { (char *) elem, 0 } };

        if (elem[0] != '-' || strpbrk(elem, "*?[\\"))
                return NULL;
        if (from > 1) {   /* `git push {...}`: the grammar is chosen by the fixed words */
                struct pr_word *c = calloc(from + 1, sizeof(*c));
                const char *canon = NULL;
                if (!c)
                        return NULL;
                memcpy(c, w, from * sizeof(*c));
                c[from] = one[1];
                if (pr_candidates(c, from + 1, from, scratch) == 0 && scratch->n)
                        canon = scratch->v[0].text == elem ? NULL : scratch->v[0].text;
                free(c);
                return canon;
        }
        if (pr_candidates(one, 2, 1, scratch) == 0 && scratch->n)
                return scratch->v[0].text == elem ? NULL : scratch->v[0].text;
        return NULL;
}

/* Does some candidate (a sure one, when `sure`) match the element? */
static bool element_found(const struct pr_cands *c, const char *elem, const char *canon, bool sure)
{
        for (size_t i = 0; i < c->n; i++)
                if ((!sure || c->v[i].sure) &&
                    (fnmatch(elem, c->v[i].text, 0) == 0 || (canon && strcmp(canon, c->v[i].text) == 0)))
                        return true;
        return false;
}

/* Every element of every set, found among the candidates.  Out of memory:
 * never sure, always may. */
static bool sets_match(const struct pr_pattern *p, const struct pr_word *w, size_t n, bool sure)
{
        struct pr_cands c;
        bool dyn = false, ok = true;

        for (size_t i = 1; i < n; i++)
                dyn |= (w[i].flags & PR_W_DYN) != 0;
        if (!sure && dyn)
                return true;    /* an expansion may be any option */
        if (pr_candidates(w, n, p->set_at, &c) < 0)
                return !sure;
        for (size_t s = 0; ok && s < p->n_sets; s++)
                for (size_t e = 0; ok && e < p->sets[s].n; e++) {
                        struct pr_cands scratch = { 0 };
                        const char *elem = p->sets[s].elems[e];
                        const char *canon = element_canon(w, p->set_at, elem, &scratch);
                        ok = element_found(&c, elem, canon, sure);
                        pr_cands_done(&scratch);
                }
        pr_cands_done(&c);
        return ok;
}

bool pr_pattern_sure(const struct pr_pattern *p, const struct pr_word *w, size_t n)
{
        return fixed_sure(p, w, n) && (!p->n_sets || sets_match(p, w, n, true));
}

bool pr_pattern_may(const struct pr_pattern *p, const struct pr_word *w, size_t n)
{
        return fixed_may(p, w, n) && (!p->n_sets || sets_match(p, w, n, false));
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
        for (size_t i = 0; i < r->n_trusted; i++)   /* set again: the new list replaces the old */
                free(r->trusted[i]);
        free(r->trusted);
        r->n_trusted = 0;
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
