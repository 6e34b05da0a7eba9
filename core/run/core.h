/* SPDX-License-Identifier: MIT */
/* The core's internal types: loaded modules, one run, its plan. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/policy.h"

struct json_object;
struct core_loop;
#include "stockade/module.h"

/* stockade's own exit statuses, above every 128+signal value (stockade(1)). */
enum {
        STK_EXIT_DENIED = 240,    /* the permission phase said no */
        STK_EXIT_POLICY = 241,    /* a policy file is wrong */
        STK_EXIT_SETUP = 242,     /* the sandbox could not be set up */
        STK_EXIT_INTEGRITY = 243, /* a pinned binary's hash differs */
        STK_EXIT_USAGE = 244,     /* bad command line */
};

struct core_module {
        char *name;
        char *path;
        int fd;                         /* the file, opened and checked before dlopen */
        void *dl;
        const struct stk_module *desc;
        void *data;
        bool inited;
};

/* A line's argument after typing against the module's spec. */
struct core_typed_arg {
        const struct stk_arg_spec *spec;
        const char *string;             /* STK_ARG_STRING (points into the policy) */
        char **list;                    /* STK_ARG_LIST, NULL-terminated, owned */
        long long number;               /* STK_ARG_INT and STK_ARG_BOOL */
        bool set;
};

struct stk_ctx {
        struct core_run *run;
        struct core_module *mod;
        const struct core_line *line;
        struct core_typed_arg *args;    /* one per spec entry */
        size_t n_args;
        char **empty;                   /* returned for absent lists */
        uint32_t covers;                /* what probe said this line enforces here */
        int probe_r;                    /* probe's result: < 0, the module cannot run here */
        /* What a fallback line's probe said (probe_note.c): held while it
         * probes, printed if it can run after all, else folded into the one
         * notice of the fallback, or explain's "why not". */
        bool probing;
        char *probe_why;
};

struct core_plan {
        char **argv;                    /* the command itself */
        char **prefix;                  /* wrappers, outermost first */
        char **envp;
        struct stk_bind *binds;
        size_t n_binds;
        int pass_fds[32];
        size_t n_pass_fds;
        int exec_fd;                    /* -1: exec prefix[0] by path */
};

struct core_watch {
        int fd;
        stk_watch_cb cb;
        void *userdata;
        struct stk_ctx *ctx;
};

/* What each line did in the last phase run, for explain and errors. */
struct core_trail {
        const struct core_line *line;
        int r;
        enum stk_verdict verdict;
        bool skipped;
};

/* The settings handed to modules, with the storage behind them. */
struct core_settings {
        struct stk_settings pub;
        char **write, **read_only, **hide, **net_allow, **net_deny;
        char *cache_set;        /* caches.c: the set's directory (also in write), or NULL */
};

/* freeze.c: the command stopped while a question is asked. */
struct core_freeze {
        pid_t *pids;                    /* stopped by us, to be continued */
        size_t n;
};

