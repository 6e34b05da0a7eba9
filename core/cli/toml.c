/* SPDX-License-Identifier: MIT */
/* The TOML reader of toml.h: a recursive descent over the text, one
 * function per grammar rule, the position kept for error messages. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "common/stk_buf.h"
#include "common/stk_util.h"
#include "toml.h"

#define TOML_MAX_DEPTH 64

struct toml {
        const char *p, *end, *line_start, *name;
        unsigned line;
        char *err;
        size_t err_size;
        bool failed;
        struct json_object *root;
        /* Tables made by a [header] or a key = value, as "\x01"-joined
         * paths: TOML lets a header name an implicit table once, never a
         * defined one again. */
        char **defined;
        size_t n_defined;
};

static int fail(struct toml *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct toml *t, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (t->failed)
                return -1;
        t->failed = true;
        n = snprintf(t->err, t->err_size, "%s:%u:%zu: ", t->name, t->line, (size_t) (t->p - t->line_start) + 1);
        va_start(ap, fmt);
        if (n >= 0 && (size_t) n < t->err_size)
                vsnprintf(t->err + n, t->err_size - (size_t) n, fmt, ap);
        va_end(ap);
        return -1;
}

static bool at_end(const struct toml *t) { return t->p >= t->end; }

/* What stands at the position, for a message: 'c', a newline, 0xNN. */
static const char *here(const struct toml *t, char buf[static 16])
{
        unsigned char c = t->p < t->end ? (unsigned char) *t->p : 0;

        if (t->p >= t->end)
                return "the end of the text";
        if (c == '\n' || c == '\r')
                return "the end of the line";
        if (c < 0x20 || c >= 0x7f)
                snprintf(buf, 16, "byte 0x%02x", c);
        else
                snprintf(buf, 16, "'%c'", c);
        return buf;
}
static char peek(const struct toml *t) { return at_end(t) ? '\0' : *t->p; }
static bool looking_at(const struct toml *t, const char *s)
{
        size_t n = strlen(s);
        return (size_t) (t->end - t->p) >= n && memcmp(t->p, s, n) == 0;
}

static void newline(struct toml *t)
{
        t->line++;
        t->line_start = t->p;
}

/* Spaces and tabs only. */
static void skip_ws(struct toml *t)
{
        while (!at_end(t) && (*t->p == ' ' || *t->p == '\t'))
                t->p++;
}

static int skip_comment(struct toml *t)
{
        if (peek(t) != '#')
                return 0;
        for (; !at_end(t) && *t->p != '\n'; t->p++)
                if ((unsigned char) *t->p < 0x20 && *t->p != '\t' && *t->p != '\r')
                        return fail(t, "a control character (0x%02x) in a comment", (unsigned char) *t->p);
        return 0;
}

/* The end of a line: a newline (or \r\n), or the end of the text. */
static int end_of_line(struct toml *t)
{
        if (at_end(t))
                return 0;
        if (looking_at(t, "\r\n"))
                t->p++;
        if (*t->p != '\n')
                return fail(t, "expected the end of the line, found %s", here(t, (char[16]) { 0 }));
        t->p++;
        newline(t);
        return 0;
}

/* Blank lines, comments, in arrays also the newlines between values. */
static int skip_ws_comments_newlines(struct toml *t)
{
        for (;;) {
                skip_ws(t);
                if (skip_comment(t) < 0)
                        return -1;
                if (at_end(t) || (*t->p != '\n' && !looking_at(t, "\r\n")))
                        return 0;
                if (end_of_line(t) < 0)
                        return -1;
        }
}

