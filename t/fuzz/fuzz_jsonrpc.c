/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for `stockade mcp`'s JSON-RPC parser (core/cli/mcp_rpc.c;
 * `make fuzz FUZZ_TARGETS=jsonrpc`, mk/fuzz.mk).  Properties, not only no
 * crash: a refusal has a JSON-RPC code and a message; an accepted message
 * is consistent (a request has an id and a method, a response exactly one
 * of result and error); what we would send back for it (its envelope
 * re-serialised) parses again to the same kind: the parser accepts its
 * own output.  t/helpers/jsonrpc-replay.c runs it over the corpus in make check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli/mcp_rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                          \
        do {                                                                                      \
                if (!(cond)) {                                                                    \
                        fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                                  \
                }                                                                                 \
        } while (0)

static void check_accepted(const struct mcp_msg *m)
{
        const char *again;
        struct mcp_msg m2;
        struct json_object *id2 = NULL;
        char err[256];

        if (m->kind == MCP_REQUEST)
                FUZZ_CHECK(m->id && m->method);
        else if (m->kind == MCP_NOTIFICATION)
                FUZZ_CHECK(!m->id && m->method);
        else
                FUZZ_CHECK(m->id && !m->method && (!m->result != !m->error));
        again = json_object_to_json_string_ext(m->root, JSON_C_TO_STRING_PLAIN);
        FUZZ_CHECK(again);
        FUZZ_CHECK(mcp_rpc_parse(again, strlen(again), &m2, &id2, err, sizeof(err)) == 0);
        FUZZ_CHECK(m2.kind == m->kind);
        mcp_msg_done(&m2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *copy = malloc(size + 1), err[256] = "";
        struct mcp_msg m;
        struct json_object *id = NULL;
        int code;

        if (!copy || size > MCP_MESSAGE_MAX)
                return free(copy), 0;
        memcpy(copy, data, size); /* exact size: a read past it is an ASan report */
        copy[size] = '\0';
        code = mcp_rpc_parse(copy, size, &m, &id, err, sizeof(err));
        if (code == 0) {
                FUZZ_CHECK(!id);
                check_accepted(&m);
                mcp_msg_done(&m);
        } else {
                FUZZ_CHECK(code == RPC_PARSE_ERROR || code == RPC_INVALID_REQUEST || code == RPC_INTERNAL_ERROR);
                FUZZ_CHECK(err[0] != '\0');
                char *line = mcp_rpc_error(id, code, err);
                FUZZ_CHECK(line && line[strlen(line) - 1] == '\n');
                free(line);
                json_object_put(id);
        }
        free(copy);
        return 0;
}
