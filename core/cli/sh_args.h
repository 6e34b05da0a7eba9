/* SPDX-License-Identifier: MIT */
/* The shell entry's command line, read as bash reads its own (stockade-sh(1)). */
#pragma once
#include <stdbool.h>

struct sh_args {
        char **shell_opts;      /* the options to hand on to the real shell, in order (-l, -e, -o pipefail...) */
        const char *command;    /* the string after -c */
        char *const *rest;      /* $0 and the positional parameters, NULL-terminated */
        bool login, interactive;
};

/* argv[0] is the program; the rest is what `sh` would get.  0, or -EINVAL
 * with *ret_error set to a static message naming the offending word (then
 * ret_bad is it), or -ENOMEM. */
int sh_args_parse(char *const *argv, struct sh_args *ret, const char **ret_error, const char **ret_bad);
void sh_args_done(struct sh_args *a);
