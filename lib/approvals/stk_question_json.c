/* SPDX-License-Identifier: MIT */
/*
 * The approval protocol's two texts (see stk_question_json.h).  json-c does
 * the escaping and the parsing, as everywhere in stockade (README.md,
 * Dependencies); this file adds what makes the reply strict: one object,
 * nothing after it, known keys of the right type, a known verdict.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "stk_question_json.h"

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF.  json-c passes bytes >= 0x80 through unchecked, so a command
 * with an invalid byte would reach the approver as a text that a strict
 * reader rejects or, worse, repairs into a different command. */
static bool utf8_valid(const char *s)
{
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                unsigned c = *p, n, min, cp;

                if (c < 0x80) {
                        p++;
                        continue;
                }
                if (c >= 0xc2 && c <= 0xdf)
                        n = 1, min = 0x80, cp = c & 0x1f;
                else if (c >= 0xe0 && c <= 0xef)
                        n = 2, min = 0x800, cp = c & 0x0f;
                else if (c >= 0xf0 && c <= 0xf4)
                        n = 3, min = 0x10000, cp = c & 0x07;
                else
                        return false;
                for (unsigned i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false; /* also stops at the NUL */
                        cp = (cp << 6) | (p[i] & 0x3f);
                }
                if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                p += n + 1;
        }
        return true;
}

/* Add key: s (or null).  False when s is not UTF-8 or memory ran out. */
static bool add_string(struct json_object *o, const char *key, const char *s, int *r)
{
        struct json_object *v = NULL;

        if (s && !utf8_valid(s)) {
                *r = -EILSEQ;
                return false;
        }
        if (s && !(v = json_object_new_string(s))) {
                *r = -ENOMEM;
                return false;
        }
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                *r = -ENOMEM;
                return false;
        }
        return true;
}

static bool add_int(struct json_object *o, const char *key, long long n, int *r)
{
        struct json_object *v = json_object_new_int64(n);

        if (!v || json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                *r = -ENOMEM;
                return false;
        }
        return true;
}

static int add_argv(struct json_object *o, const char *const *argv)
{
        struct json_object *a = json_object_new_array();

        if (!a || json_object_object_add(o, "argv", a) < 0) {
                json_object_put(a);
                return -ENOMEM;
        }
        for (size_t i = 0; argv && argv[i]; i++) {
                struct json_object *s;

                if (!utf8_valid(argv[i]))
                        return -EILSEQ;
                s = json_object_new_string(argv[i]);
                if (!s || json_object_array_add(a, s) < 0) {
                        json_object_put(s);
                        return -ENOMEM;
                }
        }
        return 0;
}

static int add_command(struct json_object *o, const struct stk_request *req)
{
        int r = 0;

        if (!req)
                return -EINVAL;
        if (!add_string(o, "kind", "command", &r))
                return r;
        r = add_argv(o, req->argv);
        if (r < 0)
                return r;
        if (!add_string(o, "cwd", req->cwd, &r) || !add_string(o, "profile", req->profile, &r))
                return r;
        return 0;
}

static int add_egress(struct json_object *o, const struct stk_egress *e, const char *profile)
{
        int r = 0;

        if (!e)
                return -EINVAL;
        if (!add_string(o, "kind", "egress", &r) || !add_string(o, "host", e->host, &r) ||
            !add_int(o, "port", e->port, &r) || !add_string(o, "scheme", e->scheme, &r) ||
            !add_int(o, "pid", e->pid, &r) || !add_string(o, "profile", profile, &r))
                return r;
        return 0;
}

int stk_question_json_encode(const struct stk_question *q, const char *profile, char **ret_text)
{
        struct json_object *o;
        const char *text;
        char *copy;
        int r = 0;

        if (!q || (q->kind != STK_QUESTION_COMMAND && q->kind != STK_QUESTION_EGRESS))
                return -EINVAL;
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        if (!add_int(o, "stockade_question", STK_QUESTION_VERSION, &r)) {
                json_object_put(o);
                return r;
        }
        r = q->kind == STK_QUESTION_COMMAND ? add_command(o, q->request) : add_egress(o, q->egress, profile);
        if (r >= 0)
                (void) add_string(o, "reason", q->reason, &r); /* sets r on failure */
        /* NOSLASHESCAPE: paths read as paths; PLAIN: one line, no spaces. */
        text = r < 0 ? NULL : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (r >= 0 && !text)
                r = -ENOMEM;
        copy = r < 0 ? NULL : strdup(text);
        json_object_put(o);
        if (r < 0)
                return r;
        if (!copy)
                return -ENOMEM;
        *ret_text = copy;
        return 0;
}

