/* SPDX-License-Identifier: MIT */
/*
 * One file's node tree -> the policy being merged: the top level,
 * `include:`, `overridable:` and `settings:` (stack lines are in
 * policy_stack.c).  Values are stored raw; ${VARS} and paths are resolved
 * once every layer is in (policy_expand.c), so ${WORKSPACE} sees the final
 * workspace.
 *
 * Trust is checked here, value by value, against what the lower layers
 * merged so far: a USER or PROJECT file that loosens a setting it was not
 * granted in `overridable:` is an error at that value (stockade.yaml(5)
 * "LAYERS").
 */
#include <ctype.h>
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

static const char *const bool_true[] = { "true", "yes", NULL };
static const char *const bool_false[] = { "false", "no", NULL };
static const char *const git_names[] = { "off", "surfaces", "whole", NULL };          /* enum core_git_protect */
static const char *const mode_names[] = { "off", "proxy", "on", NULL };               /* enum stk_network */
static const char *const approval_names[] = { "on-request", "never", NULL };          /* enum stk_approval */
static const char *const caches_names[] = { "off", "per-workspace", "shared", NULL }; /* enum core_caches */
static const char *const approval_tty_names[] = { "off", "auto", "on", NULL };        /* enum core_approval_tty */
static const char *const approval_mcp_names[] = { "off", "on", NULL };

static int index_of(const char *const *names, const char *s)
{
        for (int i = 0; names[i]; i++)
                if (streq(names[i], s))
                        return i;
        return -1;
}

/* -1 after reporting. */
static int want_bool(const struct pfile *f, const struct pnode *n, const char *what)
{
        const char *s = pwant_scalar(f, n, what);

        if (!s)
                return -1;
        if (index_of(bool_true, s) >= 0)
                return 1;
        if (index_of(bool_false, s) >= 0)
                return 0;
        perr(f, n, "bad %s value \"%s\"; expected true, false, yes or no", what, s);
        return -1;
}

/* The index in names[], or -1 after reporting. */
static int want_enum(const struct pfile *f, const struct pnode *n, const char *what,
                     const char *const *names, const char *expected)
{
        const char *s = pwant_scalar(f, n, what);
        int i;

        if (!s)
                return -1;
        i = index_of(names, s);
        if (i < 0)
                perr(f, n, "bad %s value \"%s\"; expected %s", what, s, expected);
        return i;
}

static int set_string(char **dst, struct core_origin *dst_origin, const char *s, struct core_origin o)
{
        char *c = strdup(s);

        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        *dst_origin = o;
        return 0;
}

/* ---- scalar settings ----------------------------------------------------- */

static int set_workspace(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        const char *s = pwant_scalar(f, v, "workspace");

        if (!s)
                return 0;
        if (!*s) {
                perr(f, v, "empty workspace; expected a directory such as ${CWD}");
                return 0;
        }
        if ((!p->workspace || !streq(p->workspace, s)) && !pmay_loosen(f, CORE_KEY_WORKSPACE)) {
                pdeny_loosen(f, v, CORE_KEY_WORKSPACE, "\"workspace\" changes the workspace");
                return 0;
        }
        return set_string(&p->workspace, &p->workspace_origin, s, porigin(f, v));
}

static int set_audit(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        const char *s = pwant_scalar(f, v, "audit");

        if (!s)
                return 0;
        if (!*s) {
                perr(f, v, "empty audit path; expected a file such as ~/.local/state/stockade/audit.jsonl");
                return 0;
        }
        /* Only a project file is refused: the supervisor appends to the
         * audit file with the user's rights, and a repository must not pick
         * which of the user's files that is. */
        if (f->layer == CORE_LAYER_PROJECT && (!p->audit || !streq(p->audit, s)) &&
            !pmay_loosen(f, CORE_KEY_AUDIT)) {
                pdeny_loosen(f, v, CORE_KEY_AUDIT, "\"audit\" chooses a file the supervisor writes");
                return 0;
        }
        return set_string(&p->audit, &p->audit_origin, s, porigin(f, v));
}

