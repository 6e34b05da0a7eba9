/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: tools whose argv is not read word by word (issue 14).
 *
 * Forms.  `git -C . push -f`, `npm --registry=x publish` and
 * `cargo +nightly publish` put options between the program and its
 * subcommand, so a pattern "git push *" would miss them.  For each such
 * tool an option grammar (data, below) strips the global options; the
 * result is one or more *forms* ([git, push, -f]) that the rules judge
 * besides the words as written, the worst verdict winning, so a form can
 * only tighten.  Where the grammar cannot tell whether an option takes a
 * value (npm's, kubectl's options are open-ended), each possible
 * subcommand gets its own form.  `git-push` and .../git-core/git-push are
 * `git push`; `git send-pack` and `git http-push` are pushes too.
 *
 * Candidates.  A flag-set pattern word ({-r,-f}) asks whether options are
 * present in any spelling, order or position: the words after the
 * pattern's fixed part are turned into candidates, each option in its
 * canonical spelling (-R, --recursive and --rec are all -r for rm; a
 * +refspec is --force for git push), with the raw words too.
 *
 * Configuration injection.  git's -c alias.*=..., core.sshCommand=... and
 * the like, options that name a program (rebase --exec, push
 * --receive-pack), `git config alias.x ...`: each makes git run code of
 * the string's choosing, so it is ASK.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pr_internal.h"

/* ---- option grammars for flag sets --------------------------------------- */

struct opt {
        const char *spelling;  /* "-f", "--force"; a long one matches its abbreviations */
        const char *canon;     /* the candidate it becomes */
        bool arg;              /* takes a value (attached, after `=`, or the next word) */
};

struct grammar {
        const char *prog, *sub;       /* sub NULL: the program alone */
        const struct opt *opts;       /* NULL-terminated */
        void (*operand)(const char *word, const char **ret_canon);
};

#define O(...) (const struct opt[]){ __VA_ARGS__, { NULL, NULL, false } }

/* git push: +refspec forces, :ref deletes. */
static void push_operand(const char *word, const char **ret_canon)
{
        *ret_canon = word[0] == '+' ? "--force" : word[0] == ':' ? "--delete" : NULL;
}

static const struct opt push_opts[] = {
        { "-f", "--force", false }, { "--force", "--force", false },
        { "--force-with-lease", "--force", false }, { "--force-if-includes", "--force", false },
        { "--mirror", "--mirror", false }, { "-d", "--delete", false }, { "--delete", "--delete", false },
        { "--prune", "--delete", false }, { "--all", "--all", false }, { "--branches", "--all", false },
        { "--tags", "--tags", false }, { "--follow-tags", "--follow-tags", false },
        { "-n", "--dry-run", false }, { "--dry-run", "--dry-run", false }, { "--porcelain", "--porcelain", false },
        { "-u", "--set-upstream", false }, { "--set-upstream", "--set-upstream", false },
        { "-q", "--quiet", false }, { "--quiet", "--quiet", false }, { "-v", "--verbose", false },
        { "--verbose", "--verbose", false }, { "--progress", "--progress", false }, { "--atomic", "--atomic", false },
        { "--no-verify", "--no-verify", false }, { "--verify", "--verify", false }, { "--signed", "--signed", false },
        { "--thin", "--thin", false }, { "--no-thin", "--no-thin", false }, { "-4", "-4", false }, { "-6", "-6", false },
        { "--ipv4", "-4", false }, { "--ipv6", "-6", false },
        { "-o", "--push-option", true }, { "--push-option", "--push-option", true }, { "--repo", "--repo", true },
        { "--receive-pack", "--receive-pack", true }, { "--exec", "--receive-pack", true },
        { "--recurse-submodules", "--recurse-submodules", true },
        { "--stateless-rpc", "--stateless-rpc", false }, { "--helper-status", "--helper-status", false },
        { NULL, NULL, false },
};

static const struct grammar grammars[] = {
        { "rm", NULL, O({ "-r", "-r", false }, { "-R", "-r", false }, { "--recursive", "-r", false },
                        { "-f", "-f", false }, { "--force", "-f", false }, { "-i", "-i", false },
                        { "-I", "-I", false }, { "--interactive", "-i", false }, { "-d", "-d", false },
                        { "--dir", "-d", false }, { "-v", "-v", false }, { "--verbose", "-v", false },
                        { "--one-file-system", "--one-file-system", false },
                        { "--no-preserve-root", "--no-preserve-root", false },
                        { "--preserve-root", "--preserve-root", false }), NULL },
        { "git", "push", push_opts, push_operand },
        { "git", "send-pack", push_opts, push_operand },
        { "git", "clean", O({ "-f", "-f", false }, { "--force", "-f", false }, { "-d", "-d", false },
                            { "-x", "-x", false }, { "-X", "-X", false }, { "-n", "-n", false },
                            { "--dry-run", "-n", false }, { "-q", "-q", false }, { "--quiet", "-q", false },
                            { "-i", "-i", false }, { "--interactive", "-i", false }, { "-e", "-e", true },
                            { "--exclude", "-e", true }), NULL },
};

/* A tool without a grammar: every option word is a candidate as written,
 * and a cluster -abc also as -a, -b, -c (whether a letter takes a value is
 * unknown: more candidates only make a deny or ask match more). */
static const struct grammar no_grammar = { "", NULL, O({ NULL, NULL, false }), NULL };