static int why_fail(char *why, size_t size, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int why_fail(char *why, size_t size, int r, const char *fmt, ...)
{
        va_list ap;

        if (size > 0) {
                va_start(ap, fmt);
                (void) vsnprintf(why, size, fmt, ap); /* truncation only shortens a message */
                va_end(ap);
        }
        return r;
}

/* One string-valued member, compared by its full length: "allow\u0000x"
 * is not "allow". */
static bool string_is(struct json_object *v, const char *word)
{
        size_t n = strlen(word);

        return (size_t) json_object_get_string_len(v) == n && memcmp(json_object_get_string(v), word, n) == 0;
}

static int verdict_of(struct json_object *v, enum stk_verdict *ret, char *why, size_t why_size)
{
        char word[64];

        if (!json_object_is_type(v, json_type_string))
                return why_fail(why, why_size, -EBADMSG, "\"verdict\" is not a string");
        if (string_is(v, "allow"))
                *ret = STK_ALLOW;
        else if (string_is(v, "deny"))
                *ret = STK_DENY;
        else if (string_is(v, "ignore"))
                *ret = STK_IGNORE;
        else {
                stk_json_excerpt(json_object_get_string(v), (size_t) json_object_get_string_len(v), word, sizeof(word));
                return why_fail(why, why_size, -EBADMSG, "unknown verdict \"%s\" (allow, deny or ignore)", word);
        }
        return 0;
}

/* The members of a parsed reply: known keys, right types. */
static int read_members(struct json_object *o, enum stk_verdict *ret, char *reason, size_t reason_size,
                        char *why, size_t why_size)
{
        struct json_object *verdict = NULL, *why_given = NULL;
        enum stk_verdict v = STK_VERDICT_UNSET;
        bool has_verdict = false;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return why_fail(why, why_size, -EBADMSG, "not a JSON object");
        /* A JSON null member is a NULL val: presence is tracked apart. */
        json_object_object_foreach(o, key, val) {
                if (strcmp(key, "verdict") == 0) {
                        verdict = val;
                        has_verdict = true;
                } else if (strcmp(key, "reason") == 0)
                        why_given = val;
                else
                        return why_fail(why, why_size, -EBADMSG, "unknown key \"%.64s\"", key);
        }
        if (!has_verdict)
                return why_fail(why, why_size, -EBADMSG, "no \"verdict\" key");
        if (why_given && !json_object_is_type(why_given, json_type_string))
                return why_fail(why, why_size, -EBADMSG, "\"reason\" is not a string");
        r = verdict_of(verdict, &v, why, why_size);
        if (r < 0)
                return r;
        if (reason_size > 0)
                stk_json_excerpt(why_given ? json_object_get_string(why_given) : "",
                                 why_given ? (size_t) json_object_get_string_len(why_given) : 0, reason, reason_size);
        *ret = v;
        return 0;
}

/* json-c on a NUL-terminated copy: a literal at the very end (null, 12)
 * is only complete when the tokener sees the end of the input. */
static int tokenize(const char *buf, size_t len, struct json_object **ret, enum json_tokener_error *ret_err,
                    size_t *ret_end)
{
        struct json_tokener *tok = json_tokener_new();
        char *copy = malloc(len + 1);

        if (!tok || !copy) {
                if (tok)
                        json_tokener_free(tok);
                free(copy);
                return -ENOMEM;
        }
        memcpy(copy, buf, len);
        copy[len] = '\0';
        /* STRICT: no single quotes, no trailing commas; ALLOW_TRAILING_CHARS
         * so that bytes after the value are ours to report, not a generic
         * "unexpected character"; VALIDATE_UTF8: the reason is text. */
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS | JSON_TOKENER_VALIDATE_UTF8);
        *ret = json_tokener_parse_ex(tok, copy, (int) len + 1);
        *ret_err = json_tokener_get_error(tok);
        *ret_end = json_tokener_get_parse_end(tok); /* past the value and the whitespace after it */
        json_tokener_free(tok);
        free(copy);
        return 0;
}

int stk_verdict_json_parse(const char *buf, size_t len, enum stk_verdict *ret_verdict,
                           char *reason, size_t reason_size, char *why, size_t why_size)
{
        struct json_object *o = NULL;
        enum json_tokener_error err = json_tokener_success;
        size_t end = 0;
        int r;

        if (len == 0)
                return why_fail(why, why_size, -EBADMSG, "empty reply");
        if (len > STK_VERDICT_MAX)
                return why_fail(why, why_size, -EMSGSIZE, "reply larger than %d bytes", STK_VERDICT_MAX);
        if (memchr(buf, '\0', len))
                return why_fail(why, why_size, -EBADMSG, "a NUL byte in the reply");
        if (tokenize(buf, len, &o, &err, &end) < 0)
                r = why_fail(why, why_size, -ENOMEM, "out of memory");
        else if (err == json_tokener_error_parse_eof)
                r = why_fail(why, why_size, -EBADMSG, "truncated JSON (ends at byte %zu)", len);
        else if (err != json_tokener_success)
                r = why_fail(why, why_size, -EBADMSG, "not one JSON value: %s at byte %zu",
                             json_tokener_error_desc(err), end);
        else if (end != len)
                r = why_fail(why, why_size, -EBADMSG, "trailing bytes after the JSON value (from byte %zu)", end);
        else
                r = read_members(o, ret_verdict, reason, reason_size, why, why_size);
        json_object_put(o);
        return r;
}

void stk_json_excerpt(const char *buf, size_t len, char *out, size_t size)
{
        static const size_t shown_max = 80;
        size_t o = 0, i;
        char tail[48];

        if (size == 0)
                return;
        snprintf(tail, sizeof(tail), "... (%zu bytes)", len);
        for (i = 0; i < len && i < shown_max; i++) {
                unsigned char c = (unsigned char) buf[i];
                char esc[8];
                size_t n;

                if (c == '"' || c == '\\')
                        n = (size_t) snprintf(esc, sizeof(esc), "\\%c", c);
                else if (c == '\n')
                        n = (size_t) snprintf(esc, sizeof(esc), "\\n");
                else if (c < 0x20 || c >= 0x7f)
                        n = (size_t) snprintf(esc, sizeof(esc), "\\x%02x", c);
                else
                        n = (size_t) snprintf(esc, sizeof(esc), "%c", c);
                if (o + n + strlen(tail) + 1 > size)
                        break;
                memcpy(out + o, esc, n);
                o += n;
        }
        out[o] = '\0';
        if (i < len && o + strlen(tail) + 1 <= size)
                memcpy(out + o, tail, strlen(tail) + 1);
}

const char *stk_verdict_word(enum stk_verdict v)
{
        switch (v) {
        case STK_ALLOW: return "allow";
        case STK_DENY: return "deny";
        case STK_ASK: return "ask";
        case STK_IGNORE: return "ignore";
        default: return "unset";
        }
}
