/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: programs that are no wrappers but run code named in their
 * arguments (issue 14), as data:
 *   - an option whose value is a shell string (tar --to-command, split
 *     --filter, socat SYSTEM:...): the string is parsed like `sh -c`;
 *   - an option whose value is code perm_rules does not read (make --eval):
 *     ASK;
 *   - programs known to run their arguments without a modelled grammar
 *     (pr_known_runners): ASK;
 *   - interpreters.  Inline code (python3 -c, perl -e, node -e, awk
 *     'BEGIN{system(...)}', sed 's/x/y/e') is beyond a rule engine: it is
 *     ASK only under `interpreters: ask`.  An interpreter that reads its
 *     program from a pipe (curl ... | python3) is ASK always, as a shell
 *     would be; a here-document on its stdin is inline code.
 */
#include <fnmatch.h>
#include <string.h>

#include "pr_internal.h"
#include "pr_wrap.h"

enum code_kind { C_SHELL, C_ASK };

struct code_opt {
        const char *prog;     /* fnmatch glob on the basename */
        const char *opt;      /* a long option (also abbreviated down to `min` chars), -X, or a PREFIX: */
        size_t min;
        const char *value;    /* the value must start with this (tar's exec=); it is skipped */
        enum code_kind kind;
};

static const struct code_opt code_opts[] = {
        { "tar", "--checkpoint-action", 13, "exec=", C_SHELL }, { "tar", "--to-command", 5, NULL, C_SHELL },
        { "tar", "--use-compress-program", 6, NULL, C_SHELL }, { "tar", "-I", 2, NULL, C_SHELL },
        { "tar", "--info-script", 7, NULL, C_SHELL }, { "tar", "--new-volume-script", 6, NULL, C_SHELL },
        { "tar", "-F", 2, NULL, C_SHELL }, { "tar", "--rsh-command", 6, NULL, C_SHELL },
        { "split", "--filter", 4, NULL, C_SHELL },
        { "socat", "SYSTEM:", 7, NULL, C_SHELL }, { "socat", "EXEC:", 5, NULL, C_SHELL },
        { "socat", "system:", 7, NULL, C_SHELL }, { "socat", "exec:", 5, NULL, C_SHELL },
        { "make", "--eval", 4, NULL, C_ASK }, { "make", "-E", 2, NULL, C_ASK }, { "gmake", "--eval", 4, NULL, C_ASK },
        { "make", "SHELL=", 6, NULL, C_ASK }, { "make", ".SHELLFLAGS=", 12, NULL, C_ASK },
        { "rsync", "--rsh", 4, NULL, C_ASK }, { "rsync", "-e", 2, NULL, C_ASK },
        { "less", "+!", 2, NULL, C_ASK }, { "ssh", "-oProxyCommand", 6, NULL, C_ASK },
        { "sqlite3", ".shell", 6, NULL, C_ASK }, { "sqlite3", ".system", 7, NULL, C_ASK },
        { "zip", "--unzip-command", 4, NULL, C_SHELL }, { "zip", "-TT", 3, NULL, C_SHELL },
        { "ip", "exec", 4, NULL, C_ASK },
};

/* The value of code option `o` in word i, or NULL: attached, after `=`, or
 * the next word. */
static const char *code_value(const struct code_opt *o, const struct pr_word *w, size_t n, size_t i, bool *dyn)
{
        const char *t = w[i].text, *v = NULL;
        size_t len = strcspn(t, "=");

        if (o->opt[0] == '-' && o->opt[1] == '-') {
                if (len < o->min || len > strlen(o->opt) || strncmp(t, o->opt, len) != 0)
                        return NULL;
                v = t[len] ? t + len + 1 : i + 1 < n ? w[i + 1].text : "";
                *dyn = !t[len] && i + 1 < n && (w[i + 1].flags & PR_W_DYN);
        } else if (o->opt[0] == '-') {
                if (t[0] != '-' || t[1] == '-' || !strchr(t + 1, o->opt[1]))
                        return NULL;
                const char *at = strchr(t + 1, o->opt[1]) + 1;
                v = *at ? at : i + 1 < n ? w[i + 1].text : "";
                *dyn = !*at && i + 1 < n && (w[i + 1].flags & PR_W_DYN);
        } else {
                if (strncmp(t, o->opt, strlen(o->opt)) != 0)
                        return NULL;
                v = t + strlen(o->opt);
        }
        if (o->value) {
                if (strncmp(v, o->value, strlen(o->value)) != 0)
                        return NULL;
                v += strlen(o->value);
        }
        return v;
}

int pr_code_scan(const struct pr_word *w, size_t n, size_t from, struct pr_code *ret)
{
        const char *base = pr_basename(w[0].text);

        *ret = (struct pr_code){ PR_CODE_NONE, NULL, NULL };
        for (size_t i = from; i < n; i++) {
                if (w[i].flags & PR_W_DYN)
                        continue;
                for (size_t k = 0; k < sizeof(code_opts) / sizeof(code_opts[0]); k++) {
                        const struct code_opt *o = &code_opts[k];
                        bool dyn = false;
                        const char *v;
                        if (fnmatch(o->prog, base, 0) != 0 || !(v = code_value(o, w, n, i, &dyn)))
                                continue;
                        if (o->kind == C_ASK || dyn)
                                *ret = (struct pr_code){ PR_CODE_ASK, NULL,
                                                         "an option that makes the program run code of its value" };
                        else
                                *ret = (struct pr_code){ PR_CODE_SHELL, v, NULL };
                        return (int) (i + 1);
                }
        }
        return (int) n;
}

