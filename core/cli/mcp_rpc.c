/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON-RPC 2.0 for MCP over stdio.  What the transport allows is
 * little: one JSON object per line, UTF-8, "jsonrpc": "2.0", an id that is
 * a string or an integer (MCP: "MUST NOT be null"), a method string,
 * params an object or an array; a response has result or error, never
 * both.  MCP since 2025-06-18 has no batches, so an array is an invalid
 * request.  Everything else is refused with the bytes that broke it: the
 * client may be a model's tool stack talking to us, and a message we
 * guessed at could run a command nobody asked for.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "mcp_rpc.h"

/* Up to 16 bytes from off, printable ASCII as is, the rest as \xHH. */
static void excerpt(const char *s, size_t len, size_t off, char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (size_t i = off; i < len && i < off + 16 && used + 5 < size; i++) {
                unsigned char c = (unsigned char) s[i];
                used += (size_t) snprintf(buf + used, size - used, c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
                                          ? "%c" : "\\x%02x", c);
        }
}

static int fail_at(const char *s, size_t len, size_t off, const char *what, char *err, size_t size)
{
        char ex[96];

        excerpt(s, len, off, ex, sizeof(ex));
        snprintf(err, size, "%s at byte %zu (\"%s\")", what, off, ex);
        return RPC_PARSE_ERROR;
}

/* Length of the UTF-8 sequence at s (1..4), or 0 when it is not one
 * (overlong, surrogate, above U+10FFFF, truncated). */