static void add_utf8(struct stk_buf *b, unsigned long c)
{
        if (c < 0x80)
                stk_buf_addc(b, (char) c);
        else if (c < 0x800) {
                stk_buf_addc(b, (char) (0xc0 | (c >> 6)));
                stk_buf_addc(b, (char) (0x80 | (c & 0x3f)));
        } else if (c < 0x10000) {
                stk_buf_addc(b, (char) (0xe0 | (c >> 12)));
                stk_buf_addc(b, (char) (0x80 | ((c >> 6) & 0x3f)));
                stk_buf_addc(b, (char) (0x80 | (c & 0x3f)));
        } else {
                stk_buf_addc(b, (char) (0xf0 | (c >> 18)));
                stk_buf_addc(b, (char) (0x80 | ((c >> 12) & 0x3f)));
                stk_buf_addc(b, (char) (0x80 | ((c >> 6) & 0x3f)));
                stk_buf_addc(b, (char) (0x80 | (c & 0x3f)));
        }
}

static int unicode_escape(struct toml *t, int digits, struct stk_buf *b)
{
        unsigned long c = 0;

        for (int i = 0; i < digits; i++, t->p++) {
                int v = at_end(t) ? -1 : stk_hex_value(*t->p);
                if (v < 0)
                        return fail(t, "expected %d hex digits after \\%c", digits, digits == 4 ? 'u' : 'U');
                c = c * 16 + (unsigned long) v;
        }
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return fail(t, "\\%c%0*lx is not a Unicode scalar value", digits == 4 ? 'u' : 'U', digits, c);
        add_utf8(b, c);
        return 0;
}

/* After a line-ending backslash: blanks and newlines up to the next text. */
static int skip_string_whitespace(struct toml *t)
{
        while (!at_end(t)) {
                if (*t->p == ' ' || *t->p == '\t')
                        t->p++;
                else if (*t->p == '\n' || looking_at(t, "\r\n")) {
                        if (end_of_line(t) < 0)
                                return -1;
                } else
                        break;
        }
        return 0;
}

/* At the character after a backslash of a basic string. */
static int escape(struct toml *t, struct stk_buf *b, bool multiline)
{
        static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
        const char *e = at_end(t) ? NULL : strchr(from, *t->p);

        if (e && *t->p) {
                stk_buf_addc(b, to[e - from]);
                t->p++;
                return 0;
        }
        if (looking_at(t, "u") || looking_at(t, "U")) {
                int digits = *t->p == 'u' ? 4 : 8;
                t->p++;
                return unicode_escape(t, digits, b);
        }
        if (multiline) { /* a line-ending backslash: the newline and the blanks after it go */
                const char *q = t->p;
                while (q < t->end && (*q == ' ' || *q == '\t'))
                        q++;
                if (q < t->end && (*q == '\n' || *q == '\r')) {
                        t->p = q;
                        return skip_string_whitespace(t);
                }
        }
        return fail(t, "an unknown escape: a backslash before %s", here(t, (char[16]) { 0 }));
}

/* A control character other than tab may not stand in a string. */
static int string_char(struct toml *t, struct stk_buf *b)
{
        unsigned char c = (unsigned char) *t->p;

        if ((c < 0x20 && c != '\t') || c == 0x7f)
                return fail(t, "a control character (0x%02x) in a string", c);
        stk_buf_addc(b, (char) c);
        t->p++;
        return 0;
}

/* At the opening quote(s); *ret the text (malloc()ed). */
static int string(struct toml *t, char **ret)
{
        _cleanup_(stk_buf_done) struct stk_buf b = { 0 };
        bool literal = *t->p == '\'';
        const char *close = literal ? "'''" : "\"\"\"";
        bool multiline = looking_at(t, close);
        int r = 0;

        t->p += multiline ? 3 : 1;
        if (multiline && looking_at(t, "\r\n"))
                t->p++;
        if (multiline && looking_at(t, "\n")) { /* a newline right after the quotes is not part of it */
                t->p++;
                newline(t);
        }
        for (;;) {
                if (at_end(t))
                        return fail(t, "the text ends inside a string");
                if (multiline && looking_at(t, close)) {
                        t->p += 3;
                        /* up to two quotes right before the closing three belong to the string */
                        for (int i = 0; i < 2 && peek(t) == close[0]; i++, t->p++)
                                stk_buf_addc(&b, close[0]);
                        break;
                }
                if (!multiline && *t->p == close[0]) {
                        t->p++;
                        break;
                }
                if (*t->p == '\n' || looking_at(t, "\r\n")) {
                        if (!multiline)
                                return fail(t, "a newline inside a string (triple quotes make a multi-line one)");
                        if (*t->p == '\r')
                                t->p++;
                        t->p++;
                        stk_buf_addc(&b, '\n');
                        newline(t);
                        continue;
                }
                if (!literal && *t->p == '\\') {
                        t->p++;
                        r = escape(t, &b, multiline);
                } else
                        r = string_char(t, &b);
                if (r < 0)
                        return -1;
        }
        *ret = stk_buf_take(&b);
        return *ret ? 0 : fail(t, "out of memory");
}