struct core_run {
        struct core_policy *policy;
        struct core_settings settings;
        struct core_module *modules;
        size_t n_modules;
        struct stk_ctx *ctxs;           /* one per policy line */
        enum stk_phase phase;           /* the phase now running */
        struct core_plan plan;
        uint32_t covered;               /* cover bits of the lines that took effect */
        FILE *audit;
        struct core_audit *audit_state; /* audit.c: what this run wrote, folded and dropped */
        char run_id[33];
        struct core_loop *loop;         /* the supervisor's events (loop.h) */
        struct core_watch *watches;
        size_t n_watches;               /* slots: watches[fd], cb NULL when unwatched */
        struct core_trail trail[64];    /* the last phase's lines */
        size_t n_trail;
        bool in_child;                  /* in-sandbox: no supervisor services */
        /* ABI 1.4 prepare/handoff (handoff.c).  Supervisor: the line whose
         * prepare runs (NULL outside one), whether it handed over, and
         * where to.  Child: what arrived, by in-sandbox ordinal. */
        struct stk_ctx *preparing;
        bool handoff_sent, handoff_broken;
        size_t handoff_total;           /* bytes handed over in this run */
        int handoff_fd;
        struct core_handoff *handoffs;
        size_t n_handoffs;
        int status_fd;                  /* in the child: the channel to the supervisor */
        /* ABI 1.5 host->seccomp_notify (notify.c).  Child: the programs of
         * the in-sandbox lines, loaded as one filter after the last line. */
        struct core_notify_prog *notify_progs;
        size_t n_notify_progs;
        struct notify_state *notify;    /* supervisor: the shared listener's state, freed with the run */
        bool trust_build_tree;
        bool quiet;
        /* ABI 1.5.  While a doctor hook runs: the report's checks array and
         * the check it began last (doctor_check, doctor_detail). */
        struct json_object *doctor_checks, *doctor_last;
        char **protected_paths;         /* host->protected_paths, made on first use */
        pid_t freeze_root;              /* the keeper (or the child): whose descendants a question stops */
        struct core_freeze frozen;
        int asks_refused;               /* questions denied or unanswered (stack.c, approval.ask_limit) */
        bool ask_limit_said;
        /* `run --timeout`: seconds the command may run (0: no limit), and
         * whether it was stopped for it (supervisor.c). */
        int timeout_s;
        bool timed_out;
        /* `run --json` (result.c): what the run's records say, collected
         * as they are made, audit log or not; NULL: not asked for. */
        struct json_object *result;
        /* Calls the supervisor answered with a refusal (notify.c), by errno. */
        unsigned denied_eperm, denied_eacces, denied_erofs, denied_other;
        /* ABI 1.7 host->client_confirm: set by an agent server whose client
         * can be asked (stockade mcp), NULL elsewhere and in the worker. */
        int (*client_confirm)(void *data, const char *message, int timeout_ms);
        void *client_confirm_data;
};

/* A module slot the core may read: inside the size the module was built with. */
#define MODULE_HAS(desc, field) (STK_HAS(desc, stk_module, field) && (desc)->field)

/* host.c: `stockade doctor`'s word for a status ("ok", "warn", "fail"). */
const char *core_doctor_status_name(enum stk_doctor_status s);

/* notify.c: one seccomp listener for every in-sandbox line (ABI 1.5) */
struct core_notify_prog {
        void *insns;
        size_t n;
        unsigned flags;
};
#define CORE_NOTIFY_FD_NAME "*seccomp" /* a status message's "module" for the shared listener */
int core_notify_add(struct stk_ctx *ctx, const void *insns, size_t n, unsigned flags);
int core_notify_load(struct core_run *run);
int core_notify_watch(struct core_run *run, int listener);
void core_notify_free(struct core_run *run);

/* loader.c */
int core_module_dirs(bool trust_build_tree, const char *dirs[static 3]);
int core_module_load(const char *name, bool trust_build_tree, struct core_module *ret);
int core_module_load_fd(const char *name, int fd, struct core_module *ret);
void core_module_unload(struct core_module *m);


/* probe_note.c: a handled fallback is one notice (issue 13 §6) */
bool core_probe_hold(struct stk_ctx *ctx, enum stk_log_level level, const char *msg);
void core_probe_done(struct stk_ctx *ctx);
const char *core_probe_why(const struct stk_ctx *ctx);
bool core_fell_back(const struct stk_ctx *ctx);
void core_fallback_notice(const struct core_run *run, enum stk_phase phase);

/* run.c: modules of a policy, contexts, typed args */
int core_run_new(struct core_policy *policy, bool trust_build_tree, struct core_run **ret);
struct core_run *core_run_free(struct core_run *run);
int core_ctx_setup(struct core_run *run, size_t line_index, struct core_module *m);
int core_run_init_modules(struct core_run *run, enum stk_phase only_phase_or_max);
int core_settings_build(const struct core_policy *p, struct core_settings *ret);
void core_settings_publish(struct core_settings *s, const struct stk_settings *scalars);
void core_settings_done(struct core_settings *s);

/* caches.c: `caches:`, the tools' caches in writable directories of the
 * sandbox's own. */
int core_caches_base(char *buf, size_t size);
int core_caches_set_name(const char *workspace, bool shared, char *buf, size_t size);
int core_caches_settings(const struct core_policy *p, struct core_settings *s);
int core_caches_plan(struct core_run *run);
size_t core_caches_n_tools(void);
void core_caches_tool(size_t i, const char **ret_dir, const char **ret_env, const char **ret_host_path);
extern const struct stk_host core_host;

