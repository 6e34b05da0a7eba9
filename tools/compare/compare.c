/* SPDX-License-Identifier: MIT */
/*
 * stockade compare [--profile P ...] [--stack NAME|FILE ...] [--json]
 *                  [--html FILE] [--runs N] [--only PROBE,...]
 *
 * Isolation primitives side by side, for researchers: the escape suite and
 * a startup benchmark under each stack, one matrix (probes as rows, stacks
 * as columns), the containment counts, the startup overhead, and which
 * module covers each property.  With no stack named, the shipped comparison
 * stacks: none (the control), bwrap, bwrap+seccomp, landlock+seccomp,
 * bwrap+landlock+seccomp, and the default profile.
 *
 * The escape suite stays a shell harness (t/escape/run): its outside checks
 * are shell, and one copy of them is the point.  This file only orchestrates.
 *
 * Exit status: 0 when the comparison ran (a stack that cannot start here is
 * a result, shown in its column), 1 when it could not run (no escape suite,
 * a suite that failed, a plain exec that could not be timed), 130 when
 * interrupted, STK_EXIT_USAGE for a bad command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <json-c/json.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

#define DEFAULT_RUNS 20
#define MAX_RUNS 10000
#define MAX_STACKS 32

/* A column as the command line named it, resolved once the paths are known. */
struct stack_arg {
        char opt;                       /* 'p' profile, 's' stack */
        const char *value;
};

struct compare_opts {
        struct stack_arg stacks[MAX_STACKS];
        size_t n_stacks;
        const char *html, *only;
        unsigned runs;
        bool json, help;
};

static const struct stack_arg shipped[] = {
        { 's', "none" }, { 's', "bwrap" }, { 's', "bwrap-seccomp" }, { 's', "landlock-seccomp" },
        { 's', "bwrap-landlock-seccomp" }, { 'p', "default" },
};

static void usage(FILE *f)
{
        fprintf(f, "usage: stockade compare [--profile P ...] [--stack NAME|FILE ...] [--json] [--html FILE]\n"
                "                        [--runs N] [--only PROBE,...]\n"
                "Runs the escape suite and a startup benchmark under each stack, in the order given\n"
                "(default: none bwrap bwrap-seccomp landlock-seccomp bwrap-landlock-seccomp, then\n"
                "--profile default), and prints one matrix.  --stack none is the control (no\n"
                "sandbox).  --runs: timed startup runs per stack (default %d; 0: none).  See stockade(1).\n",
                DEFAULT_RUNS);
}

static bool word_ok(const char *s, const char *extra)
{
        if (!*s || strlen(s) > 4096)
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
                      *s == '_' || strchr(extra, *s)))
                        return false;
        return true;
}

static int parse_runs(const char *s, unsigned *ret)
{
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v > MAX_RUNS)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

static int parse_opts(int argc, char **argv, struct compare_opts *o)
{
        static const struct option options[] = {
                { "profile", required_argument, NULL, 'p' }, { "stack", required_argument, NULL, 's' },
                { "json", no_argument, NULL, 'j' },          { "html", required_argument, NULL, 'H' },
                { "runs", required_argument, NULL, 'n' },    { "only", required_argument, NULL, 'o' },
                { "help", no_argument, NULL, 'h' },          { 0 },
        };
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+p:s:jH:n:o:h", options, NULL)) != -1) {
                switch (c) {
                case 'p':
                case 's':
                        if (o->n_stacks == MAX_STACKS || (c == 'p' && !word_ok(optarg, "-")))
                                return -EINVAL;
                        o->stacks[o->n_stacks++] = (struct stack_arg) { (char) c, optarg };
                        break;
                case 'j': o->json = true; break;
                case 'H': o->html = optarg; break;
                case 'n': if (parse_runs(optarg, &o->runs) < 0) return -EINVAL; break;
                case 'o': if (!word_ok(optarg, ",")) return -EINVAL; o->only = optarg; break;
                case 'h': o->help = true; return 0;
                default: return -EINVAL;
                }
        }
        return optind == argc ? 0 : -EINVAL;
}

/* "bwrap-seccomp" for .../bwrap-seccomp.yaml */
static char *name_of_file(const char *path)
{
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strlen(base);

        if (n > 5 && streq(base + n - 5, ".yaml"))
                n -= 5;
        return strndup(base, n);
}