static const struct grammar *grammar_for(const struct pr_word *w, size_t n, size_t *ret_skip)
{
        const char *prog = pr_basename(w[0].text);

        for (size_t g = 0; g < sizeof(grammars) / sizeof(grammars[0]); g++) {
                const struct grammar *gr = &grammars[g];
                if (strcmp(prog, gr->prog) != 0)
                        continue;
                if (!gr->sub) {
                        *ret_skip = 1;
                        return gr;
                }
                if (n > 1 && !(w[1].flags & PR_W_DYN) && strcmp(w[1].text, gr->sub) == 0) {
                        *ret_skip = 2;
                        return gr;
                }
        }
        return NULL;
}

/* --name: exact, else every option it abbreviates (GNU getopt_long and
 * git's parse-options take unique prefixes; an ambiguous one is an error
 * there, and counting every meaning here only makes rules stricter). */
static size_t long_matches(const struct grammar *g, const char *name, size_t len, const struct opt **out, size_t max)
{
        size_t k = 0;

        for (const struct opt *o = g->opts; o->spelling; o++)
                if (strncmp(o->spelling, name, len) == 0 && o->spelling[len] == '\0')
                        return (out[0] = o, 1);
        for (const struct opt *o = g->opts; o->spelling && k < max; o++)
                if (o->spelling[1] == '-' && len > 2 && strncmp(o->spelling, name, len) == 0)
                        out[k++] = o;
        return k;
}

static const struct opt *short_opt(const struct grammar *g, char c)
{
        for (const struct opt *o = g->opts; o->spelling; o++)
                if (o->spelling[1] == c && o->spelling[2] == '\0')
                        return o;
        return NULL;
}

struct cands_builder {
        struct pr_cands *c;
        bool sure;       /* no expansion before this word: it cannot be `--` or an option's value */
};

static void cand(struct cands_builder *b, const char *text)
{
        if (text && b->c->n < b->c->cap)
                b->c->v[b->c->n++] = (struct pr_cand){ text, b->sure };
}

/* "-X" for a letter of an option cluster of a tool without a grammar. */
static const char *pooled_short(struct pr_cands *c, char letter)
{
        char *s;

        if (c->pool_len + 3 > c->pool_cap)
                return NULL;
        s = c->pool + c->pool_len;
        s[0] = '-';
        s[1] = letter;
        s[2] = '\0';
        c->pool_len += 3;
        return s;
}

/* A word of a tool with a grammar; returns how many words it used. */
static size_t grammar_word(const struct grammar *g, struct cands_builder *b, const struct pr_word *w, size_t left)
{
        const char *t = w->text;
        const struct opt *hits[8];

        if (t[0] == '-' && t[1] == '-') {
                const char *eq = strchr(t, '=');
                size_t len = eq ? (size_t) (eq - t) : strlen(t), k = long_matches(g, t, len, hits, 8);
                bool arg = false;
                for (size_t i = 0; i < k; i++) {
                        cand(b, hits[i]->canon);
                        arg |= hits[i]->arg;
                }
                cand(b, t);
                return arg && !eq && left > 1 ? 2 : 1;
        }
        for (size_t j = 1; t[j]; j++) {
                const struct opt *o = short_opt(g, t[j]);
                if (!o) {
                        cand(b, pooled_short(b->c, t[j]));
                        continue;
                }
                cand(b, o->canon);
                if (o->arg)
                        return t[j + 1] == '\0' && left > 1 ? 2 : 1;
        }
        cand(b, t);
        return 1;
}

static void tool_candidates(const struct grammar *g, struct cands_builder *b, const struct pr_word *w, size_t n)
{
        bool options = true;

        for (size_t i = 0; i < n;) {
                const char *t = w[i].text, *canon = NULL;
                if (w[i].flags & PR_W_DYN) {
                        b->sure = false;
                        cand(b, t);
                        i++;
                } else if (options && strcmp(t, "--") == 0) {
                        options = false;
                        i++;
                } else if (options && t[0] == '-' && t[1]) {
                        i += grammar_word(g ? g : &no_grammar, b, &w[i], n - i);
                } else {
                        if (g && g->operand)
                                g->operand(t, &canon);
                        if (canon)
                                cand(b, canon);
                        cand(b, t);
                        i++;
                }
        }
}

int pr_candidates(const struct pr_word *w, size_t n, size_t from, struct pr_cands *ret)
{
        size_t skip = 0, chars = 0;
        const struct grammar *g = n ? grammar_for(w, n, &skip) : NULL;
        struct cands_builder b = { ret, true };

        *ret = (struct pr_cands){ 0 };
        if (g && from < skip)
                from = skip;
        for (size_t i = from; i < n; i++)
                chars += strlen(w[i].text) + 3;
        ret->cap = chars + 1;
        ret->v = calloc(ret->cap, sizeof(*ret->v));
        ret->pool_cap = 3 * chars + 3;
        ret->pool = malloc(ret->pool_cap);
        if (!ret->v || !ret->pool) {
                pr_cands_done(ret);
                return -ENOMEM;
        }
        for (size_t i = 1; i < from && i < n; i++)
                b.sure &= !(w[i].flags & PR_W_SPLIT);
        if (from < n)
                tool_candidates(g, &b, w + from, n - from);
        return 0;
}

void pr_cands_done(struct pr_cands *c)
{
        free(c->v);
        free(c->pool);
        *c = (struct pr_cands){ 0 };
}
