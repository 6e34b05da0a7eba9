/* SPDX-License-Identifier: MIT */
/*
 * `stack:` lines: phase, control, module, args.  Lines append in file
 * order across every file and layer.  Args stay untyped here (a name and a
 * scalar or a list of scalars); run.c types them against the module's
 * stk_arg_spec, with the origin kept for its diagnostics and for the
 * STK_ARG_TRUSTED check on the layer.
 */
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

enum { LINE_PHASE, LINE_CONTROL, LINE_MODULE, LINE_ARGS, LINE_MAX };

/* Module names become file names under the module directories, so nothing
 * but a bare identifier may get near a path (docs/ARCHITECTURE.md, The run path; stockade-module(3) LOADING). */
static bool module_name_ok(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > POLICY_MODULE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                        return false;
        return true;
}

static void parse_phase(const struct pfile *f, const struct pnode *line, const struct pnode *v,
                        enum stk_phase *ret)
{
        const char *s;

        if (!v) {
                perr(f, line, "stack line without \"phase\"; expected phase: permission, pre-exec, in-sandbox "
                     "or egress");
                return;
        }
        s = pwant_scalar(f, v, "phase");
        if (s && core_phase_from_string(s, ret) < 0)
                perr(f, v, "bad phase \"%s\"; expected one of permission, pre-exec, in-sandbox, egress", s);
}

static void parse_control(const struct pfile *f, const struct pnode *line, const struct pnode *v,
                          enum core_control *ret)
{
        const char *s;

        if (!v) {
                perr(f, line, "stack line without \"control\"; expected control: required, requisite, "
                     "sufficient or optional");
                return;
        }
        s = pwant_scalar(f, v, "control");
        if (s && core_control_from_string(s, ret) < 0)
                perr(f, v, "bad control \"%s\"; expected one of required, requisite, sufficient, optional", s);
}

