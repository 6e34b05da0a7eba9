/* SPDX-License-Identifier: MIT */
/*
 * Options as bash takes them: any order before the first operand, single
 * letters bundled (-lc, -ec), -o/+o and -O/+O with their argument in the
 * next word, bash's long options, `--` or `-` ending them.  -c makes the
 * first operand the command string and the next ones $0, $1...  Claude Code
 * calls `SHELL -c -l 'script'`: the -l after -c is an option, as for bash.
 */
#include "sh_args.h"
#include "common/stk_strv.h"
#include "util/util.h"

/* set -o letters bash accepts on its command line (c, s, l, i, r, D
 * handled apart), and the long options that take no argument. */
static const char shell_letters[] = "abefhkmnptuvxBCEHPT";
static const char *const long_options[] = { "login", "noprofile", "norc", "posix", "noediting", "verbose",
                                            "restricted", "debugger", "dump-po-strings", "dump-strings",
                                            "protected", NULL };

struct sh_parse {
        struct sh_args *a;
        bool want_command;
        const char *error, *bad;
};

static int fail(struct sh_parse *p, const char *error, const char *word)
{
        p->error = error;
        p->bad = word;
        return -EINVAL;
}

static int long_option(struct sh_parse *p, const char *word)
{
        if (!strv_contains(long_options, word + 2))
                return fail(p, "an option bash does not take", word);
        if (streq(word, "--login"))
                p->a->login = true;
        return strv_push(&p->a->shell_opts, word);
}

/* -abc or +abc; *i moves past an -o/-O argument. */
static int letters(struct sh_parse *p, char *const *argv, size_t *i)
{
        const char *word = argv[*i];
        int r = 0;

        for (const char *c = word + 1; *c && r >= 0; c++) {
                char flag[3] = { word[0], *c, '\0' };
                if (*c == 'c') {
                        if (word[0] == '+')
                                return fail(p, "+c: a command string is turned on, not off", word);
                        p->want_command = true;
                        continue;
                }
                if (*c == 'o' || *c == 'O') {
                        if (!argv[*i + 1])
                                return fail(p, "an option that needs an argument in the next word", word);
                        r = strv_push(&p->a->shell_opts, flag);
                        if (r >= 0)
                                r = strv_push(&p->a->shell_opts, argv[++*i]);
                        continue;
                }
                if (*c == 'l')
                        p->a->login = true;
                else if (*c == 'i')
                        p->a->interactive = true;
                else if (*c == 's')
                        return fail(p, "-s: the script would come from stdin, which is not judged; "
                                    "expected -c STRING", word);
                else if (!strchr(shell_letters, *c) && !(*c == 'r' && word[0] == '-'))
                        return fail(p, "an option bash does not take", word);
                r = strv_push(&p->a->shell_opts, flag);
        }
        return r;
}

int sh_args_parse(char *const *argv, struct sh_args *ret, const char **ret_error, const char **ret_bad)
{
        struct sh_parse p = { .a = ret };
        size_t i = 1;
        int r = 0;

        *ret = (struct sh_args) { 0 };
        for (; argv[i] && r >= 0; i++) {
                const char *w = argv[i];
                if (streq(w, "--") || streq(w, "-")) {
                        i++;
                        break;
                }
                if (w[0] != '-' && w[0] != '+')
                        break;
                r = strncmp(w, "--", 2) == 0 ? long_option(&p, w) : letters(&p, argv, &i);
        }
        if (r >= 0 && !p.want_command)
                r = fail(&p, "only `sh -c STRING` is taken (a script file or stdin would run unjudged)",
                         argv[i] ? argv[i] : "(no -c)");
        if (r >= 0 && !argv[i])
                r = fail(&p, "-c: a command string is needed after the options", "-c");
        if (r >= 0) {
                ret->command = argv[i];
                ret->rest = argv + i + 1;
                return 0;
        }
        sh_args_done(ret);
        *ret_error = p.error;
        *ret_bad = p.bad;
        return r;
}

void sh_args_done(struct sh_args *a)
{
        a->shell_opts = strv_free(a->shell_opts);
}
