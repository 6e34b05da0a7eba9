/* SPDX-License-Identifier: MIT */
/*
 * stockade compare --html FILE: one self-contained page printed from the
 * JSON document: inline CSS, no script, no external resource, so it can be
 * mailed or attached to a paper as is.  The matrix (a probe's detail in its
 * cell's tooltip), the counts and startup rows, a bar chart of the startup
 * overhead as inline SVG (one bar a stack), who enforces what, the notes.
 * Every string from the document is escaped: probe details quote paths and
 * error messages.
 */
#include <fcntl.h>
#include <stdio.h>
#include <json-c/json.h>

#include "compare_internal.h"
#include "run/core.h"
#include "util/util.h"

static void put_escaped(FILE *f, const char *s)
{
        for (; s && *s; s++) {
                switch (*s) {
                case '&': fputs("&amp;", f); break;
                case '<': fputs("&lt;", f); break;
                case '>': fputs("&gt;", f); break;
                case '"': fputs("&quot;", f); break;
                case '\'': fputs("&#39;", f); break;
                default: fputc(*s, f);
                }
        }
}

static const char style[] =
        "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#1d1d1f;background:#fff}"
        "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}"
        "table{border-collapse:collapse;margin:.5em 0}"
        "th,td{border:1px solid #c8c8c8;padding:2px 10px;text-align:center}"
        "th{background:#f0f0f0}th.p,td.p{text-align:left;font-family:ui-monospace,monospace}"
        "td.c{background:#c6e9c8}td.e{background:#f7c3c3;font-weight:bold}"
        "td.n{background:#ececec;color:#777}td.x{background:#fbe0b0}"
        "tr.sum td{background:#fafafa;font-weight:bold}"
        "td.m{font-family:ui-monospace,monospace;font-size:.85em}"
        ".bar{fill:#3f6fb0}.lbl{font:13px sans-serif;fill:#1d1d1f}.val{font:12px sans-serif;fill:#444}"
        ".axis{stroke:#888;stroke-width:1}p.meta{color:#555}";

static const char *cell_class(const char *symbol)
{
        switch (*symbol) {
        case 'C': return "c";
        case 'E': return "e";
        case '-': return "n";
        default: return "x";
        }
}

static struct json_object *result_entry(struct json_object *stack, const char *probe)
{
        struct json_object *results = json_object_object_get(stack, "results");

        for (size_t i = 0; i < compare_len(results); i++)
                if (streq(compare_str(json_object_array_get_idx(results, i), "probe"), probe))
                        return json_object_array_get_idx(results, i);
        return NULL;
}

static void header_row(FILE *f, const char *first, struct json_object *stacks)
{
        fprintf(f, "<tr><th class=\"p\">%s</th>", first);
        for (size_t j = 0; j < compare_len(stacks); j++) {
                fputs("<th>", f);
                put_escaped(f, compare_str(json_object_array_get_idx(stacks, j), "name"));
                fputs("</th>", f);
        }
        fputs("</tr>\n", f);
}

static void matrix_rows(FILE *f, struct json_object *doc, struct json_object *stacks)
{
        struct json_object *probes = json_object_object_get(doc, "probes");

        for (size_t i = 0; i < compare_len(probes); i++) {
                const char *p = json_object_get_string(json_object_array_get_idx(probes, i));
                fputs("<tr><td class=\"p\">", f);
                put_escaped(f, p);
                fputs("</td>", f);
                for (size_t j = 0; j < compare_len(stacks); j++) {
                        struct json_object *r = result_entry(json_object_array_get_idx(stacks, j), p);
                        const char *sym = compare_symbol(r ? compare_str(r, "result") : "");
                        fprintf(f, "<td class=\"%s\" title=\"", cell_class(sym));
                        put_escaped(f, r ? compare_str(r, "detail") : "not run");
                        fprintf(f, "\">%s</td>", sym);
                }
                fputs("</tr>\n", f);
        }
}

static void number_row(FILE *f, struct json_object *stacks, const char *label, const char *group,
                       const char *key, int decimals)
{
        fprintf(f, "<tr class=\"sum\"><td class=\"p\">%s</td>", label);
        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *g = json_object_object_get(json_object_array_get_idx(stacks, j), group);
                fputs("<td>", f);
                if (compare_has_num(g, key))
                        fprintf(f, "%.*f", decimals, compare_num(g, key));
                else
                        fputs("&ndash;", f);
                fputs("</td>", f);
        }
        fputs("</tr>\n", f);
}

