/* SPDX-License-Identifier: MIT */
/*
 * An approval question put to the MCP client's user (stockade-mcp(1),
 * ELICITATION): the core's run->client_confirm while a tools/call runs its
 * permission phase, which approval_mcp reaches through host->client_confirm.
 * MCP revision 2025-11-25, "Client Features: Elicitation" (first in
 * 2025-06-18): a request elicitation/create with a message and a
 * requestedSchema (a flat object of primitive properties, here one boolean
 * "approve"); the answer is {action: accept|decline|cancel, content}.
 * Only accept with approve true is a yes; everything else, a timeout and
 * a client gone included, is a no.  Nothing is remembered.
 */
#include <poll.h>
#include <json-c/json.h>

#include "mcp.h"
#include "common/stk_time.h"
#include "util/util.h"

/* Revisions older than 2025-06-18 have no elicitation. */
static bool version_elicits(const char *v)
{
        return v && strcmp(v, "2025-06-18") >= 0;
}

static struct json_object *elicit_params(const char *message)
{
        struct json_object *p = json_object_new_object(), *schema = json_object_new_object(),
                           *props = json_object_new_object(), *approve = json_object_new_object(),
                           *req = json_object_new_array();

        json_object_object_add(approve, "type", json_object_new_string("boolean"));
        json_object_object_add(approve, "title", json_object_new_string("Allow this once"));
        json_object_object_add(approve, "description", json_object_new_string(
                "true runs it this one time; false, decline or cancel refuses it"));
        json_object_object_add(props, "approve", approve);
        json_object_array_add(req, json_object_new_string("approve"));
        json_object_object_add(schema, "type", json_object_new_string("object"));
        json_object_object_add(schema, "properties", props);
        json_object_object_add(schema, "required", req);
        json_object_object_add(p, "message", json_object_new_string(message));
        json_object_object_add(p, "requestedSchema", schema);
        return p;
}

/* The client's answer: 1 yes, 0 no, -EPROTO (logged) anything malformed. */
static int judge_answer(const struct mcp_msg *m)
{
        struct json_object *action = NULL, *content = NULL, *approve = NULL;
        const char *a;

        if (m->error) {
                core_log(STK_LOG_ERROR, "mcp: the client answered elicitation/create with an error: %.300s: denied",
                         json_object_to_json_string(m->error));
                return -EPROTO;
        }
        if (!json_object_is_type(m->result, json_type_object) ||
            !json_object_object_get_ex(m->result, "action", &action) || !json_object_is_type(action, json_type_string))
                goto malformed;
        a = json_object_get_string(action);
        if (streq(a, "decline") || streq(a, "cancel"))
                return 0;
        if (!streq(a, "accept") || !json_object_object_get_ex(m->result, "content", &content) ||
            !json_object_is_type(content, json_type_object) ||
            !json_object_object_get_ex(content, "approve", &approve) || !json_object_is_type(approve, json_type_boolean))
                goto malformed;
        return json_object_get_boolean(approve) ? 1 : 0;
malformed:
        core_log(STK_LOG_ERROR, "mcp: a malformed answer to elicitation/create (expected action accept with "
                 "content.approve a boolean, decline or cancel): %.300s: denied", json_object_to_json_string(m->result));
        return -EPROTO;
}

static bool is_our_answer(const struct mcp_msg *m, long long id)
{
        return m->kind == MCP_RESPONSE && json_object_is_type(m->id, json_type_int) && json_object_get_int64(m->id) == id;
}

/* One line while we wait: our answer (1, 0, -EPROTO), or anything else
 * handled as during a command (ping now, the rest after the call): 2. */
static int one_line(struct mcp_server *s, char *line, size_t len, long long id, bool *cancel)
{
        struct mcp_msg m;
        struct json_object *bad_id = NULL;
        char err[256];
        int r = 2;

        if (len == 0 || (len == 1 && line[0] == '\r'))
                return 2;
        if (mcp_rpc_parse(line, len, &m, &bad_id, err, sizeof(err)) == 0) {
                bool ours = is_our_answer(&m, id);
                if (ours)
                        r = judge_answer(&m);
                mcp_msg_done(&m);
                if (ours)
                        return r;
        }
        json_object_put(bad_id);
        mcp_handle_during_call(s, line, len, cancel);
        return 2;
}

/* Our request is void: the client need not answer any more. */
static void withdraw(struct mcp_server *s, long long id, const char *why)
{
        struct json_object *p = json_object_new_object();

        json_object_object_add(p, "requestId", json_object_new_int64(id));
        json_object_object_add(p, "reason", json_object_new_string(why));
        (void) mcp_send(s, mcp_rpc_request(0, "notifications/cancelled", p));
}

static int wait_answer(struct mcp_server *s, long long id, int timeout_ms)
{
        int64_t deadline = stk_now_ms() + timeout_ms;
        bool cancel = false;

        for (;;) {
                char *line;
                size_t len;
                int r = mcp_in_line(&s->in, &line, &len), n;

                if (r == 1 && (r = one_line(s, line, len, id, &cancel)) != 2)
                        return r;
                if (cancel) {
                        s->call_cancelled = true; /* no reply to the call, as after a command */
                        withdraw(s, id, "the tools/call was cancelled");
                        return -ECANCELED;
                }
                if (s->quit)
                        return -EPIPE;
                if (r != 0)
                        continue; /* a line handled (or an oversized one dropped): look for the next */
                if (s->in.eof)
                        return -EPIPE;
                struct pollfd p = { s->in.fd, POLLIN, 0 };
                int64_t left = deadline - stk_now_ms();
                if (left <= 0) {
                        withdraw(s, id, "no answer in time: denied");
                        return -ETIMEDOUT;
                }
                n = poll(&p, 1, (int) left);
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n > 0 && mcp_in_fill(&s->in) < 0)
                        return -errno;
        }
}

int mcp_client_confirm(void *data, const char *message, int timeout_ms)
{
        struct mcp_server *s = data;
        long long id;
        int r;

        if (!s->client_elicitation || !version_elicits(s->version))
                return -ENOTCONN;
        id = ++s->next_id;
        r = mcp_send(s, mcp_rpc_request(id, "elicitation/create", elicit_params(message)));
        if (r < 0)
                return -EPIPE;
        return wait_answer(s, id, timeout_ms);
}
