/* SPDX-License-Identifier: MIT */
/* stockade compare: shared between core/compare*.c.  The subcommand runs the
 * escape suite (t/escape/run, as a child) and a startup benchmark under each
 * stack, asks `stockade explain --json` who enforces what, and puts all of
 * it into one JSON document; the text and HTML forms are printed from that
 * document, so the three cannot disagree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_object;

enum compare_kind {
        COMPARE_CONTROL,        /* no sandbox at all: the harness's --none */
        COMPARE_PROFILE,        /* --profile NAME */
        COMPARE_POLICY,         /* --policy FILE (a stack file) */
};

/* One column of the matrix: what to run, then what came of it. */
struct compare_stack {
        char *name;                     /* the column's label */
        enum compare_kind kind;
        char *source;                   /* profile name or absolute policy path; NULL for the control */
        struct json_object *results;    /* the harness's --json array, or NULL */
        char *suite_error;              /* why the escape suite could not run */
        struct json_object *explain;    /* `stockade explain --json`, or NULL */
        char *explain_error;            /* why explain failed (the stack cannot run here) */
        double *samples;                /* startup times of the successful timed runs, in µs */
        size_t n_samples, n_failed;
        char *bench_error;              /* why it was not timed */
};

struct compare {
        struct compare_stack *stacks;
        size_t n_stacks;
        char *self;                     /* the stockade binary compared, absolute */
        char *escape_dir;               /* the harness `run`, `escape-fixture` and probes/ */
        char *stacks_dir;               /* the shipped comparison stacks */
        char *work;                     /* the benchmark's workspace and fake HOME */
        char *ws;                       /* $work/ws */
        char **envp;                    /* environ with HOME & co. pointed into $work */
        const char *only;               /* --only: probes to run, comma-separated */
        unsigned runs;                  /* timed startup runs per stack */
        bool progress;                  /* stderr is a terminal: draw a progress line */
        double *exec_samples;           /* plain exec of /bin/true, in µs */
        size_t n_exec;
};

/* compare_env.c: where things are, the work tree, the children's env. */
/* The stockade binary to compare with (absolute), the suite and the stacks:
 * the build tree's for the build tree's tool. */
int compare_locate(struct compare *c, const char *stockade);
int compare_stack_file(const struct compare *c, const char *name, char **ret_path);
int compare_work_setup(struct compare *c);
void compare_work_remove(struct compare *c);

/* compare_spawn.c: children. */
struct compare_output {
        char *out;                      /* stdout, NUL-terminated */
        size_t n_out;
        char *err;                      /* stderr but the lines on_line took, NUL-terminated */
        int status;                     /* wait status */
};
/* Called with each stderr line (no newline); returns true if it took it. */
typedef bool (*compare_line_fn)(const char *line, void *userdata);
int compare_spawn(char *const *argv, char *const *envp, const char *cwd, compare_line_fn on_line,
                  void *userdata, struct compare_output *ret);
void compare_output_done(struct compare_output *o);
/* One timed run, output to /dev/null: 0 and *ret_us if it exited 0,
 * 1 if it ran and failed (status in *ret_status), or -errno. */
int compare_time_run(char *const *argv, char *const *envp, const char *cwd, double *ret_us, int *ret_status);
bool compare_interrupted(void);
int compare_catch_signals(void);
/* "exit 3", "signal 9": for messages. */
const char *compare_status_text(int status, char *buf, size_t size);

/* compare_run.c: the suite, explain and the benchmark for every stack. */
void compare_progress(const struct compare *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int compare_run_suites(struct compare *c);
int compare_run_explain(struct compare *c);
int compare_run_bench(struct compare *c);

/* compare_doc.c: the JSON document every output is printed from. */
struct json_object *compare_document(const struct compare *c, int argc, char **argv);
const char *compare_symbol(const char *result);  /* "C", "E", "-", "?" */
size_t compare_len(struct json_object *a);
const char *compare_str(struct json_object *o, const char *key);
double compare_num(struct json_object *o, const char *key);
bool compare_has_num(struct json_object *o, const char *key);

/* compare_print.c and compare_html.c */
void compare_print_text(FILE *f, struct json_object *doc);
int compare_write_html(const char *path, struct json_object *doc);
/* Letters for the modules of the "enforced by" rows: "B" for fs_bwrap. */
struct compare_legend {
        char letter[26];
        const char *module[26];
        size_t n;
};
void compare_legend_build(struct json_object *doc, struct compare_legend *ret);
char compare_legend_letter(const struct compare_legend *l, const char *module);
