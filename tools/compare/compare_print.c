/* SPDX-License-Identifier: MIT */
/*
 * stockade compare: the text form, printed from the JSON document.  Probes
 * are rows and stacks columns; then, per stack, the counts, the startup
 * numbers, which module covers each property (one letter a module, from a
 * legend), and the notes.
 */
#include <ctype.h>
#include <stdio.h>
#include <json-c/json.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

#define LABEL_W 22

static bool letter_used(const struct compare_legend *l, char c)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->letter[i] == c)
                        return true;
        return false;
}

/* The first free letter of the name after its last '_' (B for fs_bwrap,
 * S for net_seccomp), else of the whole name, else of the alphabet. */
static char pick_letter(const struct compare_legend *l, const char *module)
{
        const char *u = strrchr(module, '_');
        const char *tries[] = { u ? u + 1 : module, module, "ABCDEFGHIJKLMNOPQRSTUVWXYZ" };

        for (size_t t = 0; t < ELEMENTSOF(tries); t++)
                for (const char *p = tries[t]; *p; p++) {
                        char c = (char) toupper((unsigned char) *p);
                        if (c >= 'A' && c <= 'Z' && !letter_used(l, c))
                                return c;
                }
        return '?';
}

static void legend_add(struct compare_legend *l, const char *module)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->module[i], module))
                        return;
        if (l->n == ELEMENTSOF(l->letter))
                return; /* 26 modules in one comparison: the rest print as '?' */
        l->letter[l->n] = pick_letter(l, module);
        l->module[l->n++] = module;
}

void compare_legend_build(struct json_object *doc, struct compare_legend *ret)
{
        struct json_object *stacks = json_object_object_get(doc, "stacks");

        *ret = (struct compare_legend) { .n = 0 };
        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *cov = json_object_object_get(json_object_array_get_idx(stacks, j), "coverage");
                for (size_t i = 0; i < compare_len(cov); i++) {
                        struct json_object *by = json_object_object_get(json_object_array_get_idx(cov, i), "enforced_by");
                        for (size_t k = 0; k < compare_len(by); k++)
                                legend_add(ret, json_object_get_string(json_object_array_get_idx(by, k)));
                }
        }
}

char compare_legend_letter(const struct compare_legend *l, const char *module)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->module[i], module))
                        return l->letter[i];
        return '?';
}

/* ---- the matrix ---------------------------------------------------------------- */

static int col_width(struct json_object *stack)
{
        int n = (int) strlen(compare_str(stack, "name"));
        return (n < 6 ? 6 : n) + 2;
}

/* A column's cell, padded to its width unless it is the last (no
 * trailing blanks). */
static void put_cell(FILE *f, struct json_object *stacks, size_t j, const char *text)
{
        if (j + 1 == compare_len(stacks))
                fprintf(f, "%s\n", text);
        else
                fprintf(f, "%-*s", col_width(json_object_array_get_idx(stacks, j)), text);
}

static const char *result_of(struct json_object *stack, const char *probe)
{
        struct json_object *results = json_object_object_get(stack, "results");

        for (size_t i = 0; i < compare_len(results); i++) {
                struct json_object *r = json_object_array_get_idx(results, i);
                if (streq(compare_str(r, "probe"), probe))
                        return compare_symbol(compare_str(r, "result"));
        }
        return "?";
}

static void print_header(FILE *f, const char *first, struct json_object *stacks)
{
        fprintf(f, "%-*s", LABEL_W, first);
        for (size_t j = 0; j < compare_len(stacks); j++)
                put_cell(f, stacks, j, compare_str(json_object_array_get_idx(stacks, j), "name"));
}

static void print_probes(FILE *f, struct json_object *doc, struct json_object *stacks)
{
        struct json_object *probes = json_object_object_get(doc, "probes");

        print_header(f, "probe", stacks);
        for (size_t i = 0; i < compare_len(probes); i++) {
                const char *p = json_object_get_string(json_object_array_get_idx(probes, i));
                fprintf(f, "%-*s", LABEL_W, p);
                for (size_t j = 0; j < compare_len(stacks); j++)
                        put_cell(f, stacks, j, result_of(json_object_array_get_idx(stacks, j), p));
        }
}

