/* SPDX-License-Identifier: MIT */
/*
 * `stockade run --json FILE` (stockade(1)): one JSON object about the run,
 * written to FILE, never to the command's stdout.  It is made from the
 * run's own records as they pass core_audit_record (the same fields as the
 * audit log's "run" and "decision" records, audit log or not) and from
 * what the supervisor counted:
 *   { "v", "run", "profile", "workspace", "argv", "outcome", "status",
 *     "signal", "timed_out", "duration_ms", "stack", "enforced_before_exec",
 *     "decisions": [ permission and approval verdicts ],
 *     "egress": [ the proxy's decisions ],
 *     "denied": { "total", "EPERM", "EACCES", "EROFS", "other" } }
 */
#include <stdio.h>
#include <json-c/json.h>

#include "core.h"
#include "util/util.h"

int core_result_start(struct core_run *run)
{
        run->result = json_object_new_object();
        if (!run->result)
                return -ENOMEM;
        json_object_object_add(run->result, "decisions", json_object_new_array());
        json_object_object_add(run->result, "egress", json_object_new_array());
        return 0;
}

static void append(struct core_run *run, const char *key, struct json_object *fields)
{
        struct json_object *a;

        if (json_object_object_get_ex(run->result, key, &a))
                json_object_array_add(a, json_object_get(fields));
}

/* A decision of the egress phase is the proxy's; the others are verdicts
 * on the command.  The run's own record gives the rest. */
void core_result_record(struct core_run *run, const char *kind, struct json_object *fields)
{
        struct json_object *phase;

        if (streq(kind, "decision")) {
                bool egress = json_object_object_get_ex(fields, "phase", &phase) &&
                              streq(json_object_get_string(phase), "egress");
                append(run, egress ? "egress" : "decisions", fields);
        } else if (streq(kind, "run")) {
                json_object_object_foreach(fields, key, val)
                        json_object_object_add(run->result, key, json_object_get(val));
        }
}

static struct json_object *denied_json(const struct core_run *run)
{
        struct json_object *o = json_object_new_object();
        unsigned total = run->denied_eperm + run->denied_eacces + run->denied_erofs + run->denied_other;

        json_object_object_add(o, "total", json_object_new_int64(total));
        json_object_object_add(o, "EPERM", json_object_new_int64(run->denied_eperm));
        json_object_object_add(o, "EACCES", json_object_new_int64(run->denied_eacces));
        json_object_object_add(o, "EROFS", json_object_new_int64(run->denied_erofs));
        json_object_object_add(o, "other", json_object_new_int64(run->denied_other));
        return o;
}

/* The object, one line, to fd (the caller's, opened before the run). */
int core_result_write(struct core_run *run, int fd, int status, int64_t duration_ms)
{
        struct json_object *o = run->result;
        const char *text;
        size_t len, off = 0;

        json_object_object_add(o, "v", json_object_new_int(CORE_AUDIT_SCHEMA));
        json_object_object_add(o, "run", json_object_new_string(run->run_id));
        json_object_object_add(o, "status", json_object_new_int(status));
        /* as sh reports it: 128+N is signal N (the command's own exit of
         * 128+N cannot be told apart, as with sh) */
        json_object_object_add(o, "signal", status > 128 && status <= 128 + 64
                                                    ? json_object_new_int(status - 128) : NULL);
        json_object_object_add(o, "timed_out", json_object_new_boolean(run->timed_out));
        json_object_object_add(o, "duration_ms", json_object_new_int64(duration_ms));
        json_object_object_add(o, "denied", denied_json(run));
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!text)
                return -ENOMEM;
        len = strlen(text);
        while (off < len) {
                ssize_t n = write(fd, text + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                off += (size_t) n;
        }
        return write(fd, "\n", 1) == 1 ? 0 : -errno;
}