bool pr_known_runner(const char *prog)
{
        for (const char *const *r = pr_known_runners; *r; r++)
                if (strcmp(*r, prog) == 0)
                        return true;
        return false;
}

/* ---- interpreters ---------------------------------------------------------- */

struct interp {
        const char *prog;          /* fnmatch glob on the basename */
        const char *inline_short;  /* -c CODE, -e CODE */
        const char *arg_short;     /* options that take the next word */
        const char *const *inline_long;
        const char *module_short;  /* -m MODULE: a program by name, not stdin */
        bool program_operand;      /* awk, sed: the first operand is the program */
        const char *file_short;    /* awk -f FILE, sed -f FILE: then no program operand */
};

#define L(...) (const char *const[]){ __VA_ARGS__, NULL }
static const struct interp interps[] = {
        { "python*", "c", "WXQ", NULL, "m", false, NULL },
        { "pypy*", "c", "WXQ", NULL, "m", false, NULL },
        { "perl*", "eE", NULL, NULL, NULL, false, NULL },
        { "ruby*", "e", "IrCEFT", NULL, NULL, false, NULL },
        { "node", "ep", "r", L("--eval", "--print"), NULL, false, NULL },
        { "nodejs", "ep", "r", L("--eval", "--print"), NULL, false, NULL },
        { "php*", "rBRFE", "cdz", NULL, NULL, false, "f" },
        { "lua*", "e", "l", NULL, NULL, false, NULL },
        { "Rscript", "e", NULL, NULL, NULL, false, NULL },
        { "julia", "eE", NULL, L("--eval", "--print"), NULL, false, NULL },
        { "osascript", "e", NULL, NULL, NULL, false, NULL },
        { "tclsh*", NULL, NULL, NULL, NULL, false, NULL },
        { "wish*", NULL, NULL, NULL, NULL, false, NULL },
        { "*awk", NULL, "vF", NULL, NULL, true, "f" },
        { "sed", "e", "lf", L("--expression"), NULL, true, "f" },
        { "vim", "cS", NULL, L("--cmd"), NULL, false, NULL },
        { "nvim", "cS", NULL, L("--cmd"), NULL, false, NULL },
        { "vi", "cS", NULL, L("--cmd"), NULL, false, NULL },
        { "ex", "cS", NULL, L("--cmd"), NULL, false, NULL },
        { "emacs", NULL, NULL, L("--eval", "-eval", "--execute"), NULL, false, NULL },
};

static bool long_inline(const struct interp *in, const char *t)
{
        size_t len = strcspn(t, "=");

        for (const char *const *l = in->inline_long; l && *l; l++)
                if (strlen(*l) == len && strncmp(*l, t, len) == 0)
                        return true;
        return false;
}

/* Reads the options: INLINE, MODULE or FILE (a file or the program
 * operand follows), or STDIN (nothing names the program). */
enum interp_source { SRC_STDIN, SRC_INLINE, SRC_FILE };

static enum interp_source interp_source(const struct interp *in, const struct pr_word *w, size_t n)
{
        bool file_given = false;

        for (size_t i = 1; i < n; i++) {
                const char *t = w[i].text;
                if (w[i].flags & PR_W_DYN)
                        return SRC_FILE;   /* an expansion: a file, or anything; the rules judge it */
                if (t[0] == '+' && in->inline_short && strchr(in->inline_short, 'c'))
                        return SRC_INLINE;  /* vim +cmd */
                if (strcmp(t, "-") == 0 || (t[0] != '-' && pr_is_stream_path(t)))
                        return SRC_STDIN;
                if (!strcmp(t, "--version") || !strcmp(t, "-V") || !strcmp(t, "--help") || !strcmp(t, "-h") ||
                    !strcmp(t, "-version"))
                        return SRC_FILE;   /* prints and exits, reads no program */
                if (strcmp(t, "--") == 0)
                        return i + 1 < n ? (in->program_operand && !file_given ? SRC_INLINE : SRC_FILE) :
                                           file_given ? SRC_FILE : SRC_STDIN;
                if (t[0] != '-')
                        return in->program_operand && !file_given ? SRC_INLINE : SRC_FILE;
                if (t[1] == '-') {
                        if (long_inline(in, t))
                                return SRC_INLINE;
                        continue;
                }
                if (long_inline(in, t))
                        return SRC_INLINE;
                for (size_t j = 1; t[j]; j++) {
                        char c = t[j];
                        if (in->inline_short && strchr(in->inline_short, c))
                                return SRC_INLINE;
                        if (in->module_short && strchr(in->module_short, c))
                                return SRC_FILE;
                        if (in->file_short && strchr(in->file_short, c)) {
                                file_given = true;
                                i += t[j + 1] == '\0';
                                break;
                        }
                        if (in->arg_short && strchr(in->arg_short, c)) {
                                i += t[j + 1] == '\0';
                                break;
                        }
                }
        }
        return file_given ? SRC_FILE : SRC_STDIN;
}

const char *pr_interpreter_check(const struct pr_word *w, size_t n, bool stdin_literal, bool ask_inline)
{
        const char *base = pr_basename(w[0].text);

        for (size_t k = 0; k < sizeof(interps) / sizeof(interps[0]); k++) {
                const struct interp *in = &interps[k];
                if (fnmatch(in->prog, base, 0) != 0)
                        continue;
                enum interp_source src = interp_source(in, w, n);
                if (src == SRC_STDIN && !stdin_literal)
                        return "an interpreter reading its program from standard input (a pipe into it)";
                if (src != SRC_FILE && ask_inline)   /* a here-document on stdin is inline code too */
                        return "inline interpreter code (interpreters: ask): beyond a rule engine";
                return NULL;
        }
        return NULL;
}