static int parse_module(const struct pfile *f, const struct pnode *line, const struct pnode *v, char **ret)
{
        const char *s;

        if (!v) {
                perr(f, line, "stack line without \"module\"; expected module: NAME");
                return 0;
        }
        s = pwant_scalar(f, v, "module");
        if (!s)
                return 0;
        if (!module_name_ok(s)) {
                perr(f, v, "bad module name \"%s\"; expected a bare identifier of a-z, 0-9 and _, "
                     "at most %d characters", s, POLICY_MODULE_NAME_MAX);
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int arg_list(const struct pfile *f, const char *name, const struct pnode *seq, char ***ret)
{
        _cleanup_strv_ char **list = calloc(1, sizeof(char *));

        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < seq->n_kids; i++) {
                const struct pnode *it = seq->kids[i];

                if (i >= POLICY_MAX_ITEMS) {
                        perr(f, it, "more than %d items in argument \"%s\"; expected fewer", POLICY_MAX_ITEMS, name);
                        break;
                }
                if (it->kind != PNODE_SCALAR) {
                        if (it->kind != PNODE_BAD)
                                perr(f, it, "item of argument \"%s\" is %s; expected a scalar", name,
                                     pnode_kind_name(it));
                        continue;
                }
                if (strv_push(&list, it->scalar) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(list);
        return 0;
}

/* Fills *a (zeroed by the caller; freed by pline_done on any outcome). */
static int parse_arg(const struct pfile *f, const struct pnode *k, const struct pnode *v, struct core_arg *a)
{
        a->origin = porigin(f, k);
        a->name = strdup(k->scalar);
        if (!a->name)
                return -ENOMEM;
        switch (v->kind) {
        case PNODE_SCALAR:
                a->scalar = strdup(v->scalar);
                return a->scalar ? 0 : -ENOMEM;
        case PNODE_SEQ:
                a->is_list = 1;
                return arg_list(f, a->name, v, &a->list);
        case PNODE_MAP:
                perr(f, v, "argument \"%s\" is a mapping; expected a scalar or a sequence of scalars", a->name);
                return 0;
        default:
                return 0;
        }
}

static const struct core_arg *find_arg(const struct core_line *line, const char *name)
{
        for (size_t i = 0; i < line->n_args; i++)
                if (streq(line->args[i].name, name))
                        return &line->args[i];
        return NULL;
}

static int parse_args(const struct pfile *f, const struct pnode *map, struct core_line *line)
{
        if (!pwant_map(f, map, "args"))
                return 0;
        for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
                const struct pnode *k = map->kids[i];
                const struct core_arg *dup;
                struct core_arg *na;

                if (k->kind != PNODE_SCALAR)
                        continue;
                if (line->n_args >= POLICY_MAX_ARGS) {
                        perr(f, k, "more than %d arguments; expected fewer", POLICY_MAX_ARGS);
                        return 0;
                }
                dup = find_arg(line, k->scalar);
                if (dup) {
                        perr(f, k, "duplicate key \"%s\" (first at %u:%u); expected each key once per mapping",
                             k->scalar, dup->origin.line, dup->origin.column);
                        continue;
                }
                na = realloc(line->args, (line->n_args + 1) * sizeof(*na));
                if (!na)
                        return -ENOMEM;
                line->args = na;
                na[line->n_args] = (struct core_arg) { 0 };
                int r = parse_arg(f, k, map->kids[i + 1], &na[line->n_args++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A sufficient line ends its phase on success, skipping the lines below
 * it; an optional one decides when it is alone in its phase.  Both can
 * let through what the floor would stop, so lower-trust layers may add
 * them only when granted "stack", and a project never. */
static void check_trust(const struct pfile *f, const struct pnode *ctl, enum core_control c)
{
        if (c != CORE_SUFFICIENT && c != CORE_OPTIONAL)
                return;
        if (f->layer == CORE_LAYER_PROJECT)
                perr(f, ctl, "a project stack line must be required or requisite, not \"%s\"; expected "
                     "control: required or requisite (a project may only add checks)", core_control_name(c));
        else if (!pmay_loosen(f, CORE_KEY_STACK))
                pdeny_loosen(f, ctl, CORE_KEY_STACK,
                             c == CORE_SUFFICIENT ? "a \"sufficient\" line can end a phase before the lines below it"
                                                  : "an \"optional\" line can decide a phase on its own");
}

static int push_line(struct core_policy *p, struct core_line *line)
{
        struct core_line *nl = realloc(p->lines, (p->n_lines + 1) * sizeof(*nl));

        if (!nl) {
                pline_done(line);
                return -ENOMEM;
        }
        p->lines = nl;
        nl[p->n_lines++] = *line;
        *line = (struct core_line) { 0 };
        return 0;
}

static int apply_line(struct pfile *f, const struct pnode *n)
{
        static const char *const names[] = { "phase", "control", "module", "args", NULL };
        const struct pnode *k[LINE_MAX] = { 0 }, *v[LINE_MAX] = { 0 };
        struct core_line line = { .origin = porigin(f, n) };
        unsigned errors = f->l->n_errors;
        int r;

        if (!pwant_map(f, n, "stack line"))
                return 0;
        pmap_fields(f, n, "stack line", names, k, v);
        parse_phase(f, n, v[LINE_PHASE], &line.phase);
        parse_control(f, n, v[LINE_CONTROL], &line.control);
        r = parse_module(f, n, v[LINE_MODULE], &line.module);
        if (r >= 0 && v[LINE_ARGS])
                r = parse_args(f, v[LINE_ARGS], &line);
        if (r >= 0 && errors == f->l->n_errors)
                check_trust(f, v[LINE_CONTROL], line.control);
        if (r < 0 || errors != f->l->n_errors) {
                pline_done(&line); /* a bad line fails the load; it is never kept or skipped */
                return r;
        }
        return push_line(f->l->p, &line);
}

int papply_stack(struct pfile *f, const struct pnode *key, const struct pnode *seq)
{
        if (!pwant_seq(f, seq, "stack"))
                return 0;
        for (size_t i = 0; i < seq->n_kids; i++) {
                int r;

                if (f->l->p->n_lines >= POLICY_MAX_LINES) {
                        perr(f, seq->kids[i], "more than %d stack lines; expected fewer", POLICY_MAX_LINES);
                        return 0;
                }
                r = apply_line(f, seq->kids[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}