/* stack.c: the PAM-style dispatch */
int core_stack_decide(struct core_run *run, enum stk_phase phase, const void *request,
                      enum stk_verdict *ret_verdict, const char **ret_decider);
int core_stack_act(struct core_run *run, enum stk_phase phase);
bool core_approval_would_ask(const struct core_run *run, const char **ret_decider);
int core_approval_ask(struct core_run *run, const struct stk_question *q,
                      enum stk_verdict *ret_verdict, const char **ret_decider);
/* The pure truth tables, one line's outcome at a time (unit-tested). */
struct core_decision {
        size_t n_lines;                 /* lines in the phase: set before stepping */
        bool denied, asked, allowed, sufficient_allowed, done;
        enum stk_verdict optional_verdict; /* a lone optional line's verdict */
};
void core_decision_step(struct core_decision *d, enum core_control control, int r, enum stk_verdict v);
enum stk_verdict core_decision_result(const struct core_decision *d, enum stk_verdict if_empty);
struct core_action {
        size_t n_lines;                 /* lines in the phase: set before stepping */
        bool failed, succeeded, done;
        int first_error;
        int optional_r;                 /* a lone optional line's result */
};
void core_action_step(struct core_action *a, enum core_control control, int r);
int core_action_result(const struct core_action *a);

/* plan.c */
int core_plan_init(struct core_plan *p, char *const *argv, char *const *envp);
void core_plan_done(struct core_plan *p);
int core_plan_setenv(struct core_plan *p, const char *name, const char *value_or_null);
const char *core_plan_getenv(const struct core_plan *p, const char *name);
int core_plan_filter_env(struct core_plan *p, const struct core_list *deny, const struct core_list *allow);
int core_plan_bind(struct core_plan *p, const char *source, const char *dest, unsigned flags);
int core_plan_pass_fd(struct core_plan *p, int fd);
int core_plan_final_argv(const struct core_plan *p, char *const *inner, char ***ret);

/* agent_sock.c: SSH_AUTH_SOCK's socket in the plan, where env.allow lets it in */
int core_agent_socket_plan(struct core_run *run);

/* The status of a run stopped by `run --timeout`, as timeout(1) says it. */
#define CORE_EXIT_TIMEOUT 124

/* result.c: `run --json` */
int core_result_start(struct core_run *run);
void core_result_record(struct core_run *run, const char *kind, struct json_object *fields);
int core_result_write(struct core_run *run, int fd, int status, int64_t duration_ms);

/* coverage.c: what the settings require, what the stack gives */
uint32_t core_required_covers(const struct stk_settings *s);
int core_covers_describe(uint32_t bits, char *buf, size_t size);
int core_coverage_check(const struct core_run *run);
int core_coverage_unclaimed(const struct core_run *run); /* 0, or STK_EXIT_POLICY with the settings said */

/* audit.c */
int core_audit_open(struct core_run *run, const char *path);
/* The "v" of every audit record (the log, the syslog and journal sinks,
 * the aggregate records): a reader (stockade log) says when a record is of
 * a newer schema than it knows.  Bump it when a field changes meaning. */
#define CORE_AUDIT_SCHEMA 1
/* How records are printed: plain, and "/" as itself (json-c escapes it by
 * default, which no reader needs and grep on paths trips over). */
#define CORE_AUDIT_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
void core_make_run_id(char id[static 33]);
int core_audit_record(struct core_run *run, const char *kind, struct json_object *fields);
void core_audit_close(struct core_run *run);
/* audit_sink.c: run->audit for a syslog or journal sink */
int core_audit_sink_open(struct core_run *run, const char *spec);

/* freeze.c: before a question while the command runs, and after.  0, or
 * -errno after a message: then nothing is stopped and the answer is DENY. */
int core_freeze(struct core_run *run);
void core_thaw(struct core_run *run);

