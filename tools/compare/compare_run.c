/* SPDX-License-Identifier: MIT */
/*
 * stockade compare: the three measurements of every stack.
 *
 *  - the escape suite: `sh run --json --progress` (t/escape/run), whose
 *    outside checks decide each probe; its progress lines feed ours;
 *  - `stockade explain --json`: which module covers which property;
 *  - startup: `stockade run ... -- /bin/true` against a plain exec of
 *    /bin/true, interleaved round by round (the order rotated each round) so
 *    that a slow spell of the machine is spread over every stack, as in
 *    bench/startup.
 *
 * A stack that cannot start here is a result, not a failure of compare:
 * its probes and its timing say so.  Only an interruption stops the run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

void compare_progress(const struct compare *c, const char *fmt, ...)
{
        va_list ap;

        if (!c->progress)
                return;
        fputs("\r\033[K", stderr); /* back to the start of the line, erase it */
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fflush(stderr);
}

/* The last `max` bytes of s, from a line start where possible, on one line. */
static char *tail_text(const char *s, size_t max)
{
        size_t n = strlen(s);
        const char *t = n > max ? s + n - max : s;
        const char *nl = t != s ? strchr(t, '\n') : NULL;
        char *r;

        if (nl && nl[1])
                t = nl + 1;
        r = strdup(t);
        for (char *p = r; p && *p; p++)
                if (*p == '\n' || *p == '\t')
                        *p = ' ';
        while (r && *r && r[strlen(r) - 1] == ' ')
                r[strlen(r) - 1] = '\0';
        return r;
}

static char *error_text(const char *what, int status, const char *out)
{
        char st[64], *r = NULL;
        _cleanup_free_ char *tail = tail_text(out, 400);

        if (asprintf(&r, "%s (%s): %s", what, compare_status_text(status, st, sizeof(st)),
                     tail && *tail ? tail : "no message") < 0)
                return NULL;
        return r;
}

/* ---- the escape suite -------------------------------------------------------- */

struct suite_progress {
        const struct compare *c;
        size_t j;
};

static bool on_suite_line(const char *line, void *userdata)
{
        const struct suite_progress *sp = userdata;
        const struct compare_stack *s = &sp->c->stacks[sp->j];
        unsigned i, n;
        char probe[128];

        if (sscanf(line, "progress %u %u %127s", &i, &n, probe) != 3)
                return false;
        compare_progress(sp->c, "stockade compare: stack %zu of %zu (%s): probe %u of %u (%s)",
                         sp->j + 1, sp->c->n_stacks, s->name, i, n, probe);
        return true;
}

static int suite_argv(const struct compare *c, const struct compare_stack *s, char *harness, char **argv)
{
        int n = 0;

        argv[n++] = "/bin/sh";
        argv[n++] = harness;
        argv[n++] = "--stockade";
        argv[n++] = c->self;
        argv[n++] = "--probes";
        argv[n++] = c->escape_dir;
        argv[n++] = "--json";
        argv[n++] = "--progress";
        argv[n++] = s->kind == COMPARE_CONTROL ? "--none" : s->kind == COMPARE_PROFILE ? "--profile" : "--policy";
        if (s->kind != COMPARE_CONTROL)
                argv[n++] = s->source;
        if (c->only) {
                argv[n++] = "--only";
                argv[n++] = (char *) c->only;
        }
        argv[n] = NULL;
        return n;
}