static bool bare_key_char(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* One part of a dotted key: bare, "basic" or 'literal'. */
static int simple_key(struct toml *t, char **ret)
{
        const char *start = t->p;

        if (peek(t) == '"' || peek(t) == '\'') {
                if (looking_at(t, "\"\"\"") || looking_at(t, "'''"))
                        return fail(t, "a multi-line string cannot be a key");
                return string(t, ret);
        }
        while (!at_end(t) && bare_key_char(*t->p))
                t->p++;
        if (t->p == start)
                return fail(t, "expected a key, found %s", here(t, (char[16]) { 0 }));
        *ret = strndup(start, (size_t) (t->p - start));
        return *ret ? 0 : fail(t, "out of memory");
}

static void free_parts(char **parts)
{
        for (size_t i = 0; parts && parts[i]; i++)
                free(parts[i]);
        free(parts);
}

/* a.b."c d": its parts, NULL-ended (free_parts). */
static int dotted_key(struct toml *t, char ***ret)
{
        char **parts = calloc(1, sizeof(char *));
        size_t n = 0;

        if (!parts)
                return fail(t, "out of memory");
        for (;;) {
                char *part, **np;
                skip_ws(t);
                if (simple_key(t, &part) < 0)
                        break;
                np = realloc(parts, (n + 2) * sizeof(char *));
                if (!np) {
                        free(part);
                        fail(t, "out of memory");
                        break;
                }
                parts = np;
                parts[n++] = part;
                parts[n] = NULL;
                skip_ws(t);
                if (peek(t) != '.') {
                        *ret = parts;
                        return 0;
                }
                t->p++;
        }
        free_parts(parts);
        return -1;
}

static int value(struct toml *t, unsigned depth, struct json_object **ret);

static int array(struct toml *t, unsigned depth, struct json_object **ret)
{
        struct json_object *a = json_object_new_array();

        t->p++; /* [ */
        if (!a)
                return fail(t, "out of memory");
        for (;;) {
                struct json_object *v;
                if (skip_ws_comments_newlines(t) < 0)
                        break;
                if (peek(t) == ']') {
                        t->p++;
                        *ret = a;
                        return 0;
                }
                if (value(t, depth + 1, &v) < 0)
                        break;
                json_object_array_add(a, v);
                if (skip_ws_comments_newlines(t) < 0)
                        break;
                if (peek(t) == ',')
                        t->p++;
                else if (peek(t) != ']') {
                        fail(t, "expected ',' or ']' in an array");
                        break;
                }
        }
        json_object_put(a);
        return -1;
}

static int keyval(struct toml *t, struct json_object *table, const char *path, unsigned depth);

static int inline_table(struct toml *t, unsigned depth, struct json_object **ret)
{
        struct json_object *o = json_object_new_object();

        t->p++; /* { */
        if (!o)
                return fail(t, "out of memory");
        skip_ws(t);
        if (peek(t) == '}') {
                t->p++;
                *ret = o;
                return 0;
        }
        for (;;) {
                if (keyval(t, o, NULL, depth + 1) < 0)
                        break;
                skip_ws(t);
                if (peek(t) == '}') {
                        t->p++;
                        *ret = o;
                        return 0;
                }
                if (peek(t) != ',') {
                        fail(t, "expected ',' or '}' in an inline table (it must stay on one line)");
                        break;
                }
                t->p++;
        }
        json_object_put(o);
        return -1;
}

static int new_value(struct toml *t, struct json_object *v, struct json_object **ret)
{
        *ret = v;
        return v ? 0 : fail(t, "out of memory");
}

/* Digits with single underscores between them: copied without them into
 * `out`; false when an underscore is not between two digits. */
static bool strip_underscores(const char *tok, char *out)
{
        size_t k = 0;

        for (size_t i = 0; tok[i]; i++) {
                if (tok[i] != '_') {
                        out[k++] = tok[i];
                        continue;
                }
                if (i == 0 || stk_hex_value(tok[i - 1]) < 0 || stk_hex_value(tok[i + 1]) < 0)
                        return false;
        }
        out[k] = '\0';
        return true;
}

static int number(struct toml *t, const char *tok, struct json_object **ret)
{
        char clean[128], *end;
        const char *u;

        if (!strip_underscores(tok, clean))
                return fail(t, "\"%s\": an underscore in a number stands between digits", tok);
        u = clean + (clean[0] == '+' || clean[0] == '-');
        errno = 0;
        if (u == clean && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'o' || clean[1] == 'b')) {
                long long v = strtoll(clean + 2, &end, clean[1] == 'x' ? 16 : clean[1] == 'o' ? 8 : 2);
                if (!errno && *end == '\0' && end != clean + 2 && stk_hex_value(clean[2]) >= 0)
                        return new_value(t, json_object_new_int64(v), ret);
        } else if (!strpbrk(u, ".eEin")) {
                long long v = strtoll(clean, &end, 10);
                if (!errno && *end == '\0' && *u && strspn(u, "0123456789") == strlen(u) && (u[0] != '0' || !u[1]))
                        return new_value(t, json_object_new_int64(v), ret);
        } else if (streq(u, "inf") || streq(u, "nan")) {
                double v = streq(u, "inf") ? INFINITY : NAN;
                return new_value(t, json_object_new_double(clean[0] == '-' ? -v : v), ret);
        } else {
                double v = strtod(clean, &end);
                if (*end == '\0' && u[0] >= '0' && u[0] <= '9' && !strpbrk(u, "inxX"))
                        return new_value(t, json_object_new_double(v), ret);
        }
        return fail(t, "\"%s\" is not a TOML value (a string needs quotes)", tok);
}

