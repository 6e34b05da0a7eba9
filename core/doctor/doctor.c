/* SPDX-License-Identifier: MIT */
/*
 * stockade doctor [--json]: what this machine offers a sandbox (Landlock,
 * seccomp, user namespaces and what blocks them, bubblewrap, the
 * nested-container /proc problem) and whether each shipped profile can run
 * here.  Every problem comes with its cause and the narrowest fix.
 *
 * The report is one JSON document; the text form is printed from it, so the
 * two cannot disagree.  Exit 0 when nothing failed (warnings allowed), 1
 * otherwise, STK_EXIT_USAGE for a bad command line.  doctor needs no root
 * and never hangs: every probe runs in a child with a deadline
 * (doctor_spawn.c).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "run/core.h"
#include "doctor.h"
#include "doctor_internal.h"
#include "util/util.h"

const char *doctor_status_name(enum doctor_status s)
{
        return core_doctor_status_name((enum stk_doctor_status) s);
}

enum doctor_status doctor_status_of(struct json_object *check)
{
        const char *s = json_object_get_string(json_object_object_get(check, "status"));

        for (int i = DOCTOR_OK; s && i <= DOCTOR_FAIL; i++)
                if (streq(s, doctor_status_name((enum doctor_status) i)))
                        return (enum doctor_status) i;
        return DOCTOR_FAIL;
}

static void set_v(struct json_object *o, const char *key, const char *fmt, va_list ap)
        __attribute__((format(printf, 3, 0)));
static void set_v(struct json_object *o, const char *key, const char *fmt, va_list ap)
{
        char buf[2048];

        vsnprintf(buf, sizeof(buf), fmt, ap);
        json_object_object_add(o, key, json_object_new_string(buf));
}

void doctor_set(struct json_object *o, const char *key, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        set_v(o, key, fmt, ap);
        va_end(ap);
}

struct json_object *doctor_add(struct json_object *checks, const char *name, enum doctor_status s, const char *fmt, ...)
{
        struct json_object *o = json_object_new_object();
        va_list ap;

        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "status", json_object_new_string(doctor_status_name(s)));
        va_start(ap, fmt);
        set_v(o, "summary", fmt, ap);
        va_end(ap);
        json_object_array_add(checks, o);
        return o;
}

struct json_object *doctor_find(struct json_object *checks, const char *name)
{
        for (size_t i = 0; i < json_object_array_length(checks); i++) {
                struct json_object *c = json_object_array_get_idx(checks, i);
                if (streq(json_object_get_string(json_object_object_get(c, "name")), name))
                        return c;
        }
        return NULL;
}

/* ---- text output --------------------------------------------------------- */

static const char *str(struct json_object *o, const char *key)
{
        const char *s = json_object_get_string(json_object_object_get(o, key));
        return s ? s : "";
}

/* "        label:  text", wrapped at WRAP columns; continuation lines, and
 * the lines of a multi-line text (a profile to save), indented under it. */
#define WRAP 100
#define INDENT 17

static void print_field(FILE *f, const char *label, const char *text)
{
        int col = INDENT;
        bool space = false;

        if (!text || !*text)
                return;
        fprintf(f, "        %-8s ", label);
        while (*text) {
                if (*text == '\n') {
                        if (!*++text)
                                break;
                        fprintf(f, "\n%*s", INDENT, "");
                        for (col = INDENT, space = false; *text == ' '; text++, col++)
                                fputc(' ', f); /* keep a profile's own indentation */
                        continue;
                }
                if (*text == ' ') {
                        space = true;
                        text++;
                        continue;
                }
                int word = (int) strcspn(text, " \n");
                if (col > INDENT && col + space + word >= WRAP) {
                        fprintf(f, "\n%*s", INDENT, "");
                        col = INDENT;
                        space = false;
                }
                col += fprintf(f, "%s%.*s", space ? " " : "", word, text);
                text += word;
                space = false;
        }
        fputc('\n', f);
}

static void print_item(FILE *f, struct json_object *c)
{
        fprintf(f, "  %-5s %-20s %s\n", str(c, "status"), str(c, "name"), str(c, "summary"));
        print_field(f, "cause:", str(c, "cause"));
        print_field(f, "fix:", str(c, "fix"));
        print_field(f, "note:", str(c, "note"));
}

static void print_problems(FILE *f, struct json_object *a, const char *label)
{
        for (size_t i = 0; a && i < json_object_array_length(a); i++) {
                struct json_object *p = json_object_array_get_idx(a, i);
                print_field(f, label, str(p, "what"));
                print_field(f, "fix:", str(p, "fix"));
        }
}

