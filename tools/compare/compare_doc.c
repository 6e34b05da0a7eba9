/* SPDX-License-Identifier: MIT */
/*
 * stockade compare: the JSON document.  Everything compare prints (the text
 * matrix, --json, --html) is printed from it.  Its shape, for a harness
 * (stockade(1) documents it):
 *
 *   { "compare": 1, "date", "host", "stockade", "command", "escape_suite",
 *     "startup_runs", "plain_exec": { "median_ms", "runs" },
 *     "probes": [ names, in the suite's order ],
 *     "stacks": [ { "name", "kind", "source", "results": [ the suite's ],
 *                   "counts": { "contained", "escaped", "na", "error", "total" },
 *                   "startup": { "median_ms", "overhead_ms", "ratio", "runs", "failed" },
 *                   "coverage": [ explain's ], "modules": [ the stack's lines ],
 *                   "notes": [ what went wrong, in words ] } ] }
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

/* json-c asserts on the length of a non-array; absent means empty here. */
size_t compare_len(struct json_object *a)
{
        return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

const char *compare_str(struct json_object *o, const char *key)
{
        const char *s = json_object_get_string(json_object_object_get(o, key));
        return s ? s : "";
}

bool compare_has_num(struct json_object *o, const char *key)
{
        struct json_object *v = json_object_object_get(o, key);
        return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

double compare_num(struct json_object *o, const char *key)
{
        return json_object_get_double(json_object_object_get(o, key));
}

const char *compare_symbol(const char *result)
{
        if (streq(result, "CONTAINED"))
                return "C";
        if (streq(result, "ESCAPED"))
                return "E";
        return streq(result, "NA") ? "-" : "?";
}

/* A number printed with two decimals, as it will be read. */
static struct json_object *num2(double v)
{
        char s[64];

        snprintf(s, sizeof(s), "%.2f", v);
        return json_object_new_double_s(v, s);
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* The median in µs, or -1 with no samples (the array is sorted in place). */
static double median_us(double *v, size_t n)
{
        if (n == 0)
                return -1;
        qsort(v, n, sizeof(double), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void add_note(struct json_object *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct json_object *notes, const char *fmt, ...)
{
        char buf[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        json_object_array_add(notes, json_object_new_string(buf));
}

static struct json_object *counts_json(struct json_object *results, size_t *ret_errors)
{
        static const char *const keys[] = { "contained", "escaped", "na", "error" };
        size_t n[4] = { 0 }, total = compare_len(results);
        struct json_object *o = json_object_new_object();

        for (size_t i = 0; i < total; i++) {
                const char *sym = compare_symbol(compare_str(json_object_array_get_idx(results, i), "result"));
                n[streq(sym, "C") ? 0 : streq(sym, "E") ? 1 : streq(sym, "-") ? 2 : 3]++;
        }
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                json_object_object_add(o, keys[k], json_object_new_int64((int64_t) n[k]));
        json_object_object_add(o, "total", json_object_new_int64((int64_t) total));
        *ret_errors = n[3];
        return o;
}

static struct json_object *startup_json(const struct compare *c, struct compare_stack *s, double exec_us)
{
        struct json_object *o = json_object_new_object();
        double m = median_us(s->samples, s->n_samples);

        json_object_object_add(o, "runs", json_object_new_int64((int64_t) s->n_samples));
        json_object_object_add(o, "failed", json_object_new_int64((int64_t) s->n_failed));
        if (m < 0 || exec_us <= 0)
                return o; /* not measured: no numbers, the notes say why */
        json_object_object_add(o, "median_ms", num2(m / 1000));
        json_object_object_add(o, "overhead_ms", num2(s->kind == COMPARE_CONTROL ? 0 : (m - exec_us) / 1000));
        json_object_object_add(o, "ratio", num2(s->kind == COMPARE_CONTROL ? 1 : m / exec_us));
        return o;
}

/* explain's stack lines, shortened to what the comparison shows. */
static struct json_object *modules_json(struct json_object *explain, struct json_object *notes)
{
        struct json_object *lines = json_object_object_get(explain, "stack"), *a = json_object_new_array();

        for (size_t i = 0; i < compare_len(lines); i++) {
                struct json_object *l = json_object_array_get_idx(lines, i), *m = json_object_new_object();
                static const char *const keys[] = { "phase", "control", "module", "usable_here", "why_not", "covers" };
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        struct json_object *v = json_object_object_get(l, keys[k]);
                        if (v)
                                json_object_object_add(m, keys[k], json_object_get(v));
                }
                if (!json_object_get_boolean(json_object_object_get(l, "usable_here")))
                        add_note(notes, "%s (%s) cannot run here: %s", compare_str(l, "module"),
                                 compare_str(l, "phase"), compare_str(l, "why_not"));
                json_object_array_add(a, m);
        }
        return a;
}

static void suite_notes(const struct compare_stack *s, struct json_object *results, size_t errors,
                        struct json_object *notes)
{
        size_t total = compare_len(results);

        if (s->suite_error)
                add_note(notes, "the escape suite could not run: %s", s->suite_error);
        else if (errors && errors == total)
                add_note(notes, "no probe gave a result (the sandbox did not start?): %s",
                         compare_str(json_object_array_get_idx(results, 0), "detail"));
        else if (errors)
                add_note(notes, "%zu of %zu probes gave no result", errors, total);
}

static struct json_object *stack_json(const struct compare *c, struct compare_stack *s, double exec_us)
{
        static const char *const kinds[] = { [COMPARE_CONTROL] = "control", [COMPARE_PROFILE] = "profile",
                                             [COMPARE_POLICY] = "stack" };
        struct json_object *o = json_object_new_object(), *notes = json_object_new_array();
        struct json_object *results = s->results ? json_object_get(s->results) : json_object_new_array();
        size_t errors = 0;

        json_object_object_add(o, "name", json_object_new_string(s->name));
        json_object_object_add(o, "kind", json_object_new_string(kinds[s->kind]));
        json_object_object_add(o, "source", s->source ? json_object_new_string(s->source) : NULL);
        json_object_object_add(o, "counts", counts_json(results, &errors));
        json_object_object_add(o, "results", results);
        suite_notes(s, results, errors, notes);
        json_object_object_add(o, "startup", startup_json(c, s, exec_us));
        if (s->bench_error)
                add_note(notes, "startup not measured: %s", s->bench_error);
        if (s->n_failed)
                add_note(notes, "%zu of %u timed runs failed and are left out", s->n_failed, c->runs);
        if (s->explain) {
                json_object_object_add(o, "coverage", json_object_get(json_object_object_get(s->explain, "coverage")));
                json_object_object_add(o, "modules", modules_json(s->explain, notes));
                if (*compare_str(s->explain, "not_enforced"))
                        add_note(notes, "not enforced here: %s", compare_str(s->explain, "not_enforced"));
        } else {
                json_object_object_add(o, "coverage", NULL);
                if (s->explain_error)
                        add_note(notes, "%s", s->explain_error);
        }
        json_object_object_add(o, "notes", notes);
        return o;
}

/* Every probe any stack ran, in the order the suite ran them. */
static struct json_object *probes_json(const struct compare *c)
{
        struct json_object *a = json_object_new_array(), *seen = json_object_new_object();

        for (size_t j = 0; j < c->n_stacks; j++)
                for (size_t i = 0; i < compare_len(c->stacks[j].results); i++) {
                        const char *p = compare_str(json_object_array_get_idx(c->stacks[j].results, i), "probe");
                        if (json_object_object_get_ex(seen, p, NULL))
                                continue;
                        json_object_object_add(seen, p, NULL);
                        json_object_array_add(a, json_object_new_string(p));
                }
        json_object_put(seen);
        return a;
}

static struct json_object *host_json(void)
{
        struct json_object *o = json_object_new_object();
        struct utsname u;
        char buf[512];

        if (uname(&u) == 0) {
                snprintf(buf, sizeof(buf), "%s %s %s", u.sysname, u.release, u.machine);
                json_object_object_add(o, "kernel", json_object_new_string(buf));
        }
        json_object_object_add(o, "uid", json_object_new_int64((int64_t) geteuid()));
        return o;
}

static struct json_object *command_json(int argc, char **argv)
{
        char buf[2048];
        size_t used = (size_t) snprintf(buf, sizeof(buf), "stockade");

        for (int i = 0; i < argc && used < sizeof(buf); i++)
                used += (size_t) snprintf(buf + used, sizeof(buf) - used, " %s", argv[i]);
        return json_object_new_string(buf);
}

static struct json_object *date_json(void)
{
        char buf[64] = "";
        time_t now = time(NULL);
        struct tm tm;

        if (now != (time_t) -1 && gmtime_r(&now, &tm))
                strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        return json_object_new_string(buf);
}

struct json_object *compare_document(const struct compare *c, int argc, char **argv)
{
        struct json_object *doc = json_object_new_object(), *stacks = json_object_new_array();
        struct json_object *plain = json_object_new_object();
        double exec_us = median_us(c->exec_samples, c->n_exec);

        json_object_object_add(doc, "compare", json_object_new_int(1));
        json_object_object_add(doc, "date", date_json());
        json_object_object_add(doc, "host", host_json());
        json_object_object_add(doc, "stockade", json_object_new_string(STK_VERSION));
        json_object_object_add(doc, "command", command_json(argc, argv));
        json_object_object_add(doc, "escape_suite", json_object_new_string(c->escape_dir));
        json_object_object_add(doc, "startup_runs", json_object_new_int64(c->runs));
        json_object_object_add(plain, "runs", json_object_new_int64((int64_t) c->n_exec));
        if (exec_us > 0)
                json_object_object_add(plain, "median_ms", num2(exec_us / 1000));
        json_object_object_add(doc, "plain_exec", plain);
        json_object_object_add(doc, "probes", probes_json(c));
        for (size_t j = 0; j < c->n_stacks; j++)
                json_object_array_add(stacks, stack_json(c, &c->stacks[j], exec_us));
        json_object_object_add(doc, "stacks", stacks);
        return doc;
}
