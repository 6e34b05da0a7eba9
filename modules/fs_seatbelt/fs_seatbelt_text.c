/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_text.c - a growing string, shell quoting, and the text
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

static bool grow(struct sb_buf *b, size_t more)
{
        size_t cap;
        char *s;

        if (b->err < 0)
                return false;
        if (b->len + more + 1 <= b->cap)
                return true;
        cap = b->cap ? b->cap : 256;
        while (cap < b->len + more + 1)
                cap *= 2;
        s = realloc(b->s, cap);
        if (!s) {
                b->err = -ENOMEM;
                return false;
        }
        b->s = s;
        b->cap = cap;
        return true;
}

void sb_buf_add(struct sb_buf *b, const char *s)
{
        size_t n = strlen(s);

        if (!grow(b, n))
                return;
        memcpy(b->s + b->len, s, n + 1);
        b->len += n;
}

void sb_buf_printf(struct sb_buf *b, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                b->err = b->err < 0 ? b->err : -EINVAL;
                return;
        }
        if (!grow(b, (size_t) n))
                return;
        va_start(ap, fmt);
        (void) vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap); /* sized above: cannot truncate */
        va_end(ap);
        b->len += (size_t) n;
}

static bool has_control(const char *s)
{
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        return true;
        return false;
}

/* $'...': the only quoting that writes a newline on one line. */
static void ansi_c_quoted(struct sb_buf *b, const char *s)
{
        sb_buf_add(b, "$'");
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c == '\n')
                        sb_buf_add(b, "\\n");
                else if (c == '\t')
                        sb_buf_add(b, "\\t");
                else if (c == '\\' || c == '\'')
                        sb_buf_printf(b, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                        sb_buf_printf(b, "\\x%02x", c);
                else
                        sb_buf_printf(b, "%c", c);
        }
        sb_buf_add(b, "'");
}

void sb_buf_quoted(struct sb_buf *b, const char *s)
{
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%";

        if (s[0] && !s[strspn(s, plain)]) {
                sb_buf_add(b, s);
                return;
        }
        if (has_control(s)) {
                ansi_c_quoted(b, s);
                return;
        }
        sb_buf_add(b, "'");
        for (; *s; s++)
                if (*s == '\'')
                        sb_buf_add(b, "'\\''");
                else
                        sb_buf_printf(b, "%c", *s);
        sb_buf_add(b, "'");
}

static void add_paths(struct sb_buf *b, const struct sb_profile *p, const char *tmp_note)
{
        sb_buf_add(b, "paths:\n");
        for (size_t i = 0; i < p->n_params; i++) {
                sb_buf_printf(b, "  %s ", sb_role_name(p->params[i].role));
                sb_buf_quoted(b, p->params[i].value);
                if (p->params[i].role == SB_ROLE_TMPDIR && tmp_note)
                        sb_buf_printf(b, " (%s)", tmp_note);
                sb_buf_add(b, "\n");
        }
}

/* One option (with its value) a line; the profile stands as "$PROFILE",
 * printed in full below. */
static void add_argv(struct sb_buf *b, const struct sb_profile *p)
{
        sb_buf_add(b, "argv (PROFILE is the text below; the command follows the \"--\"):\n");
        for (size_t i = 0; p->argv[i]; i++) {
                const char *a = p->argv[i];
                sb_buf_add(b, "  ");
                if (streq(a, "-p") && p->argv[i + 1]) {
                        sb_buf_add(b, "-p \"$PROFILE\"");
                        i++;
                } else if (streq(a, "-D") && p->argv[i + 1]) {
                        sb_buf_add(b, "-D ");
                        sb_buf_quoted(b, p->argv[++i]);
                } else {
                        sb_buf_quoted(b, a);
                }
                sb_buf_add(b, "\n");
        }
}

int sb_explain_text(const struct sb_profile *p, const char *tmp_note, const char *platform_note, char **ret)
{
        struct sb_buf b = { 0 };

        sb_buf_add(&b, "sandbox-exec with a profile generated from the settings; every path is a -D "
                   "parameter, none is in the profile text (stockade-fs_seatbelt(8))");
        if (platform_note)
                sb_buf_printf(&b, "; %s", platform_note);
        sb_buf_add(&b, "\n");
        add_paths(&b, p, tmp_note);
        add_argv(&b, p);
        sb_buf_add(&b, "PROFILE:\n");
        sb_buf_add(&b, p->text);
        if (b.err < 0) {
                free(b.s);
                return b.err;
        }
        *ret = b.s;
        return 0;
}