size_t mcp_utf8_seq(const unsigned char *s, size_t n)
{
        size_t want;
        unsigned cp;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                want = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                want = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                want = 4, cp = s[0] & 0x07;
        else
                return 0;
        if (n < want)
                return 0;
        for (size_t i = 1; i < want; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((want == 3 && cp < 0x800) || (want == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return want;
}

static int check_bytes(const char *s, size_t len, char *err, size_t size)
{
        for (size_t i = 0; i < len;) {
                size_t n = mcp_utf8_seq((const unsigned char *) s + i, len - i);
                if (n == 0)
                        return fail_at(s, len, i, "not UTF-8", err, size);
                if (s[i] == '\0')
                        return fail_at(s, len, i, "a NUL byte", err, size);
                i += n;
        }
        return 0;
}

static int parse_json(const char *s, size_t len, struct json_object **ret, char *err, size_t size)
{
        struct json_tokener *tok = json_tokener_new_ex(64);
        struct json_object *o;
        size_t end;
        int r = 0;

        if (!tok)
                return RPC_INTERNAL_ERROR;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        o = json_tokener_parse_ex(tok, s, (int) len);
        end = (size_t) json_tokener_get_parse_end(tok);
        if (!o) {
                enum json_tokener_error e = json_tokener_get_error(tok);
                r = fail_at(s, len, end > 0 && e != json_tokener_continue ? end - 1 : end,
                            e == json_tokener_continue ? "the JSON text ends early" : json_tokener_error_desc(e),
                            err, size);
        } else {
                while (end < len && (s[end] == ' ' || s[end] == '\t' || s[end] == '\r'))
                        end++;
                if (end < len)
                        r = fail_at(s, len, end, "bytes after the JSON value", err, size);
        }
        json_tokener_free(tok);
        if (r)
                json_object_put(o);
        else
                *ret = o;
        return r;
}

int mcp_json_parse_strict(const char *s, size_t len, struct json_object **ret, char *err, size_t size)
{
        int r = check_bytes(s, len, err, size);

        return r ? r : parse_json(s, len, ret, err, size);
}

static int invalid(const char *what, char *err, size_t size)
{
        snprintf(err, size, "%s", what);
        return RPC_INVALID_REQUEST;
}

/* A string, or an integer written as one (no 1.0, no 1e3). */
static bool id_ok(struct json_object *id)
{
        return json_object_is_type(id, json_type_string) || json_object_is_type(id, json_type_int);
}

static const char *const known_keys[] = { "jsonrpc", "id", "method", "params", "result", "error", NULL };

static int check_keys(struct json_object *root, char *err, size_t size)
{
        json_object_object_foreach(root, key, val) {
                bool known = false;
                (void) val;
                for (const char *const *k = known_keys; *k; k++)
                        known |= strcmp(*k, key) == 0;
                if (!known) {
                        char ex[96];
                        excerpt(key, strlen(key), 0, ex, sizeof(ex));
                        snprintf(err, size, "unknown member \"%s\"; expected jsonrpc, id, method, params, result "
                                 "or error", ex);
                        return RPC_INVALID_REQUEST;
                }
        }
        return 0;
}

static int classify(struct mcp_msg *m, char *err, size_t size)
{
        struct json_object *v = NULL, *method = NULL;
        bool has_id = json_object_object_get_ex(m->root, "id", &m->id);
        bool has_result = json_object_object_get_ex(m->root, "result", &m->result);
        bool has_error = json_object_object_get_ex(m->root, "error", &m->error);

        if (!json_object_object_get_ex(m->root, "jsonrpc", &v) || !json_object_is_type(v, json_type_string) ||
            strcmp(json_object_get_string(v), "2.0") != 0)
                return invalid("\"jsonrpc\" is missing or not \"2.0\"", err, size);
        if (has_id && !id_ok(m->id))
                return invalid("\"id\" must be a string or an integer (MCP: never null)", err, size);
        if (json_object_object_get_ex(m->root, "method", &method)) {
                if (!json_object_is_type(method, json_type_string))
                        return invalid("\"method\" must be a string", err, size);
                if (has_result || has_error)
                        return invalid("a request with \"result\" or \"error\"", err, size);
                m->method = json_object_get_string(method);
                m->kind = has_id ? MCP_REQUEST : MCP_NOTIFICATION;
                if (json_object_object_get_ex(m->root, "params", &m->params) &&
                    !json_object_is_type(m->params, json_type_object) &&
                    !json_object_is_type(m->params, json_type_array))
                        return invalid("\"params\" must be an object or an array", err, size);
                return 0;
        }
        if (!has_id || has_result == has_error)
                return invalid("neither a request (no \"method\") nor a response (an \"id\" and exactly one of "
                               "\"result\" and \"error\")", err, size);
        if (has_error && !json_object_is_type(m->error, json_type_object))
                return invalid("\"error\" must be an object", err, size);
        m->kind = MCP_RESPONSE;
        return 0;
}

int mcp_rpc_parse(const char *line, size_t len, struct mcp_msg *ret, struct json_object **ret_id,
                  char *err, size_t err_size)
{
        struct mcp_msg m = { 0 };
        struct json_object *id = NULL;
        int r;

        *ret_id = NULL;
        r = mcp_json_parse_strict(line, len, &m.root, err, err_size);
        if (r)
                return r;
        if (json_object_is_type(m.root, json_type_array))
                r = invalid("a batch (JSON array): MCP has no batches since 2025-06-18; send one message a line",
                            err, err_size);
        else if (!json_object_is_type(m.root, json_type_object))
                r = invalid("the message is not a JSON object", err, err_size);
        else if (json_object_object_get_ex(m.root, "id", &id) && id_ok(id))
                *ret_id = json_object_get(id); /* the reply to a bad request names it */
        if (!r)
                r = check_keys(m.root, err, err_size);
        if (!r)
                r = classify(&m, err, err_size);
        if (r) {
                json_object_put(m.root);
                return r;
        }
        json_object_put(*ret_id);
        *ret_id = NULL;
        *ret = m;
        return 0;
}

void mcp_msg_done(struct mcp_msg *m)
{
        json_object_put(m->root);
        *m = (struct mcp_msg) { 0 };
}

static char *line_of(struct json_object *o)
{
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        char *line = NULL;

        if (s && asprintf(&line, "%s\n", s) < 0)
                line = NULL;
        json_object_put(o);
        return line;
}

static struct json_object *envelope(struct json_object *id)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
        json_object_object_add(o, "id", id ? json_object_get(id) : NULL);
        return o;
}

char *mcp_rpc_result(struct json_object *id, struct json_object *result)
{
        struct json_object *o = envelope(id);

        json_object_object_add(o, "result", result ? result : json_object_new_object());
        return line_of(o);
}

char *mcp_rpc_error(struct json_object *id, int code, const char *message)
{
        struct json_object *o = envelope(id), *e = json_object_new_object();

        json_object_object_add(e, "code", json_object_new_int(code));
        json_object_object_add(e, "message", json_object_new_string(message));
        json_object_object_add(o, "error", e);
        return line_of(o);
}

char *mcp_rpc_request(long long id, const char *method, struct json_object *params)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
        if (id > 0) /* 0: a notification, which has no id */
                json_object_object_add(o, "id", json_object_new_int64(id));
        json_object_object_add(o, "method", json_object_new_string(method));
        if (params)
                json_object_object_add(o, "params", params);
        return line_of(o);
}
