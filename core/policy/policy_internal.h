/* SPDX-License-Identifier: MIT */
/* Shared by core/policy*.c only: the YAML node tree, the per-file and
 * per-load state, and the helpers the split files call on each other.
 * Nothing outside the policy loader includes this. */
#pragma once

#include <stdbool.h>

#include "policy.h"

/* A policy file is read whole into memory; nothing legitimate comes close,
 * and a bound keeps a hostile project file from eating the supervisor. */
#define POLICY_MAX_FILE_SIZE (1u << 20)
/* Flow collections nest without limit in YAML; our grammar needs 4 levels.
 * The bound keeps `[[[[...` from exhausting the stack of the recursive
 * tree builder. */
#define POLICY_MAX_NESTING 16
#define POLICY_MODULE_NAME_MAX 64
/* Merging drops duplicates by comparing with every item so far; the caps
 * keep that quadratic work small (a hostile 1 MiB project file with 100k
 * items took 15 s without them) and are far above any real policy. */
#define POLICY_MAX_ITEMS 4096
#define POLICY_MAX_LINES 256
#define POLICY_MAX_ARGS 256
/* Including the same file twice is no cycle, so without a bound k
 * includes per level would read k^8 files. */
#define POLICY_MAX_FILES 256
/* Past this many, errors are counted but not printed. */
#define POLICY_MAX_REPORTED 100

enum pnode_kind {
        PNODE_SCALAR,
        PNODE_SEQ,
        PNODE_MAP,
        PNODE_BAD,   /* an alias or a rejected construct: already reported, skip silently */
};

struct pnode {
        enum pnode_kind kind;
        unsigned line, column;  /* 1-based */
        char *scalar;           /* PNODE_SCALAR */
        struct pnode **kids;    /* SEQ: items; MAP: key, value, key, value, ... */
        size_t n_kids;
};

struct ploader;

/* One file being applied (a layer's file or an included one). */
struct pfile {
        struct ploader *l;
        const char *name;       /* interned display name, used in diagnostics */
        const char *canon;      /* canonical path, or "<builtin>/x.yaml": cycle detection */
        const char *dir;        /* directory for relative includes; NULL: embedded table */
        enum core_layer layer;
        unsigned depth;         /* 0 for a layer's own file */
        const struct pfile *parent;
};

/* One core_policy_load() call. */
struct ploader {
        const struct core_policy_sources *src;
        struct core_policy *p;
        char *workspace_canon;  /* canonical src->workspace: project files must stay inside */
        unsigned n_errors;      /* policy errors reported so far */
        int io_error;           /* first -errno of a layer file that could not be read */
};

/* policy.c */
struct core_origin porigin(const struct pfile *f, const struct pnode *n);
void perr(const struct pfile *f, const struct pnode *n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void perr_origin(struct ploader *l, const struct core_origin *o, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
const char *pintern(struct core_policy *p, const char *s);
bool plist_has(const struct core_list *l, const char *value);
int plist_add(struct core_list *l, const char *value, const struct core_origin *o);
void plist_done(struct core_list *l);
void pline_done(struct core_line *line);

/* policy_yaml.c: text -> node tree; *ret stays NULL when the file had a
 * syntax error (reported).  -ENOMEM only. */
int pyaml_parse(const struct pfile *f, const char *text, size_t len, struct pnode **ret);
struct pnode *pnode_free(struct pnode *n);
static inline void pnode_freep(struct pnode **n) { pnode_free(*n); }
const char *pnode_kind_name(const struct pnode *n);

/* policy_parse.c: node tree -> policy, with the layer's trust checks. */
int papply_file(struct pfile *f, const struct pnode *root);
/* policy_stack.c */
int papply_stack(struct pfile *f, const struct pnode *key, const struct pnode *seq);
/* policy_check.c: node helpers shared by the parse files */
const char *pwant_scalar(const struct pfile *f, const struct pnode *n, const char *what);
bool pwant_seq(const struct pfile *f, const struct pnode *n, const char *what);
bool pwant_map(const struct pfile *f, const struct pnode *n, const char *what);
int pmap_key(const struct pfile *f, const struct pnode *map, size_t i, const char *what,
             const char *const *names, const struct pnode **keys);
void pmap_fields(const struct pfile *f, const struct pnode *map, const char *what,
                 const char *const *names, const struct pnode **keys, const struct pnode **vals);
bool pmay_loosen(const struct pfile *f, enum core_key k);
void pdeny_loosen(const struct pfile *f, const struct pnode *n, enum core_key k, const char *what);

/* policy_load.c: the loader calls back for `include:` items. */
int pload_include(struct pfile *f, const struct pnode *item);

/* policy_expand.c: variables, absolute paths, canonical paths, dedupe. */
int pexpand_policy(struct ploader *l);

/* policy_trust.c: whether a layer's files must pass the trust rule, and
 * the rule on one (0 trusted, 1 refused and reported, -ENOMEM). */
struct stat;
bool ptrust_layer(enum core_layer layer);
int ptrust_file(struct ploader *l, const struct core_origin *o, const char *canon, const struct stat *st);

/* protect_control.c: stockade's own configuration, state, caches and
 * module directories beneath `root`, as a new NULL-terminated list. */
int pprotect_control(const struct core_policy *p, const char *root, char ***ret);

/* policy_workspace.c: a broad workspace is an error unless allowed. */
int pcheck_workspace(struct ploader *l);
/* policy_enforced.c: a setting no stack line enforces is an error. */
int pcheck_enforced(struct ploader *l);
