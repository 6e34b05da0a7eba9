/* SPDX-License-Identifier: MIT */
/* Node helpers for the grammar: kinds, known and duplicate keys, and the
 * trust rule "a lower-trust layer may loosen only what it was granted". */
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

const char *pwant_scalar(const struct pfile *f, const struct pnode *n, const char *what)
{
        if (n->kind == PNODE_SCALAR)
                return n->scalar;
        if (n->kind != PNODE_BAD)
                perr(f, n, "\"%s\" is %s; expected a scalar", what, pnode_kind_name(n));
        return NULL;
}

bool pwant_seq(const struct pfile *f, const struct pnode *n, const char *what)
{
        if (n->kind == PNODE_SEQ)
                return true;
        if (n->kind != PNODE_BAD)
                perr(f, n, "\"%s\" is %s; expected a sequence such as [a, b] (or [] for none)",
                     what, pnode_kind_name(n));
        return false;
}

bool pwant_map(const struct pfile *f, const struct pnode *n, const char *what)
{
        if (n->kind == PNODE_MAP)
                return true;
        if (n->kind != PNODE_BAD)
                perr(f, n, "\"%s\" is %s; expected a mapping of key: value", what, pnode_kind_name(n));
        return false;
}

static void join_names(const char *const *names, char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (size_t i = 0; names[i] && used < size; i++) {
                int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
                if (n < 0)
                        return;
                used += (size_t) n;
        }
}

static int name_at(const char *const *names, const char *s)
{
        for (int i = 0; names[i]; i++)
                if (streq(names[i], s))
                        return i;
        return -1;
}

/* The index in names[] (NULL-terminated) of the key of pair i of `map`, or
 * -1 after reporting an unknown or repeated key; keys[] remembers the
 * first occurrence of each.  Unknown keys are errors, never ignored: a
 * misspelt `hdie:` must not silently leave credentials readable. */
int pmap_key(const struct pfile *f, const struct pnode *map, size_t i, const char *what,
             const char *const *names, const struct pnode **keys)
{
        const struct pnode *k = map->kids[i];
        char expected[512];
        int idx;

        if (k->kind != PNODE_SCALAR)
                return -1; /* reported when the tree was built */
        idx = name_at(names, k->scalar);
        if (idx < 0) {
                join_names(names, expected, sizeof(expected));
                perr(f, k, "unknown %s key \"%s\"; expected one of %s", what, k->scalar, expected);
                return -1;
        }
        if (keys[idx]) {
                perr(f, k, "duplicate key \"%s\" (first at %u:%u); expected each key once per mapping",
                     k->scalar, keys[idx]->line, keys[idx]->column);
                return -1;
        }
        keys[idx] = k;
        return idx;
}

/* Sorts a mapping's values into vals[] by the index of their key in
 * names[]; keys[] and vals[] start zeroed. */
void pmap_fields(const struct pfile *f, const struct pnode *map, const char *what,
                 const char *const *names, const struct pnode **keys, const struct pnode **vals)
{
        for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
                int idx = pmap_key(f, map, i, what, names, keys);
                if (idx >= 0)
                        vals[idx] = map->kids[i + 1];
        }
}

bool pmay_loosen(const struct pfile *f, enum core_key k)
{
        switch (f->layer) {
        case CORE_LAYER_USER:
        case CORE_LAYER_CLI: /* the flags obey what the floor lets the user loosen (--workspace, --audit do not come here) */
                return f->l->p->overridable_user & (1u << k);
        case CORE_LAYER_PROJECT:
                return f->l->p->overridable_project & (1u << k);
        default: /* builtin and system are the floor */
                return true;
        }
}

void pdeny_loosen(const struct pfile *f, const struct pnode *n, enum core_key k, const char *what)
{
        if (f->layer == CORE_LAYER_PROJECT)
                perr(f, n, "the project layer may only tighten: %s; a system or user file can allow it "
                     "with overridable: { project: [%s] }", what, core_key_name(k));
        else
                perr(f, n, "the %s layer may only tighten: %s; a builtin or system file can allow it "
                     "with overridable: { user: [%s] }", core_layer_name(f->layer), what, core_key_name(k));
}