/* A row of one number per stack from stack[group][key], or "-". */
static void print_number_row(FILE *f, struct json_object *stacks, const char *label, const char *group,
                             const char *key, bool integer)
{
        fprintf(f, "%-*s", LABEL_W, label);
        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *s = json_object_array_get_idx(stacks, j);
                struct json_object *g = json_object_object_get(s, group);
                char buf[32] = "-";
                if (compare_has_num(g, key))
                        snprintf(buf, sizeof(buf), integer ? "%.0f" : "%.2f", compare_num(g, key));
                put_cell(f, stacks, j, buf);
        }
}

static void print_summary(FILE *f, struct json_object *stacks)
{
        print_number_row(f, stacks, "contained", "counts", "contained", true);
        print_number_row(f, stacks, "escaped", "counts", "escaped", true);
        print_number_row(f, stacks, "n/a here", "counts", "na", true);
        print_number_row(f, stacks, "no result", "counts", "error", true);
        print_number_row(f, stacks, "startup median, ms", "startup", "median_ms", false);
        print_number_row(f, stacks, "overhead, ms", "startup", "overhead_ms", false);
        print_number_row(f, stacks, "x plain exec", "startup", "ratio", false);
}

/* ---- who enforces what ----------------------------------------------------------- */

static void enforcers(const struct compare_legend *l, struct json_object *stack, const char *property,
                      char *buf, size_t size)
{
        struct json_object *cov = json_object_object_get(stack, "coverage");
        size_t used = 0;

        snprintf(buf, size, "%s", cov ? "-" : streq(compare_str(stack, "kind"), "control") ? "-" : "?");
        for (size_t i = 0; i < compare_len(cov); i++) {
                struct json_object *c = json_object_array_get_idx(cov, i);
                if (!streq(compare_str(c, "property"), property))
                        continue;
                struct json_object *by = json_object_object_get(c, "enforced_by");
                for (size_t k = 0; k < compare_len(by) && used + 1 < size; k++)
                        buf[used++] = compare_legend_letter(l, json_object_get_string(json_object_array_get_idx(by, k)));
                if (used)
                        buf[used] = '\0';
        }
}

static void print_enforcers(FILE *f, struct json_object *doc, struct json_object *stacks)
{
        struct compare_legend l;

        compare_legend_build(doc, &l);
        fprintf(f, "\nenforced by (from stockade explain):");
        for (size_t i = 0; i < l.n; i++)
                fprintf(f, "%s%c = %s", i ? ", " : " ", l.letter[i], l.module[i]);
        fputc('\n', f);
        print_header(f, "property", stacks);
        for (uint32_t b = 1; b && b <= STK_COVER_LAST; b <<= 1) {
                const char *property = core_cover_name(b);
                fprintf(f, "%-*s", LABEL_W, property);
                for (size_t j = 0; j < compare_len(stacks); j++) {
                        struct json_object *s = json_object_array_get_idx(stacks, j);
                        char cell[32];
                        enforcers(&l, s, property, cell, sizeof(cell));
                        put_cell(f, stacks, j, cell);
                }
        }
}

static void print_notes(FILE *f, struct json_object *stacks)
{
        bool any = false;

        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *s = json_object_array_get_idx(stacks, j), *notes = json_object_object_get(s, "notes");
                for (size_t i = 0; i < compare_len(notes); i++) {
                        fprintf(f, "%s  %s: %s\n", any ? "" : "\nnotes:\n", compare_str(s, "name"),
                                json_object_get_string(json_object_array_get_idx(notes, i)));
                        any = true;
                }
        }
}

void compare_print_text(FILE *f, struct json_object *doc)
{
        struct json_object *stacks = json_object_object_get(doc, "stacks");
        struct json_object *plain = json_object_object_get(doc, "plain_exec");

        fprintf(f, "stockade compare: %zu probes under %zu stacks, %s, %s\n",
                compare_len(json_object_object_get(doc, "probes")), compare_len(stacks),
                compare_str(doc, "date"), compare_str(json_object_object_get(doc, "host"), "kernel"));
        fprintf(f, "C contained, E escaped, - n/a here, ? no result; ");
        if (compare_has_num(plain, "median_ms"))
                fprintf(f, "startup: median of %s runs of stockade run -- /bin/true (plain exec: %s ms)\n\n",
                        compare_str(doc, "startup_runs"), compare_str(plain, "median_ms"));
        else
                fprintf(f, "startup not measured\n\n");
        print_probes(f, doc, stacks);
        fputc('\n', f);
        print_summary(f, stacks);
        print_enforcers(f, doc, stacks);
        print_notes(f, stacks);
}
