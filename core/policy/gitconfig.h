/* SPDX-License-Identifier: MIT */
/*
 * git's configuration, read the way git reads it, for the protected paths
 * (core/policy/protect.c): a repository's config names hooks, filters,
 * drivers and helpers that git runs, and where those live in a writable
 * root the command could rewrite them before the user's next host git.
 *
 *   gitconfig_parse.c  the file format (pure: bytes in, entries out)
 *   gitconfig_keys.c   which keys make git run or load code, as data with
 *                      a reason per row, and the paths a value names
 *   protect_git.c      the files git reads for a repository (system,
 *                      global, the repository's, includes), and the paths
 *                      beneath the writable roots they name
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* ---- the file format (gitconfig_parse.c) ------------------------------- */

/* One "key = value" as git's callbacks see it: key is
 * "section[.subsection].name", section and name lowercased, the
 * subsection as written (an old-style [section.sub] lowercased whole);
 * value NULL for a bare key (boolean true). */
struct gitcfg_item {
        const char *key;
        const char *value;
        unsigned line;
};

/* Where and why a file is not one git would read. */
struct gitcfg_error {
        unsigned line, col; /* 1-based */
        const char *why;
};

/* < 0 stops the parse with that result. */
typedef int (*gitcfg_fn)(const struct gitcfg_item *item, void *userdata);

/* Each entry of text[0..len) in order: 0, -EINVAL with *err filled (a line
 * git rejects: "bad config line N"), -ENOMEM, or fn's own < 0. */
int gitcfg_parse(const char *text, size_t len, gitcfg_fn fn, void *userdata, struct gitcfg_error *err);

/* key's parts as git splits it: the section up to the first dot, the name
 * after the last, the subsection between (none: *sub NULL, *sub_len 0). */
struct gitcfg_key {
        const char *section, *sub, *name;
        size_t section_len, sub_len;
};
int gitcfg_split_key(const char *key, struct gitcfg_key *ret);

/* ---- what makes git run code (gitconfig_keys.c) ------------------------- */

enum gitcfg_kind {
        GITCFG_NOT_CODE = 0,    /* nothing git runs or loads */
        GITCFG_DIR,             /* a directory of code: core.hooksPath */
        GITCFG_FILE,            /* a program or file git loads: mergetool.*.path */
        GITCFG_INCLUDE,         /* another config file: include.path, includeIf.*.path */
        GITCFG_COMMAND,         /* a shell command (sh -c): filter.*.clean */
        GITCFG_BANG,            /* a shell command only after "!": alias.*, submodule.*.update */
        GITCFG_BOOL_OR_COMMAND, /* a boolean, or a command: core.fsmonitor, pager.* */
        GITCFG_EXT_URL,         /* "ext::<command>" remote URLs */
        GITCFG_WORKTREE,        /* core.worktree: where relative paths and hooks run from */
};

struct gitcfg_rule {
        const char *section;    /* lowercase; "*" any */
        const char *sub;        /* NULL none, "*" some, "?" either */
        const char *name;       /* lowercase */
        enum gitcfg_kind kind;
        const char *reason;
};

/* The rows, in order (the first that matches wins); a NULL section ends. */
extern const struct gitcfg_rule gitcfg_rules[];

/* The kind of key: its row's, else GITCFG_COMMAND for a value that looks
 * like a path or command (starts with /, ./, ../, ~/ or !), whatever the
 * key (issue 13: any key whose value is a path or command beneath a
 * writable root), else GITCFG_NOT_CODE.  *ret_rule: the row, or NULL. */
enum gitcfg_kind gitcfg_classify(const char *key, const char *value, const struct gitcfg_rule **ret_rule);

/* A word of a value that may name a file: as written (relative to the
 * directory git runs it in, ~/ for $HOME, or absolute), and whether it is
 * surely a file of code (a command word with a slash, a script given to an
 * interpreter, a hooks directory) or only maybe one (an argument with a
 * slash, or one that exists: `exists` says). */
typedef int (*gitcfg_path_fn)(const char *word, bool sure, void *userdata);
typedef bool (*gitcfg_exists_fn)(const char *word, void *userdata);

/* Every word of (key, value) that may name a file, given to fn; 0 or fn's
 * < 0, -ENOMEM.  Words with an expansion ($x, `...`) are not resolvable
 * and are left out (gitcfg_opaque counts them). */
int gitcfg_value_paths(const char *key, const char *value, gitcfg_exists_fn exists, gitcfg_path_fn fn,
                       void *userdata);

/* The words of a shell command that name files: the command word when it
 * holds a slash, interpreter scripts (sh x.sh), and arguments with a slash
 * or that exist; sh -c strings and env/exec/command prefixes gone through. */
int gitcfg_command_paths(const char *command, gitcfg_exists_fn exists, gitcfg_path_fn fn, void *userdata);

/* ---- the files git reads (protect_git.c) -------------------------------- */

/* Names the hook runners read from a repository's top (lefthook,
 * lint-staged, commitlint, simple-git-hooks, overcommit, .githooks/):
 * exact names, so that a missing one stays uncreatable. */
extern const char *const gitcfg_runner_names[];

/* What a run knows for every repository: the writable roots (canonical,
 * NULL-terminated, owned), $HOME and git's XDG directory (canonical, NULL:
 * none; borrowed), and the files already warned about (each failure is
 * said once a run). */
struct gitcfg_run {
        char **roots;
        const char *home, *xdg;
        char **warned;
};
void gitcfg_run_done(struct gitcfg_run *run);

/* A repository as git would run in it: top is where hooks and commands run
 * (the worktree), gitdir and common as protect.c found them (NULL for a
 * root with no repository: only the system and global files then). */
struct gitcfg_repo {
        const char *top, *gitdir, *common;
        bool *hooks_path;       /* out, may be NULL: set where a file git reads sets core.hooksPath */
};

/* The paths beneath the roots that the repository's effective
 * configuration names as code, added to *paths (each once).  1 where a
 * file git reads cannot be read or parsed (warned once a run): the caller
 * keeps the gitdir read-only as a whole; 0 otherwise; -ENOMEM. */
int gitcfg_repo_paths(struct gitcfg_run *run, const struct gitcfg_repo *repo, char ***paths);