static void print_text(FILE *f, struct json_object *report)
{
        struct json_object *checks = json_object_object_get(report, "checks");
        struct json_object *profiles = json_object_object_get(report, "profiles");

        fprintf(f, "stockade %s doctor\nthis machine:\n", str(report, "version"));
        for (size_t i = 0; i < json_object_array_length(checks); i++)
                print_item(f, json_object_array_get_idx(checks, i));
        fprintf(f, "shipped profiles:\n");
        for (size_t i = 0; i < json_object_array_length(profiles); i++) {
                struct json_object *p = json_object_array_get_idx(profiles, i), *log = json_object_object_get(p, "log");
                print_item(f, p);
                print_problems(f, json_object_object_get(p, "problems"), "problem:");
                print_problems(f, json_object_object_get(p, "warnings"), "warning:");
                for (size_t k = 0; log && k < json_object_array_length(log); k++)
                        print_field(f, "log:", json_object_get_string(json_object_array_get_idx(log, k)));
        }
        struct json_object *n = json_object_object_get(report, "counts");
        fprintf(f, "result: %s (%d ok, %d warn, %d fail)\n", str(report, "status"),
                json_object_get_int(json_object_object_get(n, "ok")), json_object_get_int(json_object_object_get(n, "warn")),
                json_object_get_int(json_object_object_get(n, "fail")));
}

/* ---- the report ------------------------------------------------------------ */

static enum doctor_status tally(struct json_object *a, unsigned counts[3])
{
        enum doctor_status worst = DOCTOR_OK;

        for (size_t i = 0; i < json_object_array_length(a); i++) {
                enum doctor_status s = doctor_status_of(json_object_array_get_idx(a, i));
                counts[s]++;
                if (s > worst)
                        worst = s;
        }
        return worst;
}

static struct json_object *build_report(const char *policy_file)
{
        struct json_object *report = json_object_new_object(), *checks = json_object_new_array(), *profiles;
        unsigned counts[3] = { 0 };
        struct json_object *n = json_object_new_object();

        doctor_check_system(checks);
        doctor_modules(checks, policy_file);
        profiles = doctor_profiles(checks, policy_file);

        enum doctor_status a = tally(checks, counts), b = tally(profiles, counts);
        json_object_object_add(report, "version", json_object_new_string(STK_VERSION));
        json_object_object_add(report, "status", json_object_new_string(doctor_status_name(a > b ? a : b)));
        for (int s = DOCTOR_OK; s <= DOCTOR_FAIL; s++)
                json_object_object_add(n, doctor_status_name((enum doctor_status) s), json_object_new_int((int) counts[s]));
        json_object_object_add(report, "counts", n);
        json_object_object_add(report, "checks", checks);
        json_object_object_add(report, "profiles", profiles);
        return report;
}

static int usage(FILE *f, int status)
{
        fprintf(f, "usage: stockade doctor [--json] [--policy FILE] [-v]\n"
                   "Reports what this machine offers a sandbox, what each module finds here, and whether each\n"
                   "shipped profile (and the policy FILE) can run here; for each problem, its cause and the\n"
                   "narrowest fix.  Exit status 0 when nothing failed.\n");
        return status;
}

int doctor_main(int argc, char **argv)
{
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "policy", required_argument, NULL, 'P' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        const char *policy_file = NULL;
        bool json = false;
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "jP:vh", options, NULL)) != -1) {
                if (c == 'j')
                        json = true;
                else if (c == 'P')
                        policy_file = optarg;
                else if (c == 'v')
                        core_log_level = core_log_level < STK_LOG_DEBUG ? core_log_level + 1 : STK_LOG_DEBUG;
                else
                        return c == 'h' ? usage(stdout, 0) : usage(stderr, STK_EXIT_USAGE);
        }
        if (optind < argc) {
                fprintf(stderr, "stockade doctor: unexpected argument \"%s\"\n", argv[optind]);
                return usage(stderr, STK_EXIT_USAGE);
        }
        struct json_object *report = build_report(policy_file);
        /* paths stay readable: "/usr/bin/bwrap", not "\/usr\/bin\/bwrap" (both are valid JSON) */
        int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
        if (json)
                printf("%s\n", json_object_to_json_string_ext(report, flags));
        else
                print_text(stdout, report);
        bool failed = doctor_status_of(report) == DOCTOR_FAIL;
        json_object_put(report);
        return failed ? 1 : 0;
}