static int set_private_tmp(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int b = want_bool(f, v, "private_tmp");

        if (b < 0)
                return 0;
        if (p->private_tmp && !b && !pmay_loosen(f, CORE_KEY_PRIVATE_TMP)) {
                pdeny_loosen(f, v, CORE_KEY_PRIVATE_TMP, "\"private_tmp: false\" makes the host /tmp writable");
                return 0;
        }
        p->private_tmp = b;
        p->private_tmp_origin = porigin(f, v);
        return 0;
}

static int set_protect_defaults(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int b = want_bool(f, v, "protect_defaults");

        if (b < 0)
                return 0;
        if (p->protect_defaults && !b && !pmay_loosen(f, CORE_KEY_PROTECT_DEFAULTS)) {
                pdeny_loosen(f, v, CORE_KEY_PROTECT_DEFAULTS,
                             "\"protect_defaults: false\" unprotects hooks, rc files and editor configs");
                return 0;
        }
        p->protect_defaults = b;
        p->protect_defaults_origin = porigin(f, v);
        return 0;
}

static int set_git(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int g = want_enum(f, v, "git", git_names, "one of whole, surfaces, off");

        if (g < 0)
                return 0;
        if ((enum core_git_protect) g < p->git && !pmay_loosen(f, CORE_KEY_GIT)) {
                pdeny_loosen(f, v, CORE_KEY_GIT, "\"git\" lowers the protection of .git");
                return 0;
        }
        p->git = (enum core_git_protect) g;
        p->git_origin = porigin(f, v);
        return 0;
}

/* A set shared between workspaces, or any set where there was none, is
 * more than the lower layers gave. */
static int set_caches(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int c = want_enum(f, v, "caches", caches_names, "one of per-workspace, shared, off");

        if (c < 0)
                return 0;
        if ((enum core_caches) c > p->caches && !pmay_loosen(f, CORE_KEY_CACHES)) {
                pdeny_loosen(f, v, CORE_KEY_CACHES, "\"caches\" gives the command more writable cache directories");
                return 0;
        }
        p->caches = (enum core_caches) c;
        p->caches_origin = porigin(f, v);
        return 0;
}

static int set_approval_mode(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int a = want_enum(f, v, "approval", approval_names, "on-request or never");

        if (a < 0)
                return 0;
        if (p->approval == STK_APPROVAL_NEVER && a == STK_APPROVAL_ON_REQUEST &&
            !pmay_loosen(f, CORE_KEY_APPROVAL)) {
                pdeny_loosen(f, v, CORE_KEY_APPROVAL, "\"approval: on-request\" lets a prompt allow what never denies");
                return 0;
        }
        p->approval = (enum stk_approval) a;
        p->approval_origin = porigin(f, v);
        return 0;
}

static int set_approval_tty(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int t = want_enum(f, v, "approval.tty", approval_tty_names, "one of off, auto, on");

        if (t < 0)
                return 0;
        if ((enum core_approval_tty) t > p->approval_tty && !pmay_loosen(f, CORE_KEY_APPROVAL)) {
                pdeny_loosen(f, v, CORE_KEY_APPROVAL, "\"approval.tty\" asks on the terminal where it did not");
                return 0;
        }
        p->approval_tty = (enum core_approval_tty) t;
        p->approval_tty_origin = porigin(f, v);
        return 0;
}

/* approval.mcp off is how a system layer forbids approval_mcp: turning it
 * back on loosens, under the grant `approval`. */
static int set_approval_mcp(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int t = want_enum(f, v, "approval.mcp", approval_mcp_names, "one of off, on");

        if (t < 0)
                return 0;
        if (t > p->approval_mcp && !pmay_loosen(f, CORE_KEY_APPROVAL)) {
                pdeny_loosen(f, v, CORE_KEY_APPROVAL, "\"approval.mcp\" asks the MCP client where it did not");
                return 0;
        }
        p->approval_mcp = t;
        p->approval_mcp_origin = porigin(f, v);
        return 0;
}

