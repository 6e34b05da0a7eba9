/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the TOML reader of `stockade import codex`
 * (core/cli/toml.c): any bytes either parse into a tree or give an error
 * naming a line and a column; never a crash, a leak or a read past the
 * input.  Built and run by `make fuzz FUZZ_TARGETS=toml`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "../toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        /* A copy of exactly `size` bytes: ASan sees any read past the end. */
        char *text = malloc(size ? size : 1);
        struct json_object *tree = NULL;
        char err[256];

        if (!text)
                return 0;
        memcpy(text, data, size);
        if (toml_parse(text, size, "fuzz", &tree, err, sizeof(err)) == 0) {
                /* the tree must print (every node a real json-c value) */
                (void) json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN);
                json_object_put(tree);
        } else if (strncmp(err, "fuzz:", 5) != 0)
                abort(); /* an error always names where */
        free(text);
        return 0;
}
