/* SPDX-License-Identifier: MIT */
/*
 * Policy loader, shared parts: the names of layers, phases, controls,
 * covers and keys; diagnostics; interned strings; lists; freeing.
 * The loader itself is split by concern:
 *   policy_yaml.c    libyaml events -> a small node tree with line:col
 *   policy_check.c   node helpers (kinds, known keys, duplicate keys, trust)
 *   policy_parse.c   top level, includes, overridable, settings
 *   policy_stack.c   stack lines and their args
 *   policy_load.c    layers, files, includes, core_policy_load()
 *   policy_expand.c  ${VARS}, ~, absolute and canonical paths, dedupe
 *   policy_trust.c   the trust rule for system and user layer files
 *   policy_workspace.c  a broad workspace ($HOME, /) refused unless allowed
 *   policy_enforced.c   a setting no stack line enforces is an error
 *   protect.c, protect_control.c  the protected paths, stockade's own files among them
 * The grammar and the layering rules are in man/stockade.yaml.5.
 */
#include <stdarg.h>
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

FILE *core_diag_stream;

static const char *const layer_names[CORE_LAYER_MAX] = {
        [CORE_LAYER_BUILTIN] = "builtin",
        [CORE_LAYER_SYSTEM] = "system",
        [CORE_LAYER_USER] = "user",
        [CORE_LAYER_PROJECT] = "project",
        [CORE_LAYER_CLI] = "cli",
};

static const char *const phase_names[STK_PHASE_MAX] = {
        [STK_PHASE_PERMISSION] = "permission",
        [STK_PHASE_PRE_EXEC] = "pre-exec",
        [STK_PHASE_IN_SANDBOX] = "in-sandbox",
        [STK_PHASE_EGRESS] = "egress",
};

static const char *const control_names[CORE_CONTROL_MAX] = {
        [CORE_REQUIRED] = "required",
        [CORE_REQUISITE] = "requisite",
        [CORE_SUFFICIENT] = "sufficient",
        [CORE_OPTIONAL] = "optional",
};

/* Indexed by bit number of enum stk_cover. */
static const char *const cover_names[] = {
        "write", "read_only", "hide", "private_tmp", "net_tcp", "net_other",
        "net_abstract", "net_unix", "process", "kernel", "caps", "ipc", "metadata", "proc",
};

static const char *const key_names[CORE_KEY_MAX] = {
        [CORE_KEY_WORKSPACE] = "workspace",
        [CORE_KEY_WRITE] = "write",
        [CORE_KEY_READ_ONLY] = "read_only",
        [CORE_KEY_HIDE] = "hide",
        [CORE_KEY_PRIVATE_TMP] = "private_tmp",
        [CORE_KEY_GIT] = "git",
        [CORE_KEY_PROTECT] = "protect",
        [CORE_KEY_PROTECT_DEFAULTS] = "protect_defaults",
        [CORE_KEY_NET_MODE] = "network.mode",
        [CORE_KEY_NET_ALLOW] = "network.allow",
        [CORE_KEY_NET_DENY] = "network.deny",
        [CORE_KEY_APPROVAL] = "approval",
        [CORE_KEY_BEST_EFFORT] = "best_effort",
        [CORE_KEY_AUDIT] = "audit",
        [CORE_KEY_STACK] = "stack",
        [CORE_KEY_ENV_DENY] = "env.deny",
        [CORE_KEY_ENV_ALLOW] = "env.allow",
        [CORE_KEY_NET_PROXY_PORT] = "network.proxy_port",
        [CORE_KEY_CACHES] = "caches",
        [CORE_KEY_APPROVAL_EXEC] = "approval.exec",
        [CORE_KEY_APPROVAL_WEBHOOK] = "approval.webhook",
};

static int name_index(const char *const *names, size_t n, const char *s)
{
        for (size_t i = 0; s && i < n; i++)
                if (names[i] && streq(names[i], s))
                        return (int) i;
        return -EINVAL;
}

const char *core_layer_name(enum core_layer l)
{
        return (unsigned) l < CORE_LAYER_MAX ? layer_names[l] : "?";
}

const char *core_phase_name(enum stk_phase p)
{
        return (unsigned) p < STK_PHASE_MAX ? phase_names[p] : "?";
}

const char *core_control_name(enum core_control c)
{
        return (unsigned) c < CORE_CONTROL_MAX ? control_names[c] : "?";
}

const char *core_key_name(enum core_key k)
{
        return (unsigned) k < CORE_KEY_MAX ? key_names[k] : "?";
}

int core_phase_from_string(const char *s, enum stk_phase *ret)
{
        int i = name_index(phase_names, ELEMENTSOF(phase_names), s);

        if (i < 0)
                return i;
        *ret = (enum stk_phase) i;
        return 0;
}

int core_control_from_string(const char *s, enum core_control *ret)
{
        int i = name_index(control_names, ELEMENTSOF(control_names), s);

        if (i < 0)
                return i;
        *ret = (enum core_control) i;
        return 0;
}

int core_key_from_string(const char *s, enum core_key *ret)
{
        int i = name_index(key_names, ELEMENTSOF(key_names), s);

        if (i < 0)
                return i;
        *ret = (enum core_key) i;
        return 0;
}

/* "?" unless exactly one known bit is set: callers print it directly. */
const char *core_cover_name(uint32_t single_bit)
{
        for (size_t i = 0; i < ELEMENTSOF(cover_names); i++)
                if (single_bit == (1u << i))
                        return cover_names[i];
        return "?";
}

