/* SPDX-License-Identifier: MIT */
/*
 * git's config file format, parsed as git's own parser does it (config.c,
 * git_parse_source and its helpers, git 2.39; git-config(1), CONFIGURATION
 * FILE), byte for byte where it matters for what git runs:
 *
 * - a UTF-8 BOM at the start is skipped; "\r\n" is a newline;
 * - "#" and ";" start a comment, outside a quoted value;
 * - [section] and [section "subsection"]: the section's characters are
 *   alphanumerics, "-" and "." and are lowercased; a subsection is quoted,
 *   "\" takes the next character as it is, a newline ends it in error; an
 *   old-style [section.sub] is lowercased whole;
 * - a key starts with a letter, then alphanumerics and "-", lowercased; a
 *   key alone is a boolean true; what follows a header on its line is
 *   parsed as the next entry;
 * - a value: leading blanks dropped, a run of blanks inside becomes as many
 *   spaces, trailing ones dropped; double quotes toggle quoting (and are
 *   not part of the value); the escapes \\ \" \n \t \b and a backslash-
 *   newline continuation; any other escape, and a quote left open at the
 *   end of a line, are errors;
 * - a NUL byte is kept and ends the string git's callback sees (the key
 *   too: git builds "section.sub.name" in one buffer).
 *
 * Stricter than git would leave a path git runs unprotected (the caller
 * only keeps the gitdir read-only on an error), so every difference from
 * git is a bug; t/unit/test_gitconfig.c holds the cases.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "common/stk_buf.h"
#include "common/stk_util.h"
#include "gitconfig.h"

/* Reading position, as git's get_next_char sees the file. */
struct cursor {
        const char *p, *end;
        unsigned line, col;
        unsigned last_col;              /* of the newline last read */
        bool eof;
        struct stk_buf key, value;
        size_t section_len;             /* of the header's part of key */
};

/* The next character, "\r\n" read as "\n", the end as a final "\n" with
 * eof set (as git's get_next_char). */
static int next_char(struct cursor *c)
{
        int ch;

        if (c->p >= c->end) {
                c->eof = true;
                c->last_col = c->col + 1;
                c->line++;
                c->col = 0;
                return '\n';
        }
        ch = (unsigned char) *c->p++;
        if (ch == '\r' && c->p < c->end && *c->p == '\n')
                ch = (unsigned char) *c->p++;
        if (ch == '\n') {
                c->last_col = c->col + 1;
                c->line++;
                c->col = 0;
        } else {
                c->col++;
        }
        return ch;
}

static bool is_key_char(int ch)
{
        return isalnum(ch) || ch == '-';
}