/* supervisor.c */
#define CORE_N_FORWARDED 7
extern const int core_forwarded_signals[CORE_N_FORWARDED]; /* SIGINT, SIGTERM, ... for the command */
void core_signal_group(pid_t pid, int sig);
int core_watch_fd(struct stk_ctx *ctx, int fd, unsigned events, stk_watch_cb cb, void *userdata);
int core_unwatch_fd(struct stk_ctx *ctx, int fd);
int core_supervise(struct core_run *run, int *ret_status);
int core_supervisor_prepare(struct core_run *run);

/* child.c */
#include <signal.h>
/* supervisor: its pid, taken before the fork (a child that asked getppid()
 * would take a re-parenting for the supervisor). */
_Noreturn void core_child_main(struct core_run *run, pid_t supervisor, int status_fd, const sigset_t *oldmask);
_Noreturn void core_exec_command(struct core_run *run, int status_fd, char *const *argv, char *const *envp);

/* inner.c: in-sandbox phase inside a wrapper */
int core_inner_argv(struct core_run *run, int status_fd, char ***ret, int *extra, size_t *n_extra, size_t max);
int core_inner_config(struct core_run *run, int *ret_fd);
int core_inner_main(int argc, char **argv);
int core_in_sandbox_apply(struct core_run *run);

/* handoff.c: ABI 1.4 prepare hooks and their handoffs */
void core_prepare_in_sandbox(struct core_run *run, int status_fd);
int core_handoff(struct stk_ctx *ctx, const void *data, size_t len);
int core_handoff_take(struct stk_ctx *ctx, const void **ret_data, size_t *ret_len);
void core_handoffs_free(struct core_run *run);

/* open.c: a policy for a profile or file, a run on it (run, check, explain,
 * doctor and every later entry go through these two). */
struct core_open_opts {
        const char *profile;            /* NULL: "default" */
        const char *policy_file;        /* --policy FILE instead of the profile's files */
        const char *workspace;          /* NULL: the working directory */
        const char *audit;              /* --audit FILE */
        bool file_alone;                /* check FILE: that file only, no user or project layer */
        enum core_broad broad_workspace; /* --allow-broad-workspace; doctor and check FILE skip the check */
        const char *cli_layer;          /* the CLI layer's policy document (core_policy_sources.cli_text) */
        bool session;                   /* `stockade sh`, `mcp`, `serve`: an agent's run (approval.tty auto: off) */
};
int core_load_policy(const struct core_open_opts *o, struct core_policy **ret);
int core_user_dir(char **ret);  /* the user layer's directory, NULL when HOME and XDG_CONFIG_HOME say none */
int core_open_run(struct core_policy *p, struct core_run **ret);  /* 0 or an exit status */

/* warm.c: a policy and its modules kept loaded across commands (`stockade
 * mcp`, `serve`), each command still a run of its own. */
struct core_file_id;
struct core_warm {
        struct core_open_opts opts;     /* as for core_load_policy; strings are the caller's */
        struct core_policy *policy;
        struct core_run *run;
        struct core_file_id *ids;       /* every policy file read or that could be, as loaded */
        size_t n_ids;
        unsigned loads;                 /* how often the policy was (re)loaded: tests, bench */
};
/* The run for the next command: reloaded when a policy file changed, else
 * refreshed (protected paths re-scanned, a new run id).  0 or an exit status. */
int core_warm_get(struct core_warm *w, struct core_run **ret);
/* In the fork that runs the command: an event loop of its own. */
int core_warm_forked(struct core_run *run);
/* The worker's end, after the command and all it left have ended: the
 * modules' fini in the process that supervised it, as a cold run's after
 * core_run_command; then _exit(status). */
_Noreturn void core_warm_worker_exit(struct core_run *run, int status);
void core_warm_done(struct core_warm *w);

/* runcmd.c: the runtime API.  permission, pre-exec, supervise; returns the
 * command's exit status or one of stockade's own. */
int core_run_command(struct core_run *run, char **argv, char **envp);
int core_run_permitted(struct core_run *run, char **argv, char **envp); /* the rest, once permission said ALLOW */
int core_permission(struct core_run *run, char **argv, bool ask, enum stk_verdict *ret_v, const char **ret_decider);
int core_egress_decide(struct core_run *run, const struct stk_egress *e, enum stk_verdict *ret_v,
                       const char **ret_decider);
