/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: a permission-phase module that answers ALLOW, DENY, ASK or
 * IGNORE for the command about to run, from deny/ask/allow patterns and a
 * default (stockade-perm_rules(8)).  A shell string is parsed into its
 * simple commands and each one is judged; what cannot be seen through is
 * ASK.  It never asks itself: an ASK goes to the core, which asks the
 * approval modules (or denies under `approval: never`).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "common/stk_util.h"
#include "pr_internal.h"

static const struct stk_host *host;

static const struct stk_arg_spec pr_args[] = {
        { "deny", STK_ARG_LIST, 0, "patterns refused (\"rm -rf *\", \"git push *\")" },
        { "ask", STK_ARG_LIST, 0, "patterns that need an approval (\"curl *\")" },
        { "allow", STK_ARG_LIST, 0, "patterns allowed (\"git *\", \"ls *\")" },
        { "default", STK_ARG_STRING, 0, "for a command no pattern matches: ask (the default), allow, deny, ignore" },
        { "trusted_sources", STK_ARG_LIST, 0, "absolute or ~/ globs of files `source` may read unjudged "
                                              "(a client's shell snapshot)" },
        { "interpreters", STK_ARG_STRING, 0, "allow (the default) or ask: inline code (python3 -c, node -e, "
                                             "awk, sed e, ...) needs an approval" },
        { NULL, 0, 0, NULL },
};

/* Rules compiled by probe, one set per stack line (two lines may differ). */
#define PR_MAX_LINES 16
struct pr_data {
        struct {
                const struct stk_ctx *ctx;
                struct pr_rules rules;
        } lines[PR_MAX_LINES];
        size_t n;
};

/* This line's arguments as rules; a bad pattern is logged with its text. */
static int compile(struct stk_ctx *ctx, struct pr_rules *ret)
{
        char *err = NULL;
        int r = pr_rules_compile(host->arg_list(ctx, "deny"), host->arg_list(ctx, "ask"), host->arg_list(ctx, "allow"),
                                 host->arg_string(ctx, "default"), ret, &err);

        if (r >= 0)
                r = pr_rules_options(ret, host->arg_list(ctx, "trusted_sources"), getenv("HOME"),
                                     host->arg_string(ctx, "interpreters"), &err);
        if (r == -EINVAL)
                host->log(ctx, STK_LOG_ERROR, "%s (see stockade-perm_rules(8))", err ? err : "invalid rules");
        free(err);
        return r;
}

static const struct pr_rules *stored_rules(struct stk_ctx *ctx)
{
        struct pr_data *d = host->data(ctx);

        for (size_t i = 0; d && i < d->n; i++)
                if (d->lines[i].ctx == ctx)
                        return &d->lines[i].rules;
        return NULL;
}

/* init runs once, with the first perm_rules line: its rules are checked
 * here so a bad pattern stops the run as a policy error.  Every line's are
 * checked again by probe. */
static int pr_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct pr_rules rules;
        struct pr_data *d;
        int r;

        host = h;
        r = compile(ctx, &rules);
        if (r < 0)
                return r;
        pr_rules_done(&rules);
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void pr_fini(void *data)
{
        struct pr_data *d = data;

        for (size_t i = 0; d && i < d->n; i++)
                pr_rules_done(&d->lines[i].rules);
        free(d);
}

static int pr_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct pr_data *d = host->data(ctx);
        struct pr_rules rules;
        int r = compile(ctx, &rules);

        if (r < 0)
                return r;
        if (d && d->n < PR_MAX_LINES && !stored_rules(ctx)) {
                d->lines[d->n].ctx = ctx;
                d->lines[d->n++].rules = rules;
        } else {
                pr_rules_done(&rules);  /* permission compiles it again */
        }
        *ret_covers = 0;
        return 0;
}

static char *argv_text(const char *const *argv)
{
        struct stk_buf b = { 0 };

        for (size_t i = 0; argv && argv[i] && b.len < 300; i++) {
                if (i)
                        stk_buf_addc(&b, ' ');
                stk_buf_add(&b, argv[i], strlen(argv[i]));
        }
        if (b.len > 300) {
                stk_buf_truncate(&b, 300);
                stk_buf_add(&b, "...", 3);
        }
        return stk_buf_take(&b);
}

/* The trail: the verdict, then each simple command with the rule that
 * decided it (INFO for those that gave the final verdict, DEBUG others). */
static void log_result(struct stk_ctx *ctx, const struct stk_request *req, const struct pr_result *res)
{
        char *cmd = argv_text(req->argv);

        host->log(ctx, STK_LOG_INFO, "%s: %s (%zu simple command%s)", pr_verdict_name(res->verdict),
                  cmd ? cmd : "?", res->n_simple, res->n_simple == 1 ? "" : "s");
        for (size_t i = 0; i < res->n; i++)
                host->log(ctx, res->entries[i].verdict == res->verdict ? STK_LOG_INFO : STK_LOG_DEBUG,
                          "  %s: %s <- %s", pr_verdict_name(res->entries[i].verdict), res->entries[i].command,
                          res->entries[i].why);
        if (res->dropped)
                host->log(ctx, STK_LOG_INFO, "  ... and %zu more", res->dropped);
        free(cmd);
}

