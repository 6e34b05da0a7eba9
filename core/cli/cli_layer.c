/* SPDX-License-Identifier: MIT */
/* The CLI layer: settings the command line adds (the run flags, the shell
 * entry's bookkeeping directories), written as one policy document that the
 * loader reads after the project layer under the user layer's
 * `overridable` rules (core_policy_sources.cli_text).  A document rather
 * than a second way into the policy: every value goes through the same
 * validation and merging as a file's, and its errors name the value. */
#include <json-c/json.h>

#include "cli_layer.h"
#include "common/stk_strv.h"
#include "util/util.h"

static struct json_object *strv_json(char *const *v)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; a && v && v[i]; i++)
                json_object_array_add(a, json_object_new_string(v[i]));
        return a;
}

bool cli_layer_empty(const struct cli_layer *c)
{
        return !c->write && !c->allow_domain && !c->allow_env && !c->network && !c->read_only;
}

/* JSON is YAML's flow style, so json-c writes the document and quotes
 * every value (a path with `: ` or `#` in it stays one scalar). */
int cli_layer_text(const struct cli_layer *c, char **ret)
{
        struct json_object *doc = json_object_new_object(), *settings = json_object_new_object(), *net = NULL;
        int r = 0;

        *ret = NULL;
        if (!doc || !settings) {
                json_object_put(doc);
                json_object_put(settings);
                return -ENOMEM;
        }
        json_object_object_add(doc, "stockade", json_object_new_int(1));
        if (c->write)
                json_object_object_add(settings, "write", strv_json(c->write));
        if (c->network || c->allow_domain) {
                net = json_object_new_object();
                if (c->network)
                        json_object_object_add(net, "mode", json_object_new_string(c->network));
                if (c->allow_domain)
                        json_object_object_add(net, "allow", strv_json(c->allow_domain));
                json_object_object_add(settings, "network", net);
        }
        /* The workspace is known once every layer is in: the one name of
         * the CLI layer that is expanded (policy_expand.c, cli_value). */
        if (c->read_only) {
                char *ws[] = { (char *) "${WORKSPACE}", NULL };
                json_object_object_add(settings, "read_only", strv_json(ws));
        }
        if (c->allow_env) {
                struct json_object *env = json_object_new_object();
                json_object_object_add(env, "allow", strv_json(c->allow_env));
                json_object_object_add(settings, "env", env);
        }
        json_object_object_add(doc, "settings", settings);
        const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!s || !(*ret = strdup(s)))
                r = -ENOMEM;
        json_object_put(doc);
        return r;
}
