/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_text.c - shell quoting, and the text
 * `stockade explain --details` prints for a fs_seatbelt line.
 *
 * The explain text is for review and for the cross-module comparison test
 * (t/compare.sh), so its "paths:" block has a fixed form every enforcement
 * module can share:
 *
 *   paths:
 *     write /work/ws
 *     read_only /work/ws/.git
 *     hide /home/u/.ssh
 *
 * one "  ROLE PATH" line per path, the path quoted for a shell only when it
 * needs it (sb_buf_quoted), so a newline in a name never starts a new line.
 */
#include <stdarg.h>
#include <stdio.h>

#include "fs_seatbelt_internal.h"

static bool has_control(const char *s)
{
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        return true;
        return false;
}

/* $'...': the only quoting that writes a newline on one line. */
static void ansi_c_quoted(struct stk_buf *b, const char *s)
{
        stk_buf_adds(b, "$'");
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c == '\n')
                        stk_buf_adds(b, "\\n");
                else if (c == '\t')
                        stk_buf_adds(b, "\\t");
                else if (c == '\\' || c == '\'')
                        stk_buf_printf(b, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                        stk_buf_printf(b, "\\x%02x", c);
                else
                        stk_buf_printf(b, "%c", c);
        }
        stk_buf_adds(b, "'");
}

void sb_buf_quoted(struct stk_buf *b, const char *s)
{
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%";

        if (s[0] && !s[strspn(s, plain)]) {
                stk_buf_adds(b, s);
                return;
        }
        if (has_control(s)) {
                ansi_c_quoted(b, s);
                return;
        }
        stk_buf_adds(b, "'");
        for (; *s; s++)
                if (*s == '\'')
                        stk_buf_adds(b, "'\\''");
                else
                        stk_buf_printf(b, "%c", *s);
        stk_buf_adds(b, "'");
}

static void add_paths(struct stk_buf *b, const struct sb_profile *p, const char *tmp_note)
{
        stk_buf_adds(b, "paths:\n");
        for (size_t i = 0; i < p->n_params; i++) {
                stk_buf_printf(b, "  %s ", sb_role_name(p->params[i].role));
                sb_buf_quoted(b, p->params[i].value);
                if (p->params[i].role == SB_ROLE_TMPDIR && tmp_note)
                        stk_buf_printf(b, " (%s)", tmp_note);
                stk_buf_adds(b, "\n");
        }
}

/* One option (with its value) a line; the profile stands as "$PROFILE",
 * printed in full below. */
static void add_argv(struct stk_buf *b, const struct sb_profile *p)
{
        stk_buf_adds(b, "argv (PROFILE is the text below; the command follows the \"--\"):\n");
        for (size_t i = 0; p->argv[i]; i++) {
                const char *a = p->argv[i];
                stk_buf_adds(b, "  ");
                if (streq(a, "-p") && p->argv[i + 1]) {
                        stk_buf_adds(b, "-p \"$PROFILE\"");
                        i++;
                } else if (streq(a, "-D") && p->argv[i + 1]) {
                        stk_buf_adds(b, "-D ");
                        sb_buf_quoted(b, p->argv[++i]);
                } else {
                        sb_buf_quoted(b, a);
                }
                stk_buf_adds(b, "\n");
        }
}

int sb_explain_text(const struct sb_profile *p, const char *tmp_note, const char *platform_note, char **ret)
{
        struct stk_buf b = { 0 };

        stk_buf_adds(&b, "sandbox-exec with a profile generated from the settings; every path is a -D "
                   "parameter, none is in the profile text (stockade-fs_seatbelt(8))");
        if (platform_note)
                stk_buf_printf(&b, "; %s", platform_note);
        stk_buf_adds(&b, "\n");
        add_paths(&b, p, tmp_note);
        add_argv(&b, p);
        stk_buf_adds(&b, "PROFILE:\n");
        stk_buf_adds(&b, p->text);
        if (b.err < 0) {
                free(b.s);
                return b.err;
        }
        *ret = b.s;
        return 0;
}
