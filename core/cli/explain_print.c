/* SPDX-License-Identifier: MIT */
/* The human-readable form of `stockade explain`, printed from the same JSON
 * document that --json prints, so the two can never disagree. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"

static const char *str(struct json_object *o, const char *key)
{
        const char *s = json_object_get_string(json_object_object_get(o, key));
        return s ? s : "";
}

static void print_list(FILE *f, const char *name, struct json_object *a)
{
        size_t n = json_object_array_length(a);

        fprintf(f, "  %-14s%s\n", name, n ? "" : "(none)");
        for (size_t i = 0; i < n; i++) {
                struct json_object *e = json_object_array_get_idx(a, i);
                fprintf(f, "    %-40s %s\n", str(e, "value"), str(e, "origin"));
        }
}

static void print_settings(FILE *f, struct json_object *s)
{
        fprintf(f, "settings:\n");
        json_object_object_foreach(s, key, val) {
                if (json_object_is_type(val, json_type_array)) {
                        if (strcmp(key, "read_only_effective") == 0) {
                                fprintf(f, "  read_only, with protected paths:\n");
                                for (size_t i = 0; i < json_object_array_length(val); i++)
                                        fprintf(f, "    %s\n", json_object_get_string(json_object_array_get_idx(val, i)));
                        } else
                                print_list(f, key, val);
                } else
                        fprintf(f, "  %-13s %-40s %s\n", key, str(val, "value"), str(val, "origin"));
        }
}

static void print_stack(FILE *f, struct json_object *a)
{
        fprintf(f, "stack:\n");
        if (json_object_array_length(a) == 0)
                fprintf(f, "  (empty)\n");
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                struct json_object *l = json_object_array_get_idx(a, i);
                fprintf(f, "  %-11s %-10s %-14s %s\n", str(l, "phase"), str(l, "control"), str(l, "module"), str(l, "origin"));
                fprintf(f, "    %s; covers: %s%s%s\n", json_object_get_boolean(json_object_object_get(l, "usable_here"))
                        ? "usable here" : "NOT usable here", *str(l, "covers") ? str(l, "covers") : "-",
                        *str(l, "why_not") ? "; why not: " : "", str(l, "why_not"));
                if (*str(l, "details"))
                        fprintf(f, "    details:\n%s%s", str(l, "details"),
                                str(l, "details")[strlen(str(l, "details")) - 1] == '\n' ? "" : "\n");
        }
}

static void print_coverage(FILE *f, struct json_object *a)
{
        fprintf(f, "enforcement:\n");
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                struct json_object *c = json_object_array_get_idx(a, i), *by = json_object_object_get(c, "enforced_by");
                fprintf(f, "  %-13s %-9s ", str(c, "property"),
                        json_object_get_boolean(json_object_object_get(c, "required")) ? "required" : "extra");
                if (json_object_array_length(by) == 0)
                        fprintf(f, "%s", json_object_get_boolean(json_object_object_get(c, "best_effort"))
                                ? "not enforced (best_effort)" : "NOT ENFORCED");
                for (size_t k = 0; k < json_object_array_length(by); k++)
                        fprintf(f, "%s%s", k ? ", " : "by ", json_object_get_string(json_object_array_get_idx(by, k)));
                fputc('\n', f);
        }
}

void core_explain_print(FILE *f, struct json_object *j)
{
        struct json_object *files = json_object_object_get(j, "files"), *perm;

        fprintf(f, "profile: %s\n", str(j, "profile"));
        if (strcmp(str(j, "sandbox"), "yes") != 0)
                fprintf(f, "WARNING: NO SANDBOX: %s\n", str(j, "sandbox"));
        fprintf(f, "files:\n");
        for (size_t i = 0; i < json_object_array_length(files); i++) {
                struct json_object *e = json_object_array_get_idx(files, i);
                fprintf(f, "  %-8s %s\n", str(e, "layer"), str(e, "file"));
        }
        print_stack(f, json_object_object_get(j, "stack"));
        print_settings(f, json_object_object_get(j, "settings"));
        print_coverage(f, json_object_object_get(j, "coverage"));
        if (*str(j, "not_enforced"))
                fprintf(f, "not enforced on this machine: %s\n", str(j, "not_enforced"));
        perm = json_object_object_get(j, "permission");
        if (perm) {
                struct json_object *lines = json_object_object_get(perm, "lines");
                fprintf(f, "permission:\n");
                for (size_t i = 0; i < json_object_array_length(lines); i++) {
                        struct json_object *l = json_object_array_get_idx(lines, i);
                        fprintf(f, "  %-14s %-10s %s\n", str(l, "module"), str(l, "control"), str(l, "result"));
                }
                fprintf(f, "  verdict: %s (decided by %s)\n", str(perm, "verdict"), str(perm, "decided_by"));
        }
}