static int set_approval_ask_limit(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        const char *s = pwant_scalar(f, v, "approval.ask_limit");
        char *end;
        long n;

        if (!s)
                return 0;
        errno = 0;
        n = strtol(s, &end, 10);
        if (errno || end == s || *end || n < 1 || n > CORE_APPROVAL_ASK_LIMIT_MAX) {
                perr(f, v, "bad approval.ask_limit \"%s\"; expected a number of questions, 1..%d", s,
                     CORE_APPROVAL_ASK_LIMIT_MAX);
                return 0;
        }
        if (n > p->approval_ask_limit && !pmay_loosen(f, CORE_KEY_APPROVAL)) {
                pdeny_loosen(f, v, CORE_KEY_APPROVAL, "\"approval.ask_limit\" asks more often than allowed");
                return 0;
        }
        p->approval_ask_limit = (int) n;
        p->approval_ask_limit_origin = porigin(f, v);
        return 0;
}

/* approval.exec and approval.webhook pick who answers outside the sandbox
 * (a program the supervisor runs, an endpoint it trusts): never a
 * project file, and a user file only with the grant; any change counts. */
static int set_approver(struct pfile *f, const struct pnode *v, enum core_key key, char **dst,
                        struct core_origin *dst_origin)
{
        const char *what = core_key_name(key), *s = pwant_scalar(f, v, what);

        if (!s)
                return 0;
        if (!*s) {
                perr(f, v, "empty %s; expected %s", what,
                     key == CORE_KEY_APPROVAL_EXEC ? "an absolute program path" : "an https:// URL");
                return 0;
        }
        if (*dst && streq(*dst, s))
                return 0;
        if (f->layer == CORE_LAYER_PROJECT) {
                perr(f, v, "\"%s\" in the project layer; expected it only in builtin, system or user files "
                     "(a repository must not pick who approves)", what);
                return 0;
        }
        if (!pmay_loosen(f, key)) {
                pdeny_loosen(f, v, key, key == CORE_KEY_APPROVAL_EXEC ? "\"approval.exec\" picks a program that approves"
                                                                      : "\"approval.webhook\" picks an endpoint that approves");
                return 0;
        }
        return set_string(dst, dst_origin, s, porigin(f, v));
}

/* `approval: never` (the mode alone) or a mapping of the approval.* keys. */
static int set_approval(struct pfile *f, const struct pnode *v)
{
        static const char *const names[] = { "mode", "exec", "webhook", "tty", "ask_limit", "mcp", NULL };
        const struct pnode *k[6] = { 0 }, *vals[6] = { 0 };
        struct core_policy *p = f->l->p;
        int r = 0;

        if (v->kind != PNODE_MAP)
                return set_approval_mode(f, v);
        pmap_fields(f, v, "approval", names, k, vals);
        if (vals[0])
                r = set_approval_mode(f, vals[0]);
        if (r >= 0 && vals[1])
                r = set_approver(f, vals[1], CORE_KEY_APPROVAL_EXEC, &p->approval_exec, &p->approval_exec_origin);
        if (r >= 0 && vals[2])
                r = set_approver(f, vals[2], CORE_KEY_APPROVAL_WEBHOOK, &p->approval_webhook,
                                 &p->approval_webhook_origin);
        if (r >= 0 && vals[3])
                r = set_approval_tty(f, vals[3]);
        if (r >= 0 && vals[4])
                r = set_approval_ask_limit(f, vals[4]);
        if (r >= 0 && vals[5])
                r = set_approval_mcp(f, vals[5]);
        return r;
}

static int set_mode(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int m = want_enum(f, v, "network.mode", mode_names, "one of off, proxy, on");

        if (m < 0)
                return 0;
        if ((enum stk_network) m > p->network && !pmay_loosen(f, CORE_KEY_NET_MODE)) {
                pdeny_loosen(f, v, CORE_KEY_NET_MODE, "\"network.mode\" raises the network mode");
                return 0;
        }
        p->network = (enum stk_network) m;
        p->network_origin = porigin(f, v);
        return 0;
}