/* A number, or a date or time (kept as the text it is). */
static int scalar_token(struct toml *t, struct json_object **ret)
{
        const char *start = t->p;
        char tok[128];
        size_t n;

        while (!at_end(t) && (bare_key_char(*t->p) || strchr("+.:", *t->p) ||
                              /* 1979-05-27 07:32:00: a space may part date and time */
                              (*t->p == ' ' && t->p - start == 10 && start[4] == '-' && t->p + 1 < t->end &&
                               t->p[1] >= '0' && t->p[1] <= '9')))
                t->p++;
        n = (size_t) (t->p - start);
        if (n == 0)
                return fail(t, "expected a value, found %s", here(t, (char[16]) { 0 }));
        if (n >= sizeof(tok)) {
                t->p = start;
                return fail(t, "a value of %zu characters is not a number or a date", n);
        }
        memcpy(tok, start, n);
        tok[n] = '\0';
        if ((n >= 10 && tok[4] == '-' && tok[7] == '-') || (n >= 8 && tok[2] == ':' && tok[5] == ':'))
                return new_value(t, json_object_new_string(tok), ret);
        {
                const char *after = t->p;
                t->p = start; /* an error is reported at the start of the value */
                if (number(t, tok, ret) < 0)
                        return -1;
                t->p = after;
                return 0;
        }
}

static bool keyword(const struct toml *t, const char *w)
{
        size_t n = strlen(w);
        return looking_at(t, w) && ((size_t) (t->end - t->p) == n || !bare_key_char(t->p[n]));
}