/* isspace in the C locale, as git's sane_ctype. */
static bool is_space(int ch)
{
        return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static int fail(struct cursor *c, struct gitcfg_error *err, const char *why)
{
        /* a newline already read counts to the line it ended (git's linenr--) */
        err->line = c->col == 0 && c->line > 1 ? c->line - 1 : c->line;
        err->col = c->col == 0 ? c->last_col : c->col;
        err->why = why;
        return -EINVAL;
}

/* After [section and a blank: "subsection"] */
static int header_subsection(struct cursor *c, int ch, struct gitcfg_error *err)
{
        while (is_space(ch)) {
                if (ch == '\n')
                        return fail(c, err, "a section header ends before its ]");
                ch = next_char(c);
        }
        if (ch != '"')
                return fail(c, err, "a subsection must be in double quotes");
        stk_buf_addc(&c->key, '.');
        for (;;) {
                ch = next_char(c);
                if (ch == '\n')
                        return fail(c, err, "a subsection ends before its closing quote");
                if (ch == '"')
                        break;
                if (ch == '\\') {
                        ch = next_char(c);
                        if (ch == '\n')
                                return fail(c, err, "a subsection ends before its closing quote");
                }
                stk_buf_addc(&c->key, (char) ch);
        }
        if (next_char(c) != ']')
                return fail(c, err, "a subsection's closing quote must be followed by ]");
        return 0;
}

/* After "[": the section, lowercased, and its subsection as written. */
static int header(struct cursor *c, struct gitcfg_error *err)
{
        stk_buf_truncate(&c->key, 0);
        for (;;) {
                int ch = next_char(c);

                if (c->eof)
                        return fail(c, err, "a section header ends before its ]");
                if (ch == ']')
                        break;
                if (is_space(ch)) {
                        int r = header_subsection(c, ch, err);
                        if (r < 0)
                                return r;
                        break;
                }
                if (!is_key_char(ch) && ch != '.')
                        return fail(c, err, "a section name holds only letters, digits, - and .");
                stk_buf_addc(&c->key, (char) tolower(ch));
        }
        if (c->key.len == 0)
                return fail(c, err, "an empty section name");
        c->section_len = c->key.len;
        return 0;
}

/* A backslash escape inside a value: the character, '\n' for a
 * continuation (nothing added), -1 for one git rejects. */
static int escape(struct cursor *c, bool *ret_continued)
{
        int ch = next_char(c);

        *ret_continued = false;
        switch (ch) {
        case '\n': /* at the end too: git then ends the value there */
                *ret_continued = true;
                return '\n';
        case 't': return '\t';
        case 'b': return '\b';
        case 'n': return '\n';
        case '\\':
        case '"': return ch;
        default: return -1;
        }
}

/* After "=": the value, into c->value (git's parse_value). */
static int value(struct cursor *c, struct gitcfg_error *err)
{
        bool quote = false, comment = false;
        size_t space = 0;

        stk_buf_truncate(&c->value, 0);
        for (;;) {
                int ch = next_char(c);

                if (ch == '\n') {
                        if (quote)
                                return fail(c, err, "a quoted value is not closed at the end of its line");
                        return 0;
                }
                if (comment)
                        continue;
                if (is_space(ch) && !quote) {
                        space += c->value.len > 0;
                        continue;
                }
                if (!quote && (ch == ';' || ch == '#')) {
                        comment = true;
                        continue;
                }
                for (; space; space--)
                        stk_buf_addc(&c->value, ' ');
                if (ch == '\\') {
                        bool continued;
                        ch = escape(c, &continued);
                        if (ch < 0)
                                return fail(c, err, "an unknown escape in a value (\\\\ \\\" \\n \\t \\b only)");
                        if (!continued)
                                stk_buf_addc(&c->value, (char) ch);
                        continue;
                }
                if (ch == '"') {
                        quote = !quote;
                        continue;
                }
                stk_buf_addc(&c->value, (char) ch);
        }
}

/* An entry whose key starts with `first`: the rest of the key, then a
 * value or none; fn gets it. */
static int entry(struct cursor *c, int first, gitcfg_fn fn, void *userdata, struct gitcfg_error *err)
{
        unsigned line = c->line;
        bool has_value = false;
        int ch, r;

        /* before any [section] git takes the key alone (a key no part of
         * git reads: they all have a section) */
        stk_buf_truncate(&c->key, c->section_len);
        if (c->section_len > 0)
                stk_buf_addc(&c->key, '.');
        stk_buf_addc(&c->key, (char) tolower(first));
        for (;;) {
                ch = next_char(c);
                if (c->eof || !is_key_char(ch))
                        break;
                stk_buf_addc(&c->key, (char) tolower(ch));
        }
        while (ch == ' ' || ch == '\t')
                ch = next_char(c);
        if (ch != '\n') {
                if (ch != '=')
                        return fail(c, err, "a key is followed by = or the end of its line");
                r = value(c, err);
                if (r < 0)
                        return r;
                has_value = true;
        }
        if (c->key.err || c->value.err)
                return -ENOMEM;
        /* strings end at a NUL, as the C strings git's callbacks get */
        return fn(&(struct gitcfg_item) { .key = c->key.s, .value = has_value ? (c->value.s ? c->value.s : "") : NULL, .line = line },
                  userdata);
}

static void skip_bom(struct cursor *c)
{
        if (c->end - c->p >= 3 && memcmp(c->p, "\xef\xbb\xbf", 3) == 0)
                c->p += 3;
}

static int parse_all(struct cursor *c, gitcfg_fn fn, void *userdata, struct gitcfg_error *err)
{
        bool comment = false;

        skip_bom(c);
        for (;;) {
                int ch = next_char(c), r = 0;

                if (ch == '\n') {
                        if (c->eof)
                                return 0;
                        comment = false;
                        continue;
                }
                if (comment || is_space(ch))
                        continue;
                if (ch == '#' || ch == ';') {
                        comment = true;
                        continue;
                }
                if (ch == '[')
                        r = header(c, err);
                else if (isalpha(ch))
                        r = entry(c, ch, fn, userdata, err);
                else
                        r = fail(c, err, "a line starts with a key, a [section] or a comment");
                if (r < 0)
                        return r;
                if (c->key.err)
                        return -ENOMEM;
        }
}

int gitcfg_parse(const char *text, size_t len, gitcfg_fn fn, void *userdata, struct gitcfg_error *err)
{
        struct cursor c = { .p = text, .end = text + len, .line = 1 };
        int r;

        *err = (struct gitcfg_error) { 0 };
        r = parse_all(&c, fn, userdata, err);
        stk_buf_done(&c.key);
        stk_buf_done(&c.value);
        return r;
}

int gitcfg_split_key(const char *key, struct gitcfg_key *ret)
{
        const char *first = strchr(key, '.'), *last = strrchr(key, '.');

        if (!first)
                return -EINVAL;
        *ret = (struct gitcfg_key) {
                .section = key,
                .section_len = (size_t) (first - key),
                .name = last + 1,
                .sub = first == last ? NULL : first + 1,
                .sub_len = first == last ? 0 : (size_t) (last - first - 1),
        };
        return 0;
}