static int run_suite(struct compare *c, size_t j)
{
        struct compare_stack *s = &c->stacks[j];
        struct suite_progress sp = { c, j };
        struct compare_output o = { 0 };
        _cleanup_free_ char *harness = NULL;
        char *argv[16];
        int r;

        if (asprintf(&harness, "%s/run", c->escape_dir) < 0)
                return -ENOMEM;
        suite_argv(c, s, harness, argv);
        compare_progress(c, "stockade compare: stack %zu of %zu (%s): starting the escape suite", j + 1,
                         c->n_stacks, s->name);
        /* the suite gets our environment: it sets up HOME & co. itself */
        r = compare_spawn(argv, environ, NULL, on_suite_line, &sp, &o);
        if (r == -EINTR || r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(&s->suite_error, "cannot run %s: %s", harness, strerror(-r)) < 0 ? -ENOMEM : 0;
        s->results = json_tokener_parse(o.out);
        if (o.status != 0 || !json_object_is_type(s->results, json_type_array)) {
                json_object_put(s->results);
                s->results = NULL;
                s->suite_error = error_text(o.status != 0 ? "the escape suite failed" : "the escape suite printed no "
                                            "JSON array", o.status, *o.err ? o.err : o.out);
        }
        compare_output_done(&o);
        return s->results || s->suite_error ? 0 : -ENOMEM;
}

int compare_run_suites(struct compare *c)
{
        for (size_t j = 0; j < c->n_stacks; j++) {
                int r = run_suite(c, j);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- explain ------------------------------------------------------------------ */

static int run_explain(struct compare *c, struct compare_stack *s)
{
        char *argv[] = { c->self, "explain", "--json", "--workspace", c->ws,
                         s->kind == COMPARE_PROFILE ? "--profile" : "--policy", s->source, NULL };
        struct compare_output o = { 0 };
        int r = compare_spawn(argv, c->envp, c->ws, NULL, NULL, &o);

        if (r == -EINTR || r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(&s->explain_error, "cannot run stockade explain: %s", strerror(-r)) < 0 ? -ENOMEM : 0;
        s->explain = o.status == 0 ? json_tokener_parse(o.out) : NULL;
        if (!json_object_is_type(s->explain, json_type_object)) {
                json_object_put(s->explain);
                s->explain = NULL;
                s->explain_error = error_text("stockade explain failed", o.status, *o.err ? o.err : o.out);
        }
        compare_output_done(&o);
        return s->explain || s->explain_error ? 0 : -ENOMEM;
}

int compare_run_explain(struct compare *c)
{
        for (size_t j = 0; j < c->n_stacks; j++) {
                if (c->stacks[j].kind == COMPARE_CONTROL)
                        continue; /* nothing to explain: no stockade at all */
                compare_progress(c, "stockade compare: explain %s", c->stacks[j].name);
                int r = run_explain(c, &c->stacks[j]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- startup ------------------------------------------------------------------- */

static char *true_argv[] = { "/bin/true", NULL };

static void bench_argv(const struct compare *c, const struct compare_stack *s, char **argv)
{
        char **a = argv;

        *a++ = c->self;
        *a++ = "run";
        *a++ = s->kind == COMPARE_PROFILE ? "--profile" : "--policy";
        *a++ = s->source;
        *a++ = "--workspace";
        *a++ = c->ws;
        *a++ = "--";
        *a++ = "/bin/true";
        *a = NULL;
}

/* One untimed run, which must succeed (it also warms the page cache and
 * fs_bwrap's probe cache): else the stack is not timed, and says why. */
static int warm_up(struct compare *c, struct compare_stack *s, char **argv)
{
        struct compare_output o = { 0 };
        int r = compare_spawn(argv, c->envp, c->ws, NULL, NULL, &o);

        if (r == -EINTR || r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(&s->bench_error, "cannot run it: %s", strerror(-r)) < 0 ? -ENOMEM : 0;
        bool ok = o.status == 0;
        if (!ok)
                s->bench_error = error_text("stockade run -- /bin/true failed", o.status, *o.err ? o.err : o.out);
        compare_output_done(&o);
        return ok || s->bench_error ? 0 : -ENOMEM;
}

/* Times one run into samples[*n]; a failed run is counted, not kept. */
static int time_one(struct compare *c, char **argv, double *samples, size_t *n, size_t *n_failed)
{
        int status = 0;
        int r = compare_time_run(argv, c->envp, c->ws, &samples[*n], &status);

        if (r < 0)
                return r;
        if (r == 0)
                *n += 1;
        else
                *n_failed += 1;
        return compare_interrupted() ? -EINTR : 0;
}

/* Round `round`: plain exec (index n_stacks) and every timed stack, the
 * starting point rotated by one each round. */
static int bench_round(struct compare *c, char ***argvs, unsigned round, size_t *exec_failed)
{
        size_t m = c->n_stacks + 1;
        int r = 0;

        for (size_t k = 0; k < m && r >= 0; k++) {
                size_t j = (k + round) % m;
                if (j == c->n_stacks)
                        r = time_one(c, true_argv, c->exec_samples, &c->n_exec, exec_failed);
                else if (argvs[j])
                        r = time_one(c, argvs[j], c->stacks[j].samples, &c->stacks[j].n_samples,
                                     &c->stacks[j].n_failed);
        }
        return r;
}

static int bench_prepare(struct compare *c, char ***argvs)
{
        for (size_t j = 0; j < c->n_stacks; j++) {
                struct compare_stack *s = &c->stacks[j];
                s->samples = calloc(c->runs, sizeof(double));
                if (!s->samples)
                        return -ENOMEM;
                if (s->kind == COMPARE_CONTROL)
                        continue; /* the control is the plain exec itself */
                argvs[j] = calloc(10, sizeof(char *));
                if (!argvs[j])
                        return -ENOMEM;
                bench_argv(c, s, argvs[j]);
                compare_progress(c, "stockade compare: startup of %s: a first, untimed run", s->name);
                int r = warm_up(c, s, argvs[j]);
                if (r < 0)
                        return r;
                if (s->bench_error) {
                        free(argvs[j]);
                        argvs[j] = NULL;
                }
        }
        c->exec_samples = calloc(c->runs, sizeof(double));
        return c->exec_samples ? 0 : -ENOMEM;
}

int compare_run_bench(struct compare *c)
{
        _cleanup_free_ char ***argvs = calloc(c->n_stacks + 1, sizeof(char **));
        size_t exec_failed = 0;
        int r;

        if (!argvs)
                return -ENOMEM;
        r = c->runs ? bench_prepare(c, argvs) : 0;
        for (unsigned round = 0; r >= 0 && round < c->runs; round++) {
                compare_progress(c, "stockade compare: startup: round %u of %u", round + 1, c->runs);
                r = bench_round(c, argvs, round, &exec_failed);
        }
        for (size_t j = 0; j < c->n_stacks; j++)
                free(argvs[j]);
        if (r < 0)
                return r;
        for (size_t j = 0; j < c->n_stacks; j++)
                if (c->stacks[j].kind == COMPARE_CONTROL && c->n_exec) {
                        memcpy(c->stacks[j].samples, c->exec_samples, c->n_exec * sizeof(double));
                        c->stacks[j].n_samples = c->n_exec;
                        c->stacks[j].n_failed = exec_failed;
                }
        if (c->runs && exec_failed) {
                core_log(STK_LOG_ERROR, "compare: %zu of %u plain runs of /bin/true failed", exec_failed, c->runs);
                return -EIO;
        }
        return 0;
}