static int add_stack(struct compare *c, const struct stack_arg *a)
{
        struct compare_stack *s = &c->stacks[c->n_stacks];
        int r = 0;

        if (a->opt == 'p') {
                *s = (struct compare_stack) { .kind = COMPARE_PROFILE, .name = strdup(a->value),
                                              .source = strdup(a->value) };
                r = s->name && s->source ? 0 : -ENOMEM;
        } else if (streq(a->value, "none")) {
                *s = (struct compare_stack) { .kind = COMPARE_CONTROL, .name = strdup("none") };
                r = s->name ? 0 : -ENOMEM;
        } else {
                *s = (struct compare_stack) { .kind = COMPARE_POLICY };
                r = compare_stack_file(c, a->value, &s->source);
                if (r >= 0)
                        r = (s->name = name_of_file(s->source)) ? 0 : -ENOMEM;
        }
        c->n_stacks++; /* even half-made: compare_free frees what is there */
        return r;
}

static int add_stacks(struct compare *c, const struct compare_opts *o)
{
        const struct stack_arg *list = o->n_stacks ? o->stacks : shipped;
        size_t n = o->n_stacks ? o->n_stacks : ELEMENTSOF(shipped);

        c->stacks = calloc(n, sizeof(*c->stacks));
        if (!c->stacks)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r = add_stack(c, &list[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void compare_free(struct compare *c)
{
        for (size_t j = 0; j < c->n_stacks; j++) {
                struct compare_stack *s = &c->stacks[j];
                free(s->name);
                free(s->source);
                json_object_put(s->results);
                json_object_put(s->explain);
                free(s->suite_error);
                free(s->explain_error);
                free(s->samples);
                free(s->bench_error);
        }
        free(c->stacks);
        free(c->self);
        free(c->escape_dir);
        free(c->stacks_dir);
        free(c->work);
        free(c->ws);
        strv_free(c->envp);
        free(c->exec_samples);
}

/* The measurements, then the document; -EINTR when interrupted. */
static int measure(struct compare *c)
{
        int r = compare_work_setup(c);

        if (r >= 0)
                r = compare_run_suites(c);
        if (r >= 0)
                r = compare_run_explain(c);
        if (r >= 0)
                r = compare_run_bench(c);
        compare_progress(c, "%s", "");
        return compare_interrupted() ? -EINTR : r;
}

/* Prints and writes what was asked; 0, or 1 if something could not be written
 * or a stack's suite could not run. */
static int report(const struct compare *c, const struct compare_opts *o, struct json_object *doc)
{
        int status = 0;

        if (o->json)
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
        else
                compare_print_text(stdout, doc);
        if (o->html && compare_write_html(o->html, doc) < 0)
                status = 1;
        for (size_t j = 0; j < c->n_stacks; j++)
                if (c->stacks[j].suite_error)
                        status = 1;
        if (fflush(stdout) != 0 || ferror(stdout)) {
                core_log(STK_LOG_ERROR, "compare: writing the report: %s", strerror(errno));
                status = 1;
        }
        return status;
}

static int compare_main(const char *stockade, int argc, char **argv)
{
        struct compare_opts o = { .runs = DEFAULT_RUNS };
        struct compare c = { .progress = isatty(STDERR_FILENO) == 1 };
        int r, status = 1;

        if (parse_opts(argc, argv, &o) < 0 || o.help) {
                usage(o.help ? stdout : stderr);
                return o.help ? 0 : STK_EXIT_USAGE;
        }
        c.runs = o.runs;
        c.only = o.only;
        r = compare_locate(&c, stockade);
        if (r >= 0) {
                r = add_stacks(&c, &o);
                if (r == -EINVAL)
                        status = STK_EXIT_USAGE; /* a stack the command line names is not there */
        }
        if (r >= 0)
                r = compare_catch_signals();
        if (r >= 0)
                r = measure(&c);
        if (r >= 0) {
                struct json_object *doc = compare_document(&c, argc, argv);
                status = report(&c, &o, doc);
                json_object_put(doc);
        } else if (r == -EINTR) {
                fprintf(stderr, "stockade compare: interrupted\n");
                status = 130;
        } else if (status != STK_EXIT_USAGE) {
                fprintf(stderr, "stockade compare: cannot run: %s\n", strerror(-r));
        }
        compare_work_remove(&c);
        compare_free(&c);
        return status;
}

/* stockade-compare --stockade PATH [OPTION...]: how `stockade compare` runs
 * it (core/cli/compare_cmd.c), naming the stockade binary whose stacks it
 * compares; the rest is `compare`'s own command line. */
int main(int argc, char **argv)
{
        if (argc < 3 || !streq(argv[1], "--stockade") || argv[2][0] != '/') {
                fprintf(stderr, "usage: stockade compare [OPTION...]: this is the tool behind it, run by stockade\n");
                return STK_EXIT_USAGE;
        }
        const char *stockade = argv[2];
        argv[2] = "compare";
        return compare_main(stockade, argc - 2, argv + 2);
}
