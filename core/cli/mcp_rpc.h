/* SPDX-License-Identifier: MIT */
/* JSON-RPC 2.0 messages of MCP's stdio transport: one per line, UTF-8,
 * no batches (stockade-mcp(1)).  Depends on json-c only (the fuzz harness
 * builds this file alone). */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* JSON-RPC 2.0's error codes. */
enum {
        RPC_PARSE_ERROR = -32700,
        RPC_INVALID_REQUEST = -32600,
        RPC_METHOD_NOT_FOUND = -32601,
        RPC_INVALID_PARAMS = -32602,
        RPC_INTERNAL_ERROR = -32603,
};

#define MCP_MESSAGE_MAX (1u << 20) /* bytes in one line; longer is refused */

enum mcp_kind { MCP_REQUEST, MCP_NOTIFICATION, MCP_RESPONSE };

struct mcp_msg {
        enum mcp_kind kind;
        struct json_object *root;       /* owned; everything below points into it */
        struct json_object *id;         /* request, response; NULL for a notification */
        const char *method;             /* request, notification */
        struct json_object *params;     /* object or array, or NULL */
        struct json_object *result, *error; /* response: exactly one */
};

/* One line without its newline.  0 and *ret; or a JSON-RPC error code with
 * a message naming the offending bytes in err, and *ret_id a copy of the
 * id when the message had a usable one (a reply can then name it), else
 * NULL. */
int mcp_rpc_parse(const char *line, size_t len, struct mcp_msg *ret, struct json_object **ret_id,
                  char *err, size_t err_size);
void mcp_msg_done(struct mcp_msg *m);

/* Strict JSON, UTF-8, one value and nothing after it: 0, or
 * RPC_PARSE_ERROR with err naming the byte offset and the bytes. */
int mcp_json_parse_strict(const char *s, size_t len, struct json_object **ret, char *err, size_t size);

/* Length of the UTF-8 sequence at s (1..4), 0 when it is none. */
size_t mcp_utf8_seq(const unsigned char *s, size_t n);

/* The replies, as one line each (malloc()ed, with the newline). */
char *mcp_rpc_result(struct json_object *id, struct json_object *result);      /* takes result */
char *mcp_rpc_error(struct json_object *id, int code, const char *message);
/* takes params; id 0 makes it a notification */
char *mcp_rpc_request(long long id, const char *method, struct json_object *params);