static int value(struct toml *t, unsigned depth, struct json_object **ret)
{
        char *s;

        if (depth > TOML_MAX_DEPTH)
                return fail(t, "nested deeper than %d", TOML_MAX_DEPTH);
        switch (peek(t)) {
        case '"':
        case '\'':
                if (string(t, &s) < 0)
                        return -1;
                *ret = json_object_new_string(s);
                free(s);
                return *ret ? 0 : fail(t, "out of memory");
        case '[': return array(t, depth, ret);
        case '{': return inline_table(t, depth, ret);
        }
        if (keyword(t, "true") || keyword(t, "false")) {
                bool v = *t->p == 't';
                t->p += v ? 4 : 5;
                return new_value(t, json_object_new_boolean(v), ret);
        }
        return scalar_token(t, ret);
}

/* "\x01a\x01b": the path of a table, for the defined list. */
static char *join_path(const char *base, char *const *parts, size_t n)
{
        _cleanup_(stk_buf_done) struct stk_buf b = { 0 };

        stk_buf_adds(&b, base ? base : "");
        for (size_t i = 0; i < n; i++) {
                stk_buf_addc(&b, '\x01');
                stk_buf_adds(&b, parts[i]);
        }
        return stk_buf_take(&b);
}

static bool is_defined(const struct toml *t, const char *path)
{
        for (size_t i = 0; i < t->n_defined; i++)
                if (streq(t->defined[i], path))
                        return true;
        return false;
}

static int define(struct toml *t, const char *path)
{
        char **v = realloc(t->defined, (t->n_defined + 1) * sizeof(char *));

        if (!v)
                return fail(t, "out of memory");
        t->defined = v;
        t->defined[t->n_defined] = strdup(path);
        return t->defined[t->n_defined++] ? 0 : fail(t, "out of memory");
}

/* The table `key` of `o`, made when missing; an array of tables gives its
 * last element.  A value that is not a table is an error. */
static int descend(struct toml *t, struct json_object *o, const char *key, struct json_object **ret)
{
        struct json_object *v;

        if (!json_object_object_get_ex(o, key, &v)) {
                v = json_object_new_object();
                if (!v || json_object_object_add(o, key, v) < 0)
                        return fail(t, "out of memory");
        }
        if (json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0 &&
            json_object_is_type(json_object_array_get_idx(v, json_object_array_length(v) - 1), json_type_object))
                v = json_object_array_get_idx(v, json_object_array_length(v) - 1);
        if (!json_object_is_type(v, json_type_object))
                return fail(t, "\"%s\" is already a value, not a table", key);
        *ret = v;
        return 0;
}

/* key = value into `table` (whose path is `path`; NULL in an inline table,
 * which is closed: nothing adds to it later). */
static int keyval(struct toml *t, struct json_object *table, const char *path, unsigned depth)
{
        char **parts = NULL;
        struct json_object *o = table, *v = NULL;
        size_t n = 0;
        int r = dotted_key(t, &parts);

        for (; r == 0 && parts[n + 1]; n++) {
                r = descend(t, o, parts[n], &o);
                if (r == 0 && path) {
                        _cleanup_free_ char *sub = join_path(path, parts, n + 1);
                        r = !sub ? fail(t, "out of memory") : is_defined(t, sub) ? 0 : define(t, sub);
                }
        }
        if (r == 0) {
                skip_ws(t);
                if (peek(t) != '=')
                        r = fail(t, "expected '=' after the key \"%s\"", parts[n]);
        }
        if (r == 0 && json_object_object_get_ex(o, parts[n], NULL))
                r = fail(t, "the key \"%s\" is defined twice", parts[n]);
        if (r == 0) {
                t->p++;
                skip_ws(t);
                r = value(t, depth, &v);
        }
        if (r == 0 && json_object_object_add(o, parts[n], v) < 0) {
                json_object_put(v);
                r = fail(t, "out of memory");
        }
        free_parts(parts);
        return r;
}

