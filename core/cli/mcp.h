/* SPDX-License-Identifier: MIT */
/* `stockade mcp` (stockade-mcp(1)): the server's state, shared by its files. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "mcp_rpc.h"

#include "run/core.h"

struct json_object;

/* The client's side of stdio: lines, a bound on each. */
struct mcp_in {
        int fd;
        char *buf;
        size_t len, start;      /* bytes held; where the next line begins */
        bool skipping;          /* inside a line past MCP_MESSAGE_MAX: dropped to its newline */
        bool eof;
};

struct mcp_server {
        struct mcp_in in;
        int out_fd;
        bool initialized, quit;
        const char *version;            /* negotiated protocol revision */
        bool client_roots, client_elicitation;
        const char *profile, *policy_file;
        char *workspace;                /* --workspace, or the client's first root */
        struct core_warm warm;          /* the policy and modules, kept across calls */
        long long next_id;              /* ids of our requests to the client */
        long long roots_id;             /* the roots/list we wait for, 0: none */
        char **deferred;                /* lines read while a command ran, handled after it */
        struct json_object *call_id;    /* the tools/call running, for notifications/cancelled */
        bool call_cancelled;            /* ...and it was: no reply is sent */
};

/* mcp_server.c */
int mcp_send(struct mcp_server *s, char *line);                 /* takes line; -EPIPE: the client is gone */
/* 1: a line (NUL-terminated in place, valid until the next call), 0: none
 * buffered, 2: an oversized one was dropped (a reply is due). */
int mcp_in_line(struct mcp_in *in, char **ret, size_t *ret_len);
int mcp_in_fill(struct mcp_in *in);                             /* one read(); 0 at EOF */
void mcp_handle_line(struct mcp_server *s, char *line, size_t len);
/* A line that came while a command ran: ping, cancel and responses now,
 * the rest after the command. */
void mcp_handle_during_call(struct mcp_server *s, char *line, size_t len, bool *ret_cancel);

/* mcp_elicit.c: run->client_confirm (data: the server).  1 yes, 0 no,
 * -ENOTCONN: the client cannot be asked; -errno: no answer (a no). */
int mcp_client_confirm(void *data, const char *message, int timeout_ms);

/* mcp_tool.c */
struct json_object *mcp_tools_list(void);
/* The reply line to tools/call (a result or a JSON-RPC error). */
char *mcp_tools_call(struct mcp_server *s, struct json_object *id, struct json_object *params);
