/* SPDX-License-Identifier: MIT */
/*
 * `stockade mcp`: a Model Context Protocol server on stdio
 * (stockade-mcp(1)).  The lifecycle of MCP revision 2025-11-25, "Basic:
 * Lifecycle": initialize (version negotiation: the client's revision when
 * we speak it, else our latest), notifications/initialized, then
 * operation; ping at any time; shutdown is the end of stdin.  One tool,
 * run_command (mcp_tool.c).  The transport ("Basic: Transports", stdio):
 * one JSON-RPC message a line, nothing else on stdout; our own messages go
 * to stderr.
 */
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "cli.h"
#include "mcp.h"
#include "run/core.h"
#include "util/util.h"

/* Newest first: what we answer a revision we do not know with. */
static const char *const protocol_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

#define DEFERRED_MAX 64

int mcp_send(struct mcp_server *s, char *line)
{
        size_t len, off = 0;

        if (!line)
                return -ENOMEM;
        len = strlen(line);
        while (off < len) {
                ssize_t n = write(s->out_fd, line + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = -errno;
                        free(line);
                        s->quit = true; /* the client is gone */
                        return r;
                }
                off += (size_t) n;
        }
        free(line);
        return 0;
}

int mcp_in_fill(struct mcp_in *in)
{
        ssize_t n;

        if (in->start > 0) { /* keep the unread part at the front */
                memmove(in->buf, in->buf + in->start, in->len - in->start);
                in->len -= in->start;
                in->start = 0;
        }
        if (!in->buf && !(in->buf = malloc(MCP_MESSAGE_MAX + 2)))
                return -ENOMEM;
        do
                n = read(in->fd, in->buf + in->len, MCP_MESSAGE_MAX + 1 - in->len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if (n == 0)
                in->eof = true;
        in->len += (size_t) n;
        return (int) (n > 0);
}

int mcp_in_line(struct mcp_in *in, char **ret, size_t *ret_len)
{
        char *nl = in->len > in->start ? memchr(in->buf + in->start, '\n', in->len - in->start) : NULL;

        if (in->skipping) {
                if (!nl) {
                        in->start = in->len; /* still inside the oversized line */
                        return 0;
                }
                in->start = (size_t) (nl - in->buf) + 1;
                in->skipping = false;
                return mcp_in_line(in, ret, ret_len);
        }
        if (!nl && in->len - in->start > MCP_MESSAGE_MAX) {
                in->skipping = true;
                in->start = in->len;
                return 2;
        }
        if (!nl && in->eof && in->len > in->start) /* a last line without its newline */
                nl = in->buf + in->len;
        if (!nl)
                return 0;
        *nl = '\0';
        *ret = in->buf + in->start;
        *ret_len = (size_t) (nl - *ret);
        in->start = nl == in->buf + in->len ? in->len : (size_t) (nl - in->buf) + 1;
        return 1;
}

static void reply_error(struct mcp_server *s, struct json_object *id, int code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void reply_error(struct mcp_server *s, struct json_object *id, int code, const char *fmt, ...)
{
        char msg[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        (void) mcp_send(s, mcp_rpc_error(id, code, msg)); /* a failed send sets quit */
}

static bool has_member(struct json_object *o, const char *key)
{
        struct json_object *v;

        return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_object);
}

static void on_initialize(struct mcp_server *s, struct json_object *id, struct json_object *params)
{
        struct json_object *v = NULL, *caps = NULL, *r, *sc, *info;
        const char *asked;

        if (!params || !json_object_object_get_ex(params, "protocolVersion", &v) ||
            !json_object_is_type(v, json_type_string)) {
                reply_error(s, id, RPC_INVALID_PARAMS, "initialize: params.protocolVersion (a string) is missing");
                return;
        }
        asked = json_object_get_string(v);
        s->version = protocol_versions[0];
        for (const char *const *p = protocol_versions; *p; p++)
                if (streq(*p, asked))
                        s->version = *p;
        if (json_object_object_get_ex(params, "capabilities", &caps)) {
                s->client_roots = has_member(caps, "roots");
                s->client_elicitation = has_member(caps, "elicitation");
        }
        r = json_object_new_object();
        sc = json_object_new_object();
        info = json_object_new_object();
        json_object_object_add(r, "protocolVersion", json_object_new_string(s->version));
        json_object_object_add(sc, "tools", json_object_new_object());
        json_object_object_add(r, "capabilities", sc);
        json_object_object_add(info, "name", json_object_new_string("stockade"));
        json_object_object_add(info, "version", json_object_new_string(STK_VERSION));
        json_object_object_add(r, "serverInfo", info);
        json_object_object_add(r, "instructions", json_object_new_string(
                "run_command runs a shell command (or an argv) inside stockade's sandbox: writes only in the "
                "workspace, the network as the profile says, credentials hidden.  A refused command reports the "
                "verdict and the module that decided."));
        s->initialized = true;
        (void) mcp_send(s, mcp_rpc_result(id, r));
}

/* After initialized: where the workspace is, when --workspace did not say. */
static void ask_roots(struct mcp_server *s)
{
        if (s->workspace || !s->client_roots || s->roots_id)
                return;
        s->roots_id = ++s->next_id;
        (void) mcp_send(s, mcp_rpc_request(s->roots_id, "roots/list", NULL));
}

/* file:///a%20b -> /a b; NULL for anything else. */
static char *file_uri_path(const char *uri)
{
        char *out, *w;

        if (strncmp(uri, "file://", 7) != 0 || uri[7] != '/')
                return NULL;
        out = w = malloc(strlen(uri));
        if (!out)
                return NULL;
        for (const char *c = uri + 7; *c; c++) {
                int hi, lo;
                if (*c == '%' && (hi = stk_hex_value(c[1])) >= 0 && (lo = stk_hex_value(c[2])) >= 0) {
                        *w++ = (char) (hi << 4 | lo);
                        c += 2;
                } else {
                        *w++ = *c;
                }
        }
        *w = '\0';
        if (memchr(out, '\0', (size_t) (w - out)) || strlen(out) == 0) {
                free(out);
                return NULL;
        }
        return out;
}

/* The answer to our roots/list: the first file:// root is the workspace. */
static void on_response(struct mcp_server *s, const struct mcp_msg *m)
{
        struct json_object *roots = NULL, *uri = NULL;

        if (!s->roots_id || !json_object_is_type(m->id, json_type_int) || json_object_get_int64(m->id) != s->roots_id)
                return; /* not one we wait for: dropped, as JSON-RPC lets a server do */
        s->roots_id = 0;
        if (m->result && json_object_object_get_ex(m->result, "roots", &roots) &&
            json_object_is_type(roots, json_type_array) && json_object_array_length(roots) > 0 &&
            json_object_object_get_ex(json_object_array_get_idx(roots, 0), "uri", &uri) &&
            json_object_is_type(uri, json_type_string))
                s->workspace = file_uri_path(json_object_get_string(uri));
        if (!s->workspace)
                core_log(STK_LOG_WARNING, "mcp: the client's roots name no file:// directory; every call will be "
                         "refused until the server is started with --workspace");
}

static void dispatch(struct mcp_server *s, const struct mcp_msg *m)
{
        if (m->kind == MCP_RESPONSE) {
                on_response(s, m);
                return;
        }
        if (m->kind == MCP_NOTIFICATION) {
                if (streq(m->method, "notifications/initialized"))
                        ask_roots(s);
                return; /* others (cancelled with nothing running, roots changed: the workspace is pinned) */
        }
        if (streq(m->method, "ping")) {
                (void) mcp_send(s, mcp_rpc_result(m->id, NULL));
        } else if (streq(m->method, "initialize")) {
                if (s->initialized)
                        reply_error(s, m->id, RPC_INVALID_REQUEST, "initialize: already initialized");
                else
                        on_initialize(s, m->id, m->params);
        } else if (!s->initialized) {
                reply_error(s, m->id, RPC_INVALID_REQUEST, "%s before initialize", m->method);
        } else if (streq(m->method, "tools/list")) {
                (void) mcp_send(s, mcp_rpc_result(m->id, mcp_tools_list()));
        } else if (streq(m->method, "tools/call")) {
                char *reply;
                s->call_id = m->id;
                reply = mcp_tools_call(s, m->id, m->params);
                if (reply)
                        (void) mcp_send(s, reply);
                s->call_id = NULL;
        } else {
                reply_error(s, m->id, RPC_METHOD_NOT_FOUND, "method not found: \"%.200s\"", m->method);
        }
}

void mcp_handle_line(struct mcp_server *s, char *line, size_t len)
{
        struct mcp_msg m;
        struct json_object *id = NULL;
        char err[256];
        int code;

        if (len == 0 || (len == 1 && line[0] == '\r'))
                return; /* an empty line is no message */
        code = mcp_rpc_parse(line, len, &m, &id, err, sizeof(err));
        if (code) {
                reply_error(s, id, code, "%s", err);
                json_object_put(id);
                return;
        }
        dispatch(s, &m);
        mcp_msg_done(&m);
}

static bool cancels_call(const struct mcp_server *s, const struct mcp_msg *m)
{
        struct json_object *rid;

        return m->params && json_object_object_get_ex(m->params, "requestId", &rid) && s->call_id &&
               json_object_equal(rid, s->call_id);
}

void mcp_handle_during_call(struct mcp_server *s, char *line, size_t len, bool *ret_cancel)
{
        struct mcp_msg m;
        struct json_object *id = NULL;
        char err[256];

        if (mcp_rpc_parse(line, len, &m, &id, err, sizeof(err)) == 0) {
                bool now = m.kind == MCP_RESPONSE || (m.method && streq(m.method, "ping"));
                if (m.kind == MCP_NOTIFICATION && streq(m.method, "notifications/cancelled") && cancels_call(s, &m))
                        *ret_cancel = true;
                else if (now)
                        dispatch(s, &m);
                mcp_msg_done(&m);
                if (now || *ret_cancel)
                        return;
        }
        json_object_put(id);
        if (strv_length(s->deferred) >= DEFERRED_MAX) {
                reply_error(s, NULL, RPC_INTERNAL_ERROR, "more than %d messages while a command runs; dropped",
                            DEFERRED_MAX);
                return;
        }
        if (strv_push(&s->deferred, line) < 0)
                s->quit = true;
}

static void handle_deferred(struct mcp_server *s)
{
        while (s->deferred && s->deferred[0] && !s->quit) {
                char **d = TAKE_PTR(s->deferred);
                for (size_t i = 0; d[i]; i++)
                        mcp_handle_line(s, d[i], strlen(d[i]));
                strv_free(d);
        }
}

static void serve(struct mcp_server *s)
{
        while (!s->quit) {
                char *line;
                size_t len;
                int r = mcp_in_line(&s->in, &line, &len);

                if (r == 1) {
                        mcp_handle_line(s, line, len);
                        handle_deferred(s);
                } else if (r == 2) {
                        reply_error(s, NULL, RPC_INVALID_REQUEST, "a message larger than %u bytes; dropped to "
                                    "its newline", MCP_MESSAGE_MAX);
                } else if (s->in.eof) {
                        return;
                } else if (mcp_in_fill(&s->in) < 0) {
                        core_log(STK_LOG_ERROR, "mcp: reading stdin: %s", strerror(errno));
                        return;
                }
        }
}

static const struct option mcp_options[] = {
        { "profile", required_argument, NULL, 'p' },
        { "policy", required_argument, NULL, 'P' },
        { "workspace", required_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
};

static void mcp_usage(FILE *f)
{
        fprintf(f, "usage: stockade mcp [--profile P] [--policy FILE] [--workspace DIR]\n"
                   "  -p, --profile P      the profile every call runs under (default: default)\n"
                   "  -P, --policy FILE    a policy file instead of the profile's files\n"
                   "  -w, --workspace DIR  the workspace (else the client's first root)\n"
                   "A Model Context Protocol server on stdin/stdout; see stockade-mcp(1).\n");
}

int cli_mcp(int argc, char **argv)
{
        struct mcp_server s = { .in = { .fd = STDIN_FILENO }, .out_fd = STDOUT_FILENO };
        int c, status = 0;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+p:P:w:h", mcp_options, NULL)) != -1) {
                switch (c) {
                case 'p': s.profile = optarg; break;
                case 'P': s.policy_file = optarg; break;
                case 'w': s.workspace = realpath(optarg, NULL);
                        if (!s.workspace) {
                                fprintf(stderr, "stockade mcp: --workspace %s: %s\n", optarg, strerror(errno));
                                return STK_EXIT_USAGE;
                        }
                        break;
                case 'h': mcp_usage(stdout); return 0;
                default: mcp_usage(stderr); return STK_EXIT_USAGE;
                }
        }
        if (optind < argc || (s.profile && s.policy_file)) {
                fprintf(stderr, "stockade mcp: %s\n", optind < argc ? "unexpected arguments"
                                : "--profile and --policy name two policies; give one");
                mcp_usage(stderr);
                return STK_EXIT_USAGE;
        }
        /* A client gone mid-reply is EPIPE on write, not a signal that kills us. */
        if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
                return STK_EXIT_SETUP;
        serve(&s);
        core_warm_done(&s.warm);
        free(s.in.buf);
        free(s.workspace);
        strv_free(s.deferred);
        return status;
}