/* [[a.b]]: a new element of the array of tables a.b. */
static int array_element(struct toml *t, struct json_object *o, const char *key, const char *path,
                         struct json_object **ret)
{
        struct json_object *a, *e;

        if (!json_object_object_get_ex(o, key, &a)) {
                a = json_object_new_array();
                if (!a || json_object_object_add(o, key, a) < 0)
                        return fail(t, "out of memory");
        }
        if (!json_object_is_type(a, json_type_array) || is_defined(t, path))
                return fail(t, "\"%s\" is already a table or a value, not an array of tables", key);
        e = json_object_new_object();
        if (!e || json_object_array_add(a, e) < 0) {
                json_object_put(e);
                return fail(t, "out of memory");
        }
        *ret = e;
        return 0;
}

/* [a.b] or [[a.b]]; *ret the table the lines after it fill, *ret_path its path. */
static int header(struct toml *t, struct json_object **ret, char **ret_path)
{
        bool array_of = looking_at(t, "[[");
        char **parts = NULL;
        struct json_object *o = t->root, *existing;
        size_t n = 0;
        char *path = NULL;
        int r;

        t->p += array_of ? 2 : 1;
        r = dotted_key(t, &parts);
        if (r == 0) {
                skip_ws(t);
                if (!looking_at(t, array_of ? "]]" : "]"))
                        r = fail(t, "expected '%s' to close the table header", array_of ? "]]" : "]");
                else
                        t->p += array_of ? 2 : 1;
        }
        for (; r == 0 && parts[n + 1]; n++)
                r = descend(t, o, parts[n], &o);
        if (r == 0 && !(path = join_path(NULL, parts, n + 1)))
                r = fail(t, "out of memory");
        if (r == 0 && array_of)
                r = array_element(t, o, parts[n], path, &o);
        else if (r == 0 && is_defined(t, path))
                r = fail(t, "the table [%s] is defined twice", parts[n]);
        else if (r == 0 && json_object_object_get_ex(o, parts[n], &existing) &&
                 !json_object_is_type(existing, json_type_object))
                r = fail(t, "\"%s\" is already an array or a value, not a table", parts[n]);
        else if (r == 0 && (r = descend(t, o, parts[n], &o)) == 0)
                r = define(t, path);
        free_parts(parts);
        if (r < 0) {
                free(path);
                return -1;
        }
        *ret = o;
        *ret_path = path;
        return 0;
}

static int document(struct toml *t)
{
        struct json_object *table = t->root;
        _cleanup_free_ char *path = strdup("");

        if (!path)
                return fail(t, "out of memory");
        for (;;) {
                if (skip_ws_comments_newlines(t) < 0)
                        return -1;
                if (at_end(t))
                        return 0;
                if (peek(t) == '[') {
                        char *p;
                        if (header(t, &table, &p) < 0)
                                return -1;
                        free(path);
                        path = p;
                } else if (keyval(t, table, path, 0) < 0)
                        return -1;
                skip_ws(t);
                if (skip_comment(t) < 0 || end_of_line(t) < 0)
                        return -1;
        }
}

int toml_parse(const char *text, size_t len, const char *name, struct json_object **ret, char *err,
               size_t err_size)
{
        struct toml t = {
                .p = text, .end = text + len, .line_start = text, .name = name, .line = 1,
                .err = err, .err_size = err_size,
        };
        const char *nul = memchr(text, '\0', len);
        int r;

        if (nul) {
                for (const char *q = text; q < nul; q++)
                        if (*q == '\n') {
                                t.line++;
                                t.line_start = q + 1;
                        }
                t.p = nul;
                return fail(&t, "a NUL byte");
        }
        t.root = json_object_new_object();
        if (!t.root)
                return fail(&t, "out of memory");
        r = document(&t);
        for (size_t i = 0; i < t.n_defined; i++)
                free(t.defined[i]);
        free(t.defined);
        if (r < 0) {
                json_object_put(t.root);
                return -1;
        }
        *ret = t.root;
        return 0;
}