int core_cover_from_string(const char *s, uint32_t *ret)
{
        int i = name_index(cover_names, ELEMENTSOF(cover_names), s);

        if (i < 0)
                return i;
        *ret = 1u << i;
        return 0;
}

const char *core_git_name(enum core_git_protect g)
{
        static const char *const names[] = { "off", "surfaces", "whole" };

        return (unsigned) g < ELEMENTSOF(names) ? names[g] : "?";
}

const char *core_network_name(enum stk_network n)
{
        static const char *const names[] = { "off", "proxy", "on" };

        return (unsigned) n < ELEMENTSOF(names) ? names[n] : "?";
}

const char *core_approval_name(enum stk_approval a)
{
        static const char *const names[] = { "on-request", "never" };

        return (unsigned) a < ELEMENTSOF(names) ? names[a] : "?";
}

const char *core_approval_tty_name(enum core_approval_tty t)
{
        static const char *const names[] = { "off", "auto", "on" };

        return (unsigned) t < ELEMENTSOF(names) ? names[t] : "?";
}

bool core_approval_tty_asks(const struct core_policy *p)
{
        return p->approval_tty == CORE_APPROVAL_TTY_ON || (p->approval_tty == CORE_APPROVAL_TTY_AUTO && !p->session);
}

static void diag_v(const struct core_origin *o, const char *fmt, va_list ap)
{
        FILE *out = core_diag_stream ? core_diag_stream : stderr;

        if (!o || !o->file)
                fputs("stockade: ", out);
        else if (o->line == 0)
                fprintf(out, "%s: ", o->file);
        else
                fprintf(out, "%s:%u:%u: ", o->file, o->line, o->column);
        fputs("error: ", out);
        vfprintf(out, fmt, ap);
        fputc('\n', out);
        (void) fflush(out); /* a memstream's buffer is only updated on flush */
}

void core_diag(const struct core_origin *o, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        diag_v(o, fmt, ap);
        va_end(ap);
}

struct core_origin porigin(const struct pfile *f, const struct pnode *n)
{
        return (struct core_origin) {
                .file = f->name,
                .line = n ? n->line : 0,
                .column = n ? n->column : 0,
                .layer = f->layer,
        };
}

/* A file of nothing but unknown keys must not flood the terminal. */
static bool report_more(struct ploader *l)
{
        if (l->n_errors++ < POLICY_MAX_REPORTED)
                return true;
        if (l->n_errors == POLICY_MAX_REPORTED + 1)
                core_diag(NULL, "more than %d errors, not reporting the rest; expected fewer mistakes",
                          POLICY_MAX_REPORTED);
        return false;
}

void perr(const struct pfile *f, const struct pnode *n, const char *fmt, ...)
{
        struct core_origin o = porigin(f, n);
        va_list ap;

        if (!report_more(f->l))
                return;
        va_start(ap, fmt);
        diag_v(&o, fmt, ap);
        va_end(ap);
}

void perr_origin(struct ploader *l, const struct core_origin *o, const char *fmt, ...)
{
        va_list ap;

        if (!report_more(l))
                return;
        va_start(ap, fmt);
        diag_v(o, fmt, ap);
        va_end(ap);
}

/* Origins point at file names owned by the policy, so they stay valid as
 * long as the policy does and are never freed one by one. */
const char *pintern(struct core_policy *p, const char *s)
{
        char **nv;

        for (size_t i = 0; i < p->n_strings; i++)
                if (streq(p->strings[i], s))
                        return p->strings[i];
        nv = realloc(p->strings, (p->n_strings + 1) * sizeof(char *));
        if (!nv)
                return NULL;
        p->strings = nv;
        nv[p->n_strings] = strdup(s);
        if (!nv[p->n_strings])
                return NULL;
        return nv[p->n_strings++];
}

bool plist_has(const struct core_list *l, const char *value)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].value, value))
                        return true;
        return false;
}

int plist_add(struct core_list *l, const char *value, const struct core_origin *o)
{
        struct core_item *ni;
        char *v = strdup(value);

        if (!v)
                return -ENOMEM;
        ni = realloc(l->items, (l->n + 1) * sizeof(*ni));
        if (!ni) {
                free(v);
                return -ENOMEM;
        }
        l->items = ni;
        ni[l->n++] = (struct core_item) { .value = v, .origin = *o };
        return 0;
}

void plist_done(struct core_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].value);
        free(l->items);
        *l = (struct core_list) { 0 };
}

void pline_done(struct core_line *line)
{
        for (size_t i = 0; i < line->n_args; i++) {
                free(line->args[i].name);
                free(line->args[i].scalar);
                strv_free(line->args[i].list);
        }
        free(line->args);
        free(line->module);
        *line = (struct core_line) { 0 };
}

struct core_policy *core_policy_free(struct core_policy *p)
{
        if (!p)
                return NULL;
        free(p->profile);
        free(p->workspace);
        free(p->audit);
        free(p->approval_exec);
        free(p->approval_webhook);
        plist_done(&p->write);
        plist_done(&p->read_only);
        plist_done(&p->hide);
        plist_done(&p->protect);
        plist_done(&p->net_allow);
        plist_done(&p->net_deny);
        plist_done(&p->env_deny);
        plist_done(&p->env_allow);
        plist_done(&p->best_effort_items);
        for (size_t i = 0; i < p->n_lines; i++)
                pline_done(&p->lines[i]);
        free(p->lines);
        for (size_t i = 0; i < p->n_files; i++)
                free(p->files[i].value);
        free(p->files);
        for (size_t i = 0; i < p->n_strings; i++)
                free(p->strings[i]);
        free(p->strings);
        free(p);
        return NULL;
}
