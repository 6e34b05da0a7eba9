/* SPDX-License-Identifier: MIT */
/*
 * The audit log: JSON Lines, one record per run and per decision.  json-c
 * (not hand-written escaping) builds each record; each goes out in a single
 * O_APPEND write so concurrent runs sharing a log do not interleave.
 * json-c over jansson: it is already on every Debian system (systemd,
 * cryptsetup depend on it), keeps insertion order, and parses too.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <json-c/json.h>

#include "core.h"
#include "os/os.h"
#include "util/util.h"

void core_make_run_id(char id[static 33])
{
        unsigned char raw[16];

        if (!os_random(raw, sizeof(raw))) {
                /* Only an identifier for correlating records, not a secret. */
                unsigned long long t = (unsigned long long) time(NULL) ^ ((unsigned long long) getpid() << 32);
                memcpy(raw, &t, sizeof(t));
                memcpy(raw + 8, &t, sizeof(t));
        }
        for (size_t i = 0; i < sizeof(raw); i++)
                snprintf(id + 2 * i, 3, "%02x", raw[i]);
}

int core_audit_open(struct core_run *run, const char *path)
{
        int fd;

        if (!run->run_id[0])
                core_make_run_id(run->run_id);
        if (!path)
                return 0;
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
                int r = -errno;
                core_log(STK_LOG_ERROR, "cannot open audit log %s: %s", path, strerror(-r));
                return r;
        }
        run->audit = fdopen(fd, "a");
        if (!run->audit) {
                close(fd);
                return -ENOMEM;
        }
        return 0;
}

static void add_time(struct json_object *o)
{
        struct timespec ts;
        struct tm tm;
        char buf[64];

        if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm))
                return;
        size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, sizeof(buf) - n, ".%03ldZ", ts.tv_nsec / 1000000);
        json_object_object_add(o, "time", json_object_new_string(buf));
}

/* Takes `fields` (a JSON object); adds time, run id and type in front. */
int core_audit_record(struct core_run *run, const char *kind, struct json_object *fields)
{
        struct json_object *rec;
        const char *text;
        int r = 0;

        if (!run->audit || !fields) {
                json_object_put(fields);
                return 0;
        }
        rec = json_object_new_object();
        if (!rec) {
                json_object_put(fields);
                return -ENOMEM;
        }
        add_time(rec);
        json_object_object_add(rec, "run", json_object_new_string(run->run_id));
        json_object_object_add(rec, "type", json_object_new_string(kind));
        json_object_object_foreach(fields, key, val)
                json_object_object_add(rec, key, json_object_get(val));
        text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
        if (fprintf(run->audit, "%s\n", text) < 0 || fflush(run->audit) != 0) {
                r = -errno;
                core_log(STK_LOG_ERROR, "writing the audit log failed: %s", strerror(-r));
        }
        json_object_put(rec);
        json_object_put(fields);
        return r;
}

void core_audit_close(struct core_run *run)
{
        if (run->audit && fclose(run->audit) != 0)
                core_log(STK_LOG_WARNING, "closing the audit log: %s", strerror(errno));
        run->audit = NULL;
}
