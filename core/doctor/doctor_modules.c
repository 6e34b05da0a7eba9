/* SPDX-License-Identifier: MIT */
/*
 * stockade doctor: what each module finds on this machine, through its own
 * doctor hook (ABI 1.5), so what a backend needs (bwrap's version, the
 * Landlock ABI, seccomp's actions) is known in one place, the module, and a
 * new backend is diagnosed without touching the core.  Every module of the
 * shipped profiles (and of --policy FILE) is asked once, on the context of
 * its first line there: that line's arguments, no init.
 */
#include <stdio.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "run/core.h"
#include "util/util.h"

static bool asked(char *const *seen, const char *module)
{
        return strv_contains((const char *const *) seen, module);
}

static void ask_module(struct core_run *run, struct stk_ctx *ctx, struct json_object *checks)
{
        size_t before = json_object_array_length(checks);
        struct json_object *o;
        int r;

        run->doctor_checks = checks;
        run->doctor_last = NULL;
        r = ctx->mod->desc->doctor(ctx, &core_host);
        run->doctor_checks = run->doctor_last = NULL;
        if (r < 0) {
                o = doctor_add(checks, ctx->mod->name, DOCTOR_FAIL, "module %s: its doctor hook failed: %s",
                               ctx->mod->name, strerror(-r));
                doctor_set(o, "module", "%s", ctx->mod->name);
        } else if (json_object_array_length(checks) == before) {
                o = doctor_add(checks, ctx->mod->name, DOCTOR_FAIL, "module %s: its doctor hook reported nothing",
                               ctx->mod->name);
                doctor_set(o, "module", "%s", ctx->mod->name);
        }
}

/* The modules of one policy not asked yet; their names go into *seen. */
static void ask_policy(struct core_policy *p, struct json_object *checks, char ***seen)
{
        struct core_run *run = NULL;

        if (core_run_new(p, core_running_from_build_tree(), &run) < 0)
                return; /* the profile's own report says why */
        for (size_t i = 0; i < p->n_lines; i++) {
                struct stk_ctx *ctx = &run->ctxs[i];
                if (!ctx->mod || asked(*seen, ctx->mod->name) || strv_push(seen, ctx->mod->name) < 0)
                        continue;
                if (MODULE_HAS(ctx->mod->desc, doctor))
                        ask_module(run, ctx, checks);
        }
        core_run_free(run);
}

static void ask_opts(const struct core_open_opts *opts, struct json_object *checks, char ***seen)
{
        struct core_policy *p = NULL;

        if (core_load_policy(opts, &p) >= 0)
                ask_policy(p, checks, seen);
        core_policy_free(p);
}

/* --policy FILE first: its lines, with their arguments, are what the user
 * asks about; then the shipped profiles' modules not asked yet. */
void doctor_modules(struct json_object *checks, const char *policy_file)
{
        _cleanup_strv_ char **seen = NULL, **names = doctor_profile_names();

        if (policy_file)
                ask_opts(&(struct core_open_opts) { .policy_file = policy_file, .broad_workspace = CORE_BROAD_SKIP }, checks, &seen);
        for (size_t i = 0; names && names[i]; i++)
                ask_opts(&(struct core_open_opts) { .profile = names[i], .broad_workspace = CORE_BROAD_SKIP }, checks, &seen);
}
