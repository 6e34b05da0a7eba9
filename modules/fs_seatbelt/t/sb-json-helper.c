/* SPDX-License-Identifier: MIT */
/*
 * sb-json-helper: read `stockade explain --json --details` output for the
 * shell tests (t/compare.sh, t/fs_seatbelt.sh), with json-c rather than
 * sed on JSON.
 *
 *   sb-json-helper FILE settings        "write PATH", "read_only PATH" (the
 *                                        effective list, protected paths
 *                                        included), "hide PATH": one a line
 *   sb-json-helper FILE details MODULE  the details text of MODULE's first
 *                                        stack line; exit 3 if it has none
 *                                        (the module has no explain hook)
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

static void print_values(struct json_object *s, const char *key, const char *role, int plain)
{
        struct json_object *a = json_object_object_get(s, key);

        for (size_t i = 0; a && i < json_object_array_length(a); i++) {
                struct json_object *e = json_object_array_get_idx(a, i);
                struct json_object *v = plain ? e : json_object_object_get(e, "value");
                printf("%s %s\n", role, json_object_get_string(v));
        }
}

static int details(struct json_object *j, const char *module)
{
        struct json_object *stack = json_object_object_get(j, "stack");

        for (size_t i = 0; stack && i < json_object_array_length(stack); i++) {
                struct json_object *l = json_object_array_get_idx(stack, i), *d;
                if (strcmp(json_object_get_string(json_object_object_get(l, "module")), module) != 0)
                        continue;
                d = json_object_object_get(l, "details");
                if (!d)
                        return 3;
                fputs(json_object_get_string(d), stdout);
                return 0;
        }
        fprintf(stderr, "no stack line for %s\n", module);
        return 2;
}

int main(int argc, char **argv)
{
        struct json_object *j, *s;
        int r = 0;

        if (argc < 3 || (strcmp(argv[2], "details") == 0 && argc < 4)) {
                fprintf(stderr, "usage: %s FILE settings | FILE details MODULE\n", argv[0]);
                return 2;
        }
        j = json_object_from_file(argv[1]);
        if (!j) {
                fprintf(stderr, "%s: %s\n", argv[1], json_util_get_last_err());
                return 2;
        }
        if (strcmp(argv[2], "settings") == 0) {
                s = json_object_object_get(j, "settings");
                print_values(s, "write", "write", 0);
                print_values(s, "read_only_effective", "read_only", 1);
                print_values(s, "hide", "hide", 0);
        } else if (strcmp(argv[2], "details") == 0) {
                r = details(j, argv[3]);
        } else {
                fprintf(stderr, "unknown request %s\n", argv[2]);
                r = 2;
        }
        json_object_put(j);
        return r;
}