static void matrix(FILE *f, struct json_object *doc, struct json_object *stacks)
{
        fputs("<h2>Escape probes</h2>\n<p>C contained, E escaped, &ndash; not applicable here, "
              "? no result. A cell's tooltip says what the probe saw, or what the outside check saw.</p>\n"
              "<table class=\"matrix\">\n<thead>", f);
        header_row(f, "probe", stacks);
        fputs("</thead>\n<tbody>\n", f);
        matrix_rows(f, doc, stacks);
        fputs("</tbody>\n<tfoot>\n", f);
        number_row(f, stacks, "contained", "counts", "contained", 0);
        number_row(f, stacks, "escaped", "counts", "escaped", 0);
        number_row(f, stacks, "n/a here", "counts", "na", 0);
        number_row(f, stacks, "no result", "counts", "error", 0);
        number_row(f, stacks, "startup median, ms", "startup", "median_ms", 2);
        number_row(f, stacks, "overhead, ms", "startup", "overhead_ms", 2);
        number_row(f, stacks, "&times; plain exec", "startup", "ratio", 2);
        fputs("</tfoot>\n</table>\n", f);
}

/* ---- the bar chart ----------------------------------------------------------------- */

#define CHART_LABEL_W 210
#define CHART_BAR_MAX 430
#define CHART_ROW_H 30
#define CHART_BAR_H 20

static double max_overhead(struct json_object *stacks)
{
        double max = 0;

        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *st = json_object_object_get(json_object_array_get_idx(stacks, j), "startup");
                if (compare_has_num(st, "overhead_ms") && compare_num(st, "overhead_ms") > max)
                        max = compare_num(st, "overhead_ms");
        }
        return max > 0 ? max : 1;
}

/* One bar a stack, even for an unmeasured one (width 0, "not measured"):
 * the chart's rows line up with the table's columns. */
static void chart_bar(FILE *f, struct json_object *s, size_t j, double max)
{
        struct json_object *st = json_object_object_get(s, "startup");
        bool has = compare_has_num(st, "overhead_ms");
        double v = has ? compare_num(st, "overhead_ms") : 0;
        double w = v > 0 ? v / max * CHART_BAR_MAX : 0;
        double y = 10 + (double) j * CHART_ROW_H;

        fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", CHART_LABEL_W - 8, y + 15);
        put_escaped(f, compare_str(s, "name"));
        fprintf(f, "</text>\n<rect class=\"bar\" x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\"><title>",
                CHART_LABEL_W, y, w, CHART_BAR_H);
        put_escaped(f, compare_str(s, "name"));
        fprintf(f, "</title></rect>\n<text class=\"val\" x=\"%.1f\" y=\"%.0f\">", CHART_LABEL_W + w + 6, y + 15);
        if (has)
                fprintf(f, "%.2f ms (&#215;%.2f)", v, compare_num(st, "ratio"));
        else
                fputs("not measured", f);
        fputs("</text>\n", f);
}

static void chart(FILE *f, struct json_object *doc, struct json_object *stacks)
{
        size_t n = compare_len(stacks);
        int height = 20 + (int) n * CHART_ROW_H;
        double max = max_overhead(stacks);

        struct json_object *plain = json_object_object_get(doc, "plain_exec");

        fputs("<h2>Startup overhead</h2>\n<p>Median time of <code>stockade run -- /bin/true</code> over a plain "
              "exec of <code>/bin/true</code>", f);
        if (compare_has_num(plain, "median_ms"))
                fprintf(f, " (%s ms here), %s runs each, interleaved.</p>\n", compare_str(plain, "median_ms"),
                        compare_str(doc, "startup_runs"));
        else
                fputs(": not measured (--runs 0).</p>\n", f);
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
                "aria-label=\"startup overhead per stack, ms\">\n", CHART_LABEL_W + CHART_BAR_MAX + 140, height);
        for (size_t j = 0; j < n; j++)
                chart_bar(f, json_object_array_get_idx(stacks, j), j, max);
        fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"5\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", CHART_LABEL_W,
                CHART_LABEL_W, height - 5);
}

