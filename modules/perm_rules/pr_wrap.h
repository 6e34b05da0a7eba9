/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: the wrapper table's row (pr_wrap_table.c holds the data,
 * pr_wrap.c reads argv with it).
 */
#pragma once
#include <stddef.h>

enum {
        W_ASSIGNS    = 1u << 0,  /* NAME=value operands before the command (env, sudo) */
        W_DIGITS     = 1u << 2,  /* -N is an option (nice -10) */
        W_DASH       = 1u << 3,  /* a lone `-` is an option (env -) */
        W_XARGS      = 1u << 4,  /* -I / -i / --replace name the stand-in for input */
        W_EMPTY      = 1u << 5,  /* alone, it runs nothing (exec >log, time, command) */
        W_JOINED     = 1u << 6,  /* the command's words, joined by blanks, are a shell string (watch, sg) */
        W_BARE_SHELL = 1u << 7,  /* with no command it runs an interactive shell (chroot, unshare) */
        W_OPTS_AFTER = 1u << 8,  /* options may follow the operands (flock FILE -c ...) */
        W_LONG_ANY   = 1u << 9,  /* every --name[=value] is one word (valgrind, firejail) */
        W_STRING_ONLY = 1u << 10, /* runs only its shell-string option; without one, an interactive shell (script) */
};

struct pr_wrapper {
        const char *name;
        const char *sub;                   /* set: only `name sub ...` (npm exec, uv run) */
        const char *noarg, *arg, *optarg;  /* short options: none, one, attached-only argument */
        const char *opaque, *self;         /* short options that hide the command / run none */
        const char *shell;                 /* short options whose argument is a shell string (su -c) */
        const char *unjoin;                /* short options that turn W_JOINED off (watch -x) */
        const char *direct;                /* short options after which no operand comes (runuser -u) */
        const char *const *long_noarg, *const *long_arg, *const *long_opaque, *const *long_self;
        const char *const *long_shell, *const *long_unjoin, *const *long_direct;
        unsigned operands;                 /* operands before the command (timeout DURATION) */
        unsigned flags;
};

extern const struct pr_wrapper pr_wrappers[];
extern const size_t pr_n_wrappers;
/* Programs known to run their arguments whose grammar is not modelled:
 * ASK (issue 14).  NULL-terminated; no name is also a wrapper. */
extern const char *const pr_known_runners[];