/* The proxy's loopback port, where net_proxy is not the one that listens
 * (an egress proxy the site runs): where the command's TCP may go, so
 * only a layer that may loosen sets or changes it. */
static int set_proxy_port(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        const char *s = pwant_scalar(f, v, "network.proxy_port");
        char *end;
        long port;

        if (!s)
                return 0;
        errno = 0;
        port = strtol(s, &end, 10);
        if (errno || end == s || *end || port < 1 || port > 65535) {
                perr(f, v, "bad network.proxy_port \"%s\"; expected a TCP port 1..65535", s);
                return 0;
        }
        if (port != p->proxy_port && !pmay_loosen(f, CORE_KEY_NET_PROXY_PORT)) {
                pdeny_loosen(f, v, CORE_KEY_NET_PROXY_PORT, "\"network.proxy_port\" picks where the command's TCP goes");
                return 0;
        }
        p->proxy_port = (int) port;
        p->proxy_port_origin = porigin(f, v);
        return 0;
}

/* ---- list settings: append, drop duplicates ------------------------------ */

struct list_rule {
        const char *what;
        enum core_key key;
        const char *loosen; /* why an addition loosens; NULL: additions only tighten */
        bool (*valid)(const struct pfile *f, const struct list_rule *rule, const struct pnode *n, const char *s);
};

static bool valid_path(const struct pfile *f, const struct list_rule *rule, const struct pnode *n, const char *s)
{
        /* Absolute and canonical is checked after expansion (policy_expand.c). */
        if (*s)
                return true;
        perr(f, n, "empty item in \"%s\"; expected a path", rule->what);
        return false;
}

/* Protected names are joined to every writable root, so they must stay
 * beneath it. */
static bool valid_name(const struct pfile *f, const struct list_rule *rule, const struct pnode *n, const char *s)
{
        bool dotdot = streq(s, "..") || strncmp(s, "../", 3) == 0 || strstr(s, "/../") ||
                      (strlen(s) >= 3 && streq(s + strlen(s) - 3, "/.."));

        if (*s && s[0] != '/' && !dotdot)
                return true;
        perr(f, n, "bad %s item \"%s\"; expected a name relative to each writable root, such as .envrc, "
             "without \"..\"", rule->what, s);
        return false;
}

static bool valid_cover(const struct pfile *f, const struct list_rule *rule, const struct pnode *n, const char *s)
{
        uint32_t bit;

        if (core_cover_from_string(s, &bit) >= 0)
                return true;
        perr(f, n, "unknown best_effort name \"%s\"; expected one of write, read_only, hide, private_tmp, "
             "net_tcp, net_other, net_abstract, net_unix, process, kernel, caps, ipc, metadata, proc", s);
        return false;
}

static bool valid_host(const struct pfile *f, const struct list_rule *rule, const struct pnode *n, const char *s)
{
        bool ok = *s != '\0';

        for (const char *c = s; *c; c++)
                if ((unsigned char) *c <= ' ' || *c == 0x7f)
                        ok = false;
        if (!ok)
                perr(f, n, "bad %s item \"%s\"; expected a host pattern such as example.com or *.github.com",
                     rule->what, s);
        return ok;
}

static bool valid_env_pattern(const struct pfile *f, const struct list_rule *rule, const struct pnode *n,
                              const char *s)
{
        bool ok = *s != '\0';

        for (const char *c = s; *c; c++)
                if (!(isalnum((unsigned char) *c) || *c == '_' || *c == '*' || *c == '?'))
                        ok = false;
        if (!ok)
                perr(f, n, "bad %s item \"%s\"; expected a variable name or a glob of A-Z, 0-9, _, * and ?",
                     rule->what, s);
        return ok;
}