/* ---- who enforces what, notes ---------------------------------------------------------- */

static void enforcer_cell(FILE *f, struct json_object *stack, const char *property)
{
        struct json_object *cov = json_object_object_get(stack, "coverage");
        size_t shown = 0;

        fputs("<td class=\"m\">", f);
        for (size_t i = 0; i < compare_len(cov); i++) {
                struct json_object *c = json_object_array_get_idx(cov, i), *by;
                if (!streq(compare_str(c, "property"), property))
                        continue;
                by = json_object_object_get(c, "enforced_by");
                for (size_t k = 0; k < compare_len(by); k++, shown++) {
                        fputs(shown ? "<br>" : "", f);
                        put_escaped(f, json_object_get_string(json_object_array_get_idx(by, k)));
                }
        }
        fputs(shown ? "</td>" : cov || streq(compare_str(stack, "kind"), "control") ? "&ndash;</td>" : "?</td>", f);
}

static void enforcers(FILE *f, struct json_object *stacks)
{
        fputs("<h2>Enforced by</h2>\n<p>For each property the settings ask for, the modules of the stack that "
              "cover it here, from <code>stockade explain --json</code> (a fallback stack lists its "
              "fallback too).</p>\n<table>\n<thead>", f);
        header_row(f, "property", stacks);
        fputs("</thead>\n<tbody>\n", f);
        for (uint32_t b = 1; b && b <= STK_COVER_LAST; b <<= 1) {
                fprintf(f, "<tr><td class=\"p\">%s</td>", core_cover_name(b));
                for (size_t j = 0; j < compare_len(stacks); j++)
                        enforcer_cell(f, json_object_array_get_idx(stacks, j), core_cover_name(b));
                fputs("</tr>\n", f);
        }
        fputs("</tbody>\n</table>\n", f);
}

static void notes(FILE *f, struct json_object *stacks)
{
        bool any = false;

        for (size_t j = 0; j < compare_len(stacks); j++) {
                struct json_object *s = json_object_array_get_idx(stacks, j), *n = json_object_object_get(s, "notes");
                for (size_t i = 0; i < compare_len(n); i++) {
                        fputs(any ? "<li><b>" : "<h2>Notes</h2>\n<ul>\n<li><b>", f);
                        put_escaped(f, compare_str(s, "name"));
                        fputs("</b>: ", f);
                        put_escaped(f, json_object_get_string(json_object_array_get_idx(n, i)));
                        fputs("</li>\n", f);
                        any = true;
                }
        }
        if (any)
                fputs("</ul>\n", f);
}

static void page(FILE *f, struct json_object *doc)
{
        struct json_object *stacks = json_object_object_get(doc, "stacks");

        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<title>stockade compare</title>\n<style>%s</style>\n</head>\n<body>\n"
                "<h1>stockade compare: isolation primitives side by side</h1>\n<p class=\"meta\">", style);
        put_escaped(f, compare_str(doc, "date"));
        fputs(" &middot; ", f);
        put_escaped(f, compare_str(json_object_object_get(doc, "host"), "kernel"));
        fputs(" &middot; stockade ", f);
        put_escaped(f, compare_str(doc, "stockade"));
        fputs(" &middot; <code>", f);
        put_escaped(f, compare_str(doc, "command"));
        fputs("</code></p>\n", f);
        matrix(f, doc, stacks);
        chart(f, doc, stacks);
        enforcers(f, stacks);
        notes(f, stacks);
        fputs("</body>\n</html>\n", f);
}

int compare_write_html(const char *path, struct json_object *doc)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r = 0;
        FILE *f;

        if (fd < 0 || !(f = fdopen(fd, "w"))) {
                r = -errno;
                if (fd >= 0)
                        (void) close(fd); /* fdopen failed: nothing was written */
                core_log(STK_LOG_ERROR, "compare: cannot write %s: %s", path, strerror(-r));
                return r;
        }
        page(f, doc);
        if (ferror(f))
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r < 0)
                core_log(STK_LOG_ERROR, "compare: writing %s: %s", path, strerror(-r));
        return r;
}
