/* SPDX-License-Identifier: MIT */
/*
 * The audit log: JSON Lines, one record per run and per decision.  json-c
 * (not hand-written escaping) builds each record; each goes out in a single
 * O_APPEND write so concurrent runs sharing a log do not interleave.
 * json-c over jansson: it is already on every Debian system (systemd,
 * cryptsetup depend on it), keeps insertion order, and parses too.
 *
 * Bounded per run (issue 21 section 5: 15,000 refused requests in 3 s
 * wrote 19 MB, about 20 GB an hour from one core):
 *  - a refusal (a record whose "verdict" is "deny") that repeats one
 *    already written, field for field, is folded: counted, and written as
 *    one "KIND-repeated" record with the fields, "count", "first" and
 *    "last", at most every FOLD_WINDOW_MS per refusal and at the end;
 *  - past AUDIT_MAX_BYTES written by this run, records are counted, not
 *    written, but for the run's own "run" record;
 *  - at the end, when anything was folded, dropped or kept off the
 *    terminal, one "audit-summary" record says how much.
 * Only the writing is bounded: what is decided never waits on or depends
 * on the log, and a reached cap stops nothing (core_audit_record returns
 * 0 for a dropped record).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <time.h>
#include <json-c/json.h>

#include "common/stk_time.h"
#include "core.h"
#include "os/os.h"
#include "util/util.h"

#define AUDIT_MAX_BYTES (8ull << 20) /* per run; stockade.yaml(5), audit */
#define FOLD_SLOTS 64
#define FOLD_WINDOW_MS 10000

/* One refusal being folded: its first occurrence was written in full. */
struct fold {
        char *key;                      /* kind, '\n', the fields as written; NULL: a free slot */
        char *kind;
        struct json_object *fields;
        uint64_t count;                 /* repeats since the last record of them */
        char first[STK_TIME_ISO_MAX], last[STK_TIME_ISO_MAX];
        int64_t first_ms, last_ms;      /* the window, and which slot is least recently used */
};

struct core_audit {
        uint64_t written;               /* bytes this run wrote */
        uint64_t dropped, dropped_bytes;
        char drop_first[STK_TIME_ISO_MAX], drop_last[STK_TIME_ISO_MAX];
        uint64_t folded;                /* repeats folded, in all */
        struct fold folds[FOLD_SLOTS];
};

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

/* The directories of a log in a place not made yet (the documented
 * ~/.local/state/stockade/audit.jsonl on a fresh account): the user's own,
 * 0700.  0, or -errno of the first mkdir that failed otherwise. */
static int make_parents(const char *path)
{
        _cleanup_free_ char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(p, 0700) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return 0;
}

int core_audit_open(struct core_run *run, const char *path)
{
        int fd;

        if (!run->run_id[0])
                core_make_run_id(run->run_id);
        if (!path)
                return 0;
        run->audit_state = calloc(1, sizeof(*run->audit_state));
        if (!run->audit_state)
                return -ENOMEM;
        if (core_audit_kind(path, NULL) != CORE_AUDIT_FILE)
                return core_audit_sink_open(run, path); /* syslog, journal */
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno == ENOENT && make_parents(path) == 0)
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

static void now_iso(char buf[static STK_TIME_ISO_MAX])
{
        struct timespec ts;

        buf[0] = '\0';
        if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
                (void) stk_time_iso(&ts, buf, STK_TIME_ISO_MAX); /* out of range: no time, still a record */
}

static void count_dropped(struct core_audit *a, size_t len, const char *when)
{
        if (a->dropped++ == 0) {
                snprintf(a->drop_first, sizeof(a->drop_first), "%s", when);
                core_log(STK_LOG_WARNING, "the audit log reached this run's cap of %llu bytes: later records are "
                         "counted, not written (a summary record at the end says how many); enforcement goes on",
                         (unsigned long long) AUDIT_MAX_BYTES);
        }
        snprintf(a->drop_last, sizeof(a->drop_last), "%s", when);
        a->dropped_bytes += len;
}

/* time, run id and type in front of `fields` (kept), then the line out,
 * unless it would pass the cap (`capped`). */
static int write_record(struct core_run *run, const char *kind, struct json_object *fields, bool capped)
{
        struct core_audit *a = run->audit_state;
        struct json_object *rec = json_object_new_object();
        char when[STK_TIME_ISO_MAX];
        const char *text;
        size_t len;
        int r = 0;

        if (!rec)
                return -ENOMEM;
        now_iso(when);
        json_object_object_add(rec, "v", json_object_new_int(CORE_AUDIT_SCHEMA));
        if (when[0])
                json_object_object_add(rec, "time", json_object_new_string(when));
        json_object_object_add(rec, "run", json_object_new_string(run->run_id));
        json_object_object_add(rec, "type", json_object_new_string(kind));
        json_object_object_foreach(fields, key, val)
                json_object_object_add(rec, key, json_object_get(val));
        text = json_object_to_json_string_ext(rec, CORE_AUDIT_JSON_FLAGS);
        len = strlen(text) + 1;
        if (capped && a->written + len > AUDIT_MAX_BYTES)
                count_dropped(a, len, when);
        else if (fprintf(run->audit, "%s\n", text) < 0 || fflush(run->audit) != 0) {
                r = -errno;
                core_log(STK_LOG_ERROR, "writing the audit log failed: %s", strerror(-r));
        } else
                a->written += len;
        json_object_put(rec);
        return r;
}