static const struct list_rule rule_write = { "write", CORE_KEY_WRITE, "\"write\" adds a writable root", valid_path };
static const struct list_rule rule_read_only = { "read_only", CORE_KEY_READ_ONLY, NULL, valid_path };
static const struct list_rule rule_hide = { "hide", CORE_KEY_HIDE, NULL, valid_path };
static const struct list_rule rule_protect = { "protect", CORE_KEY_PROTECT, NULL, valid_name };
static const struct list_rule rule_best_effort = {
        "best_effort", CORE_KEY_BEST_EFFORT, "\"best_effort\" accepts that something goes unenforced", valid_cover
};
static const struct list_rule rule_allow = {
        "network.allow", CORE_KEY_NET_ALLOW, "\"network.allow\" adds an allowed destination", valid_host
};
static const struct list_rule rule_deny = { "network.deny", CORE_KEY_NET_DENY, NULL, valid_host };
static const struct list_rule rule_env_deny = { "env.deny", CORE_KEY_ENV_DENY, NULL, valid_env_pattern };
static const struct list_rule rule_env_allow = {
        "env.allow", CORE_KEY_ENV_ALLOW, "\"env.allow\" passes a variable the policy keeps from the command",
        valid_env_pattern
};

static int add_items(struct pfile *f, const struct pnode *seq, struct core_list *list, const struct list_rule *rule)
{
        if (!pwant_seq(f, seq, rule->what))
                return 0;
        for (size_t i = 0; i < seq->n_kids; i++) {
                const struct pnode *it = seq->kids[i];
                const char *s = pwant_scalar(f, it, rule->what);
                struct core_origin o;
                int r;

                if (!s || !rule->valid(f, rule, it, s) || plist_has(list, s))
                        continue; /* a repeated item keeps its first origin */
                if (list->n >= POLICY_MAX_ITEMS) {
                        perr(f, it, "more than %d items in \"%s\"; expected fewer", POLICY_MAX_ITEMS, rule->what);
                        return 0;
                }
                if (rule->loosen && !pmay_loosen(f, rule->key)) {
                        pdeny_loosen(f, it, rule->key, rule->loosen);
                        continue;
                }
                o = porigin(f, it);
                r = plist_add(list, s, &o);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int set_write(struct pfile *f, const struct pnode *v)
{
        return add_items(f, v, &f->l->p->write, &rule_write);
}

static int set_read_only(struct pfile *f, const struct pnode *v)
{
        return add_items(f, v, &f->l->p->read_only, &rule_read_only);
}

static int set_hide(struct pfile *f, const struct pnode *v)
{
        return add_items(f, v, &f->l->p->hide, &rule_hide);
}

static int set_protect(struct pfile *f, const struct pnode *v)
{
        return add_items(f, v, &f->l->p->protect, &rule_protect);
}

static int set_best_effort(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int r = add_items(f, v, &p->best_effort_items, &rule_best_effort);

        for (size_t i = 0; r >= 0 && i < p->best_effort_items.n; i++) {
                uint32_t bit = 0;
                (void) core_cover_from_string(p->best_effort_items.items[i].value, &bit); /* validated when added */
                p->best_effort |= bit;
        }
        return r;
}

static int set_network(struct pfile *f, const struct pnode *v)
{
        static const char *const names[] = { "mode", "allow", "deny", "proxy_port", NULL };
        const struct pnode *k[4] = { 0 }, *vals[4] = { 0 };
        int r = 0;

        if (!pwant_map(f, v, "network"))
                return 0;
        pmap_fields(f, v, "network", names, k, vals);
        if (vals[0])
                r = set_mode(f, vals[0]);
        if (r >= 0 && vals[1])
                r = add_items(f, vals[1], &f->l->p->net_allow, &rule_allow);
        if (r >= 0 && vals[2])
                r = add_items(f, vals[2], &f->l->p->net_deny, &rule_deny);
        if (r >= 0 && vals[3])
                r = set_proxy_port(f, vals[3]);
        return r;
}

static int set_env(struct pfile *f, const struct pnode *v)
{
        static const char *const names[] = { "deny", "allow", NULL };
        const struct pnode *k[2] = { 0 }, *vals[2] = { 0 };
        int r = 0;

        if (!pwant_map(f, v, "env"))
                return 0;
        pmap_fields(f, v, "env", names, k, vals);
        if (vals[0])
                r = add_items(f, vals[0], &f->l->p->env_deny, &rule_env_deny);
        if (r >= 0 && vals[1])
                r = add_items(f, vals[1], &f->l->p->env_allow, &rule_env_allow);
        return r;
}
/* A broad workspace ($HOME, /) is the user's own choice: the project file
 * lives in the workspace, so a repository cannot make its own home-wide
 * run possible (policy_workspace.c). */
static int set_allow_broad_workspace(struct pfile *f, const struct pnode *v)
{
        struct core_policy *p = f->l->p;
        int b = want_bool(f, v, "allow_broad_workspace");

        if (b < 0)
                return 0;
        if (b && f->layer == CORE_LAYER_PROJECT) {
                perr(f, v, "the project layer may not allow a broad workspace; expected "
                     "allow_broad_workspace in the user layer, or --allow-broad-workspace");
                return 0;
        }
        p->allow_broad_workspace = b;
        p->allow_broad_workspace_origin = porigin(f, v);
        return 0;
}

/* ---- settings, overridable, include, top level --------------------------- */

typedef int (*setting_fn)(struct pfile *f, const struct pnode *v);

static const char *const setting_names[] = {
        "workspace", "write", "read_only", "hide", "private_tmp", "git", "protect",
        "protect_defaults", "network", "approval", "best_effort", "audit", "env",
        "allow_broad_workspace", "caches", NULL
};
static const setting_fn setting_fns[] = {
        set_workspace, set_write, set_read_only, set_hide, set_private_tmp, set_git, set_protect,
        set_protect_defaults, set_network, set_approval, set_best_effort, set_audit, set_env,
        set_allow_broad_workspace, set_caches,
};
_Static_assert(ELEMENTSOF(setting_names) == ELEMENTSOF(setting_fns) + 1, "one function per setting");

/* In file order, so the diagnostics come out in file order too. */
static int apply_settings(struct pfile *f, const struct pnode *v)
{
        const struct pnode *k[ELEMENTSOF(setting_fns)] = { 0 };

        if (!pwant_map(f, v, "settings"))
                return 0;
        for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
                int idx = pmap_key(f, v, i, "settings", setting_names, k);
                int r = idx >= 0 ? setting_fns[idx](f, v->kids[i + 1]) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

static void key_list(char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (int k = 0; k < CORE_KEY_MAX && used < size; k++) {
                int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", core_key_name((enum core_key) k));
                if (n < 0)
                        return;
                used += (size_t) n;
        }
}

/* One key of a grant list, or -1 after reporting. */
static int grant_key(const struct pfile *f, const struct pnode *n, enum core_layer who)
{
        const char *what = who == CORE_LAYER_USER ? "overridable.user" : "overridable.project";
        const char *s = pwant_scalar(f, n, what);
        enum core_key k;
        char keys[512];

        if (!s)
                return -1;
        if (core_key_from_string(s, &k) < 0) {
                key_list(keys, sizeof(keys));
                perr(f, n, "unknown key \"%s\" in %s; expected one of %s", s, what, keys);
                return -1;
        }
        /* A user may pass on to projects only the trust it holds itself. */
        if (who == CORE_LAYER_PROJECT && f->layer == CORE_LAYER_USER &&
            !(f->l->p->overridable_user & (1u << k))) {
                perr(f, n, "overridable.project grants \"%s\", which the user layer may not loosen itself; "
                     "expected only keys that a builtin or system file lists in overridable.user", s);
                return -1;
        }
        return (int) k;
}

/* The last file that sets a grant list replaces it (it is a policy
 * decision, not a collection). */
static void set_grants(struct pfile *f, const struct pnode *key, const struct pnode *seq, enum core_layer who)
{
        struct core_policy *p = f->l->p;
        uint32_t bits = 0;
        bool ok = true;

        if (who == CORE_LAYER_USER && f->layer == CORE_LAYER_USER) {
                perr(f, key, "overridable.user in the user layer; expected it only in builtin or system files "
                     "(a layer cannot grant itself trust)");
                return;
        }
        if (!pwant_seq(f, seq, who == CORE_LAYER_USER ? "overridable.user" : "overridable.project"))
                return;
        for (size_t i = 0; i < seq->n_kids; i++) {
                int k = grant_key(f, seq->kids[i], who);
                if (k < 0)
                        ok = false;
                else
                        bits |= 1u << k;
        }
        if (!ok)
                return;
        if (who == CORE_LAYER_USER) {
                p->overridable_user = bits;
                p->overridable_user_origin = porigin(f, key);
        } else {
                p->overridable_project = bits;
                p->overridable_project_origin = porigin(f, key);
        }
}

static void apply_overridable(struct pfile *f, const struct pnode *key, const struct pnode *v)
{
        static const char *const names[] = { "user", "project", NULL };
        const struct pnode *k[2] = { 0 }, *vals[2] = { 0 };

        if (f->layer == CORE_LAYER_PROJECT) {
                perr(f, key, "\"overridable\" in the project layer; expected it only in builtin, system or "
                     "user files (a project cannot grant itself trust)");
                return;
        }
        if (!pwant_map(f, v, "overridable"))
                return;
        pmap_fields(f, v, "overridable", names, k, vals);
        if (vals[0])
                set_grants(f, k[0], vals[0], CORE_LAYER_USER);
        if (vals[1])
                set_grants(f, k[1], vals[1], CORE_LAYER_PROJECT);
}

static int apply_includes(struct pfile *f, const struct pnode *v)
{
        if (!pwant_seq(f, v, "include"))
                return 0;
        for (size_t i = 0; i < v->n_kids; i++) {
                const struct pnode *it = v->kids[i];
                const char *s = pwant_scalar(f, it, "include");
                int r;

                if (!s)
                        continue;
                if (!*s) {
                        perr(f, it, "empty include; expected a file name");
                        continue;
                }
                r = pload_include(f, it);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* false: stop reading this file, its grammar is not ours. */
static bool check_version(struct pfile *f, const struct pnode *root, const struct pnode *v)
{
        const char *s;

        if (!v) {
                perr(f, root, "missing \"stockade:\" version key; expected stockade: 1 in every policy file");
                return true; /* still check the rest, it is likely version 1 with the line forgotten */
        }
        s = pwant_scalar(f, v, "stockade");
        if (s && !streq(s, "1")) {
                perr(f, v, "unsupported policy version \"%s\"; expected stockade: 1", s);
                return false;
        }
        return s != NULL;
}

enum { TOP_VERSION, TOP_INCLUDE, TOP_OVERRIDABLE, TOP_SETTINGS, TOP_STACK, TOP_MAX };

int papply_file(struct pfile *f, const struct pnode *root)
{
        static const char *const names[] = { "stockade", "include", "overridable", "settings", "stack", NULL };
        const struct pnode *k[TOP_MAX] = { 0 }, *v[TOP_MAX] = { 0 };
        int r = 0;

        if (root->kind != PNODE_MAP) {
                if (root->kind == PNODE_SCALAR && !*root->scalar)
                        perr(f, root, "empty document; expected a mapping that starts with stockade: 1");
                else if (root->kind != PNODE_BAD)
                        perr(f, root, "the document is %s; expected a mapping that starts with stockade: 1",
                             pnode_kind_name(root));
                return 0;
        }
        pmap_fields(f, root, "top-level", names, k, v);
        if (!check_version(f, root, v[TOP_VERSION]))
                return 0;
        /* An include is merged first, then this file's own keys on top:
         * "at its place", wherever the key is written in the mapping. */
        if (v[TOP_INCLUDE])
                r = apply_includes(f, v[TOP_INCLUDE]);
        if (r >= 0 && v[TOP_OVERRIDABLE])
                apply_overridable(f, k[TOP_OVERRIDABLE], v[TOP_OVERRIDABLE]);
        if (r >= 0 && v[TOP_SETTINGS])
                r = apply_settings(f, v[TOP_SETTINGS]);
        if (r >= 0 && v[TOP_STACK])
                r = papply_stack(f, k[TOP_STACK], v[TOP_STACK]);
        return r;
}
