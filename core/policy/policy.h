/* SPDX-License-Identifier: MIT */
/* Stacked policy files: parse (libyaml), layer, expand, validate.
 * The grammar and the layering rules are documented in man/stockade.yaml.5. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stockade/module.h"

enum core_layer {
        CORE_LAYER_BUILTIN = 0, /* profiles embedded in the binary (etc/ of the source tree) */
        CORE_LAYER_SYSTEM,      /* $(sysconfdir)/stockade/<profile>.yaml and <profile>.d/ */
        CORE_LAYER_USER,        /* $XDG_CONFIG_HOME/stockade/<profile>.yaml */
        CORE_LAYER_PROJECT,     /* <workspace>/.stockade.yaml: untrusted, tighten-only */
        CORE_LAYER_CLI,         /* command-line options (--workspace, --audit) */
        CORE_LAYER_MAX
};

enum core_control {
        CORE_REQUIRED = 0,
        CORE_REQUISITE,
        CORE_SUFFICIENT,
        CORE_OPTIONAL,
        CORE_CONTROL_MAX
};

/* approval.tty: whether approval_tty asks on the controlling terminal;
 * ordered from tight to loose (a layer without the grant may only lower it). */
enum core_approval_tty {
        CORE_APPROVAL_TTY_OFF = 0,      /* never */
        CORE_APPROVAL_TTY_AUTO,         /* when there is one, except in agent sessions (sources.session) */
        CORE_APPROVAL_TTY_ON,           /* when there is one, agent sessions included */
};
#define CORE_APPROVAL_ASK_LIMIT_DEFAULT 3
#define CORE_APPROVAL_ASK_LIMIT_MAX 100

/* Whether `.git` is protected whole or only its code-execution surfaces. */
enum core_git_protect {
        CORE_GIT_OFF = 0,
        CORE_GIT_SURFACES,
        CORE_GIT_WHOLE,
};

struct core_origin {
        const char *file; /* interned in the policy; "<builtin:default>" for embedded files */
        unsigned line, column; /* 1-based, from libyaml marks */
        enum core_layer layer;
};

struct core_item {
        char *value; /* raw in the file; after core_policy_finish(): expanded and canonical */
        struct core_origin origin;
};

struct core_list {
        struct core_item *items;
        size_t n;
};

/* One module argument, typed later against the module's stk_arg_spec. */
struct core_arg {
        char *name;
        int is_list;
        char *scalar;          /* when !is_list */
        char **list;           /* NULL-terminated, when is_list */
        struct core_origin origin;
};

/* `caches:` (stockade.yaml(5)): the tools' caches redirected to writable
 * directories of the sandbox's own, one set per workspace or one shared;
 * ordered, a higher value loosens. */
enum core_caches {
        CORE_CACHES_OFF = 0,
        CORE_CACHES_WORKSPACE,
        CORE_CACHES_SHARED,
};

struct core_line {
        enum stk_phase phase;
        enum core_control control;
        char *module;          /* bare identifier [a-z0-9_]+ */
        struct core_arg *args;
        size_t n_args;
        struct core_origin origin;
};

/* Every setting remembers where its value came from (for explain). */
struct core_policy {
        char *profile;

        char *workspace;            struct core_origin workspace_origin;
        struct core_list write;
        struct core_list read_only;
        struct core_list hide;
        int private_tmp;            struct core_origin private_tmp_origin;
        enum core_git_protect git;  struct core_origin git_origin;
        struct core_list protect;   /* extra protected names, relative to each writable root */
        int protect_defaults;       struct core_origin protect_defaults_origin; /* the built-in list (core/policy/protect.c) */
        enum stk_network network;   struct core_origin network_origin;
        int proxy_port;             struct core_origin proxy_port_origin; /* 0: net_proxy publishes one */
        struct core_list net_allow;
        struct core_list net_deny;
        enum stk_approval approval; struct core_origin approval_origin;
        /* Who answers besides the stack lines' own arguments (approval.*):
         * NULL when unset, then those approval lines pass (IGNORE). */
        char *approval_exec;        struct core_origin approval_exec_origin;    /* a program, absolute */
        char *approval_webhook;     struct core_origin approval_webhook_origin; /* a URL */
        enum core_approval_tty approval_tty; struct core_origin approval_tty_origin;
        int approval_mcp;           struct core_origin approval_mcp_origin;     /* 0: off, approval_mcp abstains */
        int approval_ask_limit;     struct core_origin approval_ask_limit_origin; /* denied or unanswered asks, then no more */
        uint32_t best_effort;       /* stk_cover bits */
        struct core_list best_effort_items;
        char *audit;                struct core_origin audit_origin; /* NULL: no audit log */
        enum core_caches caches;    struct core_origin caches_origin; /* tool caches (core/run/caches.c) */

        struct core_line *lines;
        size_t n_lines;

        /* Files read, in order, with their layer (for explain). */
        struct core_item *files;
        size_t n_files;

        /* Interned strings (file names) owned by the policy. */
        char **strings;
        size_t n_strings;

        /* Appended by the policy loader. */
        uint32_t overridable_user;     struct core_origin overridable_user_origin;    /* 1u << enum core_key */
        uint32_t overridable_project;  struct core_origin overridable_project_origin; /* 1u << enum core_key */

        /* Environment variables kept from the command (glob patterns on the
         * name); allow lists the exceptions. */
        struct core_list env_deny;
        struct core_list env_allow;

        int session;                    /* core_policy_sources.session */
        /* Appended (issue 13): a broad workspace ($HOME, /, /etc) allowed by
         * a trusted layer (policy_workspace.c). */
        int allow_broad_workspace;  struct core_origin allow_broad_workspace_origin;
};