static int audit_result(struct stk_ctx *ctx, const struct pr_result *res)
{
        struct json_object *o = json_object_new_object(), *a = json_object_new_array();
        int r = -ENOMEM;

        if (!o || !a) {
                json_object_put(o);
                json_object_put(a);
                return -ENOMEM;
        }
        json_object_object_add(o, "verdict", json_object_new_string(pr_verdict_name(res->verdict)));
        for (size_t i = 0; i < res->n; i++) {
                struct json_object *e = json_object_new_object();
                if (!e)
                        goto out;
                json_object_object_add(e, "command", json_object_new_string(res->entries[i].command));
                json_object_object_add(e, "verdict", json_object_new_string(pr_verdict_name(res->entries[i].verdict)));
                json_object_object_add(e, "rule", json_object_new_string(res->entries[i].why));
                json_object_array_add(a, e);
        }
        json_object_object_add(o, "commands", a);
        a = NULL;
        if (res->dropped)
                json_object_object_add(o, "more_commands", json_object_new_int64((int64_t) res->dropped));
        r = host->audit(ctx, "perm_rules", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
out:
        json_object_put(a);
        json_object_put(o);
        return r;
}

/* The run's protected paths (SDK 1.5), or NULL from an older core. */
static const char *const *protected_paths(struct stk_ctx *ctx)
{
        return STK_HAS(host, stk_host, protected_paths) && host->protected_paths ? host->protected_paths(ctx) : NULL;
}

static int pr_permission(struct stk_ctx *ctx, const struct stk_request *req, enum stk_verdict *ret_verdict)
{
        _cleanup_free_ char *cwd = req->cwd ? realpath(req->cwd, NULL) : NULL;
        const struct pr_rules *rules = host ? stored_rules(ctx) : NULL;
        struct pr_rules own = { 0 };
        struct pr_result res;
        int r;

        if (!host)
                return -EINVAL;
        if (!rules) {   /* probe failed or no room: a bad pattern fails here too */
                r = compile(ctx, &own);
                if (r < 0)
                        return r;
                rules = &own;
        }
        r = pr_decide_in(rules, req->argv, cwd ? cwd : req->cwd, protected_paths(ctx), &res);
        if (r >= 0) {
                log_result(ctx, req, &res);
                /* A failing audit log already said so; the decision stands. */
                (void) audit_result(ctx, &res);
                *ret_verdict = res.verdict;
        }
        pr_result_done(&res);
        pr_rules_done(&own);
        return r;
}

static void print_patterns(FILE *f, const struct pr_rules *r, enum pr_kind k)
{
        fprintf(f, "  %-6s", pr_kind_name(k));
        if (r->n[k] == 0)
                fprintf(f, " (none)");
        for (size_t i = 0; i < r->n[k]; i++)
                fprintf(f, "%s\"%s\"", i ? ", " : " ", r->pats[k][i].text);
        fputc('\n', f);
}

/* `stockade explain --details`: the rules in effect and how they apply. */
static int pr_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct pr_rules r;
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        int q = host ? compile(ctx, &r) : -EINVAL;

        if (q < 0)
                return q;
        f = open_memstream(&text, &len);
        if (!f) {
                pr_rules_done(&r);
                return -ENOMEM;
        }
        fprintf(f, "command rules: deny beats ask beats allow beats the default; each simple command of a "
                   "shell string is judged, the worst verdict wins (deny > ask > ignore > allow)\n");
        print_patterns(f, &r, PR_DENY);
        print_patterns(f, &r, PR_ASK);
        print_patterns(f, &r, PR_ALLOW);
        fprintf(f, "  default %s\n", pr_verdict_name(r.dflt));
        fprintf(f, "  seen through: -c strings of");
        for (const char *const *n = pr_parsed_shells; *n; n++)
                fprintf(f, " %s", *n);
        fprintf(f, "; wrappers");
        for (size_t i = 0; pr_wrapper_name(i); i++)
                fprintf(f, " %s", pr_wrapper_name(i));
        fprintf(f, "; find -exec; eval of literal words; tool forms of git, npm, pnpm, yarn, bun, cargo, docker, "
                   "podman, nerdctl, kubectl\n");
        fprintf(f, "  ASK: eval or source of an expansion, trap, alias, here-documents or pipes into a shell or an "
                   "interpreter, $VAR or $(...) as the program, arithmetic on variables, configuration that runs "
                   "code, programs known to run their arguments, files written then run, parse errors%s\n",
                r.interpreters_ask ? ", inline interpreter code" : "");
        fprintf(f, "  DENY: writes into the run's protected paths\n");
        for (size_t i = 0; i < r.n_trusted; i++)
                fprintf(f, "  trusted source: %s\n", r.trusted[i]);
        pr_rules_done(&r);
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret_text = text;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("perm_rules"),
        .summary = "command rules: deny/ask/allow patterns over every simple command of a shell string",
        .args = pr_args,
        .init = pr_init,
        .fini = pr_fini,
        .probe = pr_probe,
        .permission = pr_permission,
        .explain = pr_explain,
};