static bool is_refusal(struct json_object *fields)
{
        struct json_object *v;

        return json_object_object_get_ex(fields, "verdict", &v) && json_object_is_type(v, json_type_string) &&
               streq(json_object_get_string(v), "deny");
}

/* The folded repeats of f as one record; the slot stays, emptied of them. */
static void emit_fold(struct core_run *run, struct fold *f)
{
        _cleanup_free_ char *kind = NULL;
        struct json_object *o;

        if (!f->count || asprintf(&kind, "%s-repeated", f->kind) < 0)
                return;
        o = json_object_new_object();
        if (!o)
                return;
        json_object_object_foreach(f->fields, key, val)
                json_object_object_add(o, key, json_object_get(val));
        json_object_object_add(o, "count", json_object_new_int64((int64_t) f->count));
        json_object_object_add(o, "first", json_object_new_string(f->first));
        json_object_object_add(o, "last", json_object_new_string(f->last));
        (void) write_record(run, kind, o, true); /* a failing write already said so */
        json_object_put(o);
        f->count = 0;
}

static void fold_clear(struct fold *f)
{
        free(f->key);
        free(f->kind);
        json_object_put(f->fields);
        *f = (struct fold) { 0 };
}

/* The slot of `key`, or a free one, or the least recently used, emitted. */
static struct fold *fold_slot(struct core_run *run, const char *key)
{
        struct fold *folds = run->audit_state->folds, *lru = &folds[0];

        for (size_t i = 0; i < FOLD_SLOTS; i++)
                if (folds[i].key && streq(folds[i].key, key))
                        return &folds[i];
        for (size_t i = 0; i < FOLD_SLOTS; i++) {
                if (!folds[i].key)
                        return &folds[i];
                if (folds[i].last_ms < lru->last_ms)
                        lru = &folds[i];
        }
        emit_fold(run, lru);
        fold_clear(lru);
        return lru;
}

/* True: a repeat, folded (nothing to write now).  False: write it in
 * full; a refusal is remembered to fold its repeats. */
static bool fold(struct core_run *run, const char *kind, struct json_object *fields)
{
        _cleanup_free_ char *key = NULL;
        int64_t now = stk_now_ms();
        struct fold *f;

        if (!is_refusal(fields) ||
            asprintf(&key, "%s\n%s", kind, json_object_to_json_string_ext(fields, CORE_AUDIT_JSON_FLAGS)) < 0)
                return false;
        f = fold_slot(run, key);
        if (!f->key) {
                f->kind = strdup(kind);
                if (!f->kind)
                        return false;
                f->key = TAKE_PTR(key);
                f->fields = json_object_get(fields);
                f->last_ms = now;
                return false;
        }
        if (f->count++ == 0) {
                now_iso(f->first);
                f->first_ms = now;
        }
        now_iso(f->last);
        f->last_ms = now;
        run->audit_state->folded++;
        if (now - f->first_ms >= FOLD_WINDOW_MS)
                emit_fold(run, f);
        return true;
}

/* Takes `fields` (a JSON object); adds time, run id and type in front. */
int core_audit_record(struct core_run *run, const char *kind, struct json_object *fields)
{
        int r = 0;

        if (run->result && fields)
                core_result_record(run, kind, fields);
        if (!run->audit || !fields) {
                json_object_put(fields);
                return 0;
        }
        /* The run's own record says how it ended: never capped. */
        if (!fold(run, kind, fields))
                r = write_record(run, kind, fields, !streq(kind, "run"));
        json_object_put(fields);
        return r;
}

/* What was folded, dropped and kept off the terminal, after the last
 * folded repeats: written past the cap, it is the last word on the run. */
static void write_summary(struct core_run *run, uint64_t suppressed)
{
        struct core_audit *a = run->audit_state;
        struct json_object *o;

        for (size_t i = 0; i < FOLD_SLOTS; i++)
                emit_fold(run, &a->folds[i]);
        if (!a->folded && !a->dropped && !suppressed)
                return;
        o = json_object_new_object();
        if (!o)
                return;
        json_object_object_add(o, "folded", json_object_new_int64((int64_t) a->folded));
        json_object_object_add(o, "dropped", json_object_new_int64((int64_t) a->dropped));
        json_object_object_add(o, "dropped_bytes", json_object_new_int64((int64_t) a->dropped_bytes));
        json_object_object_add(o, "cap_bytes", json_object_new_int64((int64_t) AUDIT_MAX_BYTES));
        if (a->dropped) {
                json_object_object_add(o, "first_dropped", json_object_new_string(a->drop_first));
                json_object_object_add(o, "last_dropped", json_object_new_string(a->drop_last));
        }
        json_object_object_add(o, "warnings_suppressed", json_object_new_int64((int64_t) suppressed));
        (void) write_record(run, "audit-summary", o, false);
        json_object_put(o);
}

void core_audit_close(struct core_run *run)
{
        uint64_t suppressed = core_log_end();

        if (run->audit) {
                write_summary(run, suppressed);
                if (fclose(run->audit) != 0)
                        core_log(STK_LOG_WARNING, "closing the audit log: %s", strerror(errno));
        }
        run->audit = NULL;
        if (run->audit_state)
                for (size_t i = 0; i < FOLD_SLOTS; i++)
                        fold_clear(&run->audit_state->folds[i]);
        free(run->audit_state);
        run->audit_state = NULL;
}