enum core_broad {
        CORE_BROAD_CHECK = 0,   /* refuse /, a system directory, $HOME or its ancestors */
        CORE_BROAD_ALLOW,       /* --allow-broad-workspace */
        CORE_BROAD_SKIP,        /* no run follows */
};

/* Where layers come from.  The CLI fills this from compiled-in paths and the
 * environment; tests point it at temp dirs. */
struct core_policy_sources {
        const char *profile;       /* default "default"; [A-Za-z0-9_-]+ */
        const char *builtin_dir;   /* read <profile>.yaml from here instead of the embedded copy (tests); may be NULL */
        const char *system_dir;    /* e.g. /etc/stockade; NULL skips the layer */
        const char *user_dir;      /* e.g. ~/.config/stockade; NULL skips */
        const char *workspace;     /* --workspace or cwd; project file is <workspace>/.stockade.yaml */
        int no_project;            /* skip the project layer */
        const char *cwd, *home, *tmpdir; /* for ${CWD} ${HOME} ${TMPDIR} ~ */
        const char *cli_audit;     /* --audit FILE */
        const char *const *files;  /* `stockade check FILE...`: parse these alone, as the system layer */
        /* Appended: non-zero when `workspace` came from --workspace; it then
         * overrides every file's `workspace:` (CLI layer).  Otherwise it is
         * only the fallback when no file sets `workspace:`. */
        int workspace_from_cli;
        /* Appended: the CLI layer's settings as a policy document (the run
         * flags, the shell entry's bookkeeping directories), loaded after
         * the project layer under the user layer's `overridable` rules.
         * Its values are not expanded.  NULL: none. */
        const char *cli_text;
        /* Appended: non-zero for a run on an agent's behalf (`stockade sh`,
         * `mcp`, `serve`): approval.tty auto then means off, since nobody
         * who typed the command watches the terminal. */
        int session;
        /* Appended (issue 13): whether a broad workspace is refused
         * (policy_workspace.c).  `stockade check FILE` and doctor skip it:
         * they judge files and machines, not a place to run. */
        enum core_broad broad_workspace;
};

/* Diagnostics go to this stream (stderr by default; tests use a memstream).
 * Format: "FILE:LINE:COL: error: WHAT; expected WHAT" */
extern FILE *core_diag_stream;
void core_diag(const struct core_origin *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Load, layer, expand variables and canonicalise paths.  On error prints
 * every diagnostic it can and returns -EINVAL (or -errno for I/O); *ret is
 * untouched. */
int core_policy_load(const struct core_policy_sources *src, struct core_policy **ret);
struct core_policy *core_policy_free(struct core_policy *p);

const char *core_layer_name(enum core_layer l);
const char *core_phase_name(enum stk_phase p);
const char *core_control_name(enum core_control c);
int core_phase_from_string(const char *s, enum stk_phase *ret);
int core_control_from_string(const char *s, enum core_control *ret);
const char *core_cover_name(uint32_t single_bit);
int core_cover_from_string(const char *s, uint32_t *ret);

/* The embedded profiles (generated from the etc/ profiles at build time). */
struct core_embedded_file {
        const char *name;    /* "default.yaml" */
        const char *text;
        size_t len;
};
extern const struct core_embedded_file core_embedded_profiles[]; /* NULL name ends */

/* Appended by the policy loader. */

/* The settings `overridable:` can name ("network.mode" etc.). */
enum core_key {
        CORE_KEY_WORKSPACE = 0,
        CORE_KEY_WRITE,
        CORE_KEY_READ_ONLY,
        CORE_KEY_HIDE,
        CORE_KEY_PRIVATE_TMP,
        CORE_KEY_GIT,
        CORE_KEY_PROTECT,
        CORE_KEY_PROTECT_DEFAULTS,
        CORE_KEY_NET_MODE,
        CORE_KEY_NET_ALLOW,
        CORE_KEY_NET_DENY,
        CORE_KEY_APPROVAL,
        CORE_KEY_BEST_EFFORT,
        CORE_KEY_AUDIT,
        CORE_KEY_STACK,
        CORE_KEY_ENV_DENY,
        CORE_KEY_ENV_ALLOW,
        CORE_KEY_NET_PROXY_PORT,
        CORE_KEY_CACHES,
        CORE_KEY_APPROVAL_EXEC,
        CORE_KEY_APPROVAL_WEBHOOK,
        CORE_KEY_MAX
};
const char *core_key_name(enum core_key k);
int core_key_from_string(const char *s, enum core_key *ret);
const char *core_git_name(enum core_git_protect g);        /* "whole", "surfaces", "off" */
const char *core_network_name(enum stk_network n);         /* "off", "proxy", "on" */
const char *core_approval_name(enum stk_approval a);       /* "on-request", "never" */
const char *core_approval_tty_name(enum core_approval_tty t); /* "off", "auto", "on" */
/* Whether approval_tty may ask in this run: approval.tty on, or auto
 * outside an agent's session. */
bool core_approval_tty_asks(const struct core_policy *p);
#define CORE_INCLUDE_MAX_DEPTH 8

/* protect.c: the protected paths inside the writable roots (the built-in
 * list, `protect:`, git's surfaces), as read-only islands. */
int core_protect_paths(const struct core_policy *p, char ***ret);

/* policy_workspace.c: why `ws` (canonical) is too broad a workspace ("your
 * home directory", ...), or NULL.  `home`: $HOME as the environment says. */
const char *core_workspace_broad(const char *ws, const char *home);
/* No pre-exec or in-sandbox line (full-access): the command runs unconfined,
 * and the checks of a sandbox (broad workspace, unenforced settings) do not apply. */
bool core_policy_no_sandbox(const struct core_policy *p);
