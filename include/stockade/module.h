/* SPDX-License-Identifier: MIT */
/*
 * stockade/module.h - the stockade module SDK.
 *
 * A module is a shared object that exports exactly one symbol,
 * `stockade_module`, a `const struct stk_module`.  The core checks its magic,
 * ABI major and size before reading anything else, then calls `init` with a
 * table of host functions.  Modules never link against the core: everything
 * they need from it is in `struct stk_host`.
 *
 * Compatibility rules (see stockade-module(3)):
 *  - STK_ABI_MAJOR changes only when an existing field changes meaning.
 *  - New fields are appended to stk_module, stk_host and stk_settings, and
 *    STK_ABI_MINOR grows.  Each struct carries its own size; the core reads a
 *    module slot only if `size` covers it, and a module must check
 *    `host->size` / `settings->size` before using a slot newer than the
 *    minor it was built against.
 *
 * Errors: every hook returns >= 0 for success and -errno for failure.
 * Verdicts are data, not errors: decision hooks write *ret_verdict, which the
 * core presets to STK_VERDICT_UNSET; an unset or unknown verdict is a failure
 * under the line's control flag.  A hook that refuses because an integrity
 * check failed (a pinned binary's hash differs) returns -EKEYREJECTED; the
 * run then ends with its own exit status (stockade(1)).
 */
#ifndef STOCKADE_MODULE_H
#define STOCKADE_MODULE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* EKEYREJECTED ("an integrity check failed", above) is Linux's errno;
 * where there is none (macOS) the SDK gives it a number of its own. */
#ifndef EKEYREJECTED
#define EKEYREJECTED 4096
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a struct that carries its own size (stk_host, stk_settings,
 * stk_module) is large enough to hold `field`: check it before reading any
 * slot newer than the minor a module or the core was built against, e.g.
 * STK_HAS(host, stk_host, audit) && host->audit (ABI 1.5). */
#define STK_HAS(ptr, type, field) \
        ((ptr)->size >= offsetof(struct type, field) + sizeof(((const struct type *) 0)->field))

#define STK_MODULE_MAGIC 0x314b5453u /* "STK1" little-endian */
#define STK_ABI_MAJOR 1
#define STK_ABI_MINOR 8

enum stk_phase {
        STK_PHASE_PERMISSION = 0, /* supervisor: may this command run at all */
        STK_PHASE_PRE_EXEC,       /* supervisor: build the plan (wrap argv, env, binds, fds) */
        STK_PHASE_IN_SANDBOX,     /* child: innermost, right before execve */
        STK_PHASE_EGRESS,         /* supervisor: one network destination */
        STK_PHASE_MAX
};

enum stk_verdict {
        STK_VERDICT_UNSET = 0,
        STK_ALLOW,
        STK_DENY,
        STK_ASK,
        STK_IGNORE,
};

enum stk_log_level {
        STK_LOG_ERROR = 0,
        STK_LOG_WARNING,
        STK_LOG_INFO,
        STK_LOG_DEBUG,
};

/* ABI 1.5: the status of one `stockade doctor` check. */
enum stk_doctor_status {
        STK_DOCTOR_OK = 0,
        STK_DOCTOR_WARN,  /* works, with a caveat the user should know */
        STK_DOCTOR_FAIL,  /* the module cannot do its job here */
};

enum stk_network {
        STK_NET_OFF = 0,  /* no sockets out */
        STK_NET_PROXY,    /* only the egress proxy */
        STK_NET_ON,       /* unrestricted: only for full-access style profiles */
};

enum stk_approval {
        STK_APPROVAL_ON_REQUEST = 0, /* ASK goes to the approval hooks */
        STK_APPROVAL_NEVER,          /* every ASK is a DENY */
};

/*
 * What an enforcement module can enforce.  A module states its static claim
 * in stk_module.covers and may refine it on this machine with `probe`.
 * Before the command starts, the core checks that the modules that actually
 * took effect cover every bit the settings require (stockade.yaml(5));
 * a missing bit stops the run unless the policy lists it as best_effort.
 */
enum stk_cover {
        STK_COVER_WRITE        = 1u << 0,  /* writes only beneath writable roots */
        STK_COVER_READ_ONLY    = 1u << 1,  /* read-only islands inside writable roots */
        STK_COVER_HIDE         = 1u << 2,  /* hidden paths unreadable */
        STK_COVER_PRIVATE_TMP  = 1u << 3,  /* host /tmp not writable, a private one instead */
        STK_COVER_NET_TCP      = 1u << 4,  /* TCP to anything but the plan's endpoint */
        STK_COVER_NET_OTHER    = 1u << 5,  /* UDP, raw, packet and other address families */
        STK_COVER_NET_ABSTRACT = 1u << 6,  /* abstract unix sockets of the host */
        STK_COVER_NET_UNIX     = 1u << 7,  /* pathname unix sockets outside writable roots */
        STK_COVER_PROCESS      = 1u << 8,  /* no signal/ptrace of host processes */
        STK_COVER_KERNEL       = 1u << 9,  /* kernel attack surface (mount, bpf, keyctl, ...) */
        STK_COVER_CAPS         = 1u << 10, /* the command holds no capabilities */
        STK_COVER_IPC          = 1u << 11, /* no System V IPC or POSIX message queue of the host (ABI 1.3) */
        STK_COVER_METADATA     = 1u << 12, /* mode, owner, times, xattrs only beneath writable roots (ABI 1.5) */
        STK_COVER_PROC_OTHERS  = 1u << 13, /* other processes' /proc/PID (cmdline, environ, status, maps, fd,
                                              cwd, root) unreadable or absent (issue 13; a module built
                                              before it never claims it) */
        STK_COVER_LAST         = STK_COVER_PROC_OTHERS,
};

/* Argument specification: the core validates a line's args against it
 * (unknown keys and wrong types are policy errors with file:line:col). */
enum stk_arg_type {
        STK_ARG_STRING = 1,
        STK_ARG_LIST,   /* list of strings */
        STK_ARG_BOOL,
        STK_ARG_INT,
};

enum stk_arg_flags {
        /* Only the built-in, system and user layers may set it: the argument
         * names something the supervisor executes or trusts (a binary path, a
         * hash pin), so a project file from an untrusted repository must not. */
        STK_ARG_TRUSTED = 1u << 0,
};

struct stk_arg_spec {
        const char *name; /* NULL ends the array */
        enum stk_arg_type type;
        unsigned flags;
        const char *help;
};

/* The enforcement-neutral settings every module reads.  All paths are
 * absolute and canonical; lists are NULL-terminated and never NULL. */
struct stk_settings {
        uint32_t size;
        const char *profile;
        const char *workspace;
        const char *const *write;     /* writable roots */
        const char *const *read_only; /* islands inside writable roots, protected paths included */
        const char *const *hide;      /* unreadable paths */
        int private_tmp;              /* /tmp replaced by a private, writable one */
        enum stk_network network;
        const char *const *net_allow;
        const char *const *net_deny;
        enum stk_approval approval;
        uint32_t best_effort;         /* stk_cover bits the policy accepts as unenforced */
        const char *home;
        /* ABI 1.2.  Network mode proxy: the TCP port the egress proxy listens
         * on at 127.0.0.1, as its pre-exec line published it with
         * host->plan_proxy; 0 until then.  Enforcement modules that run later
         * (Landlock's connect rule, seccomp's connect check) read it here. */
        int proxy_port;
        /* ABI 1.6.  Who answers questions, from the settings approval.*
         * (stockade.yaml(5)): the program approval_exec runs and the URL
         * approval_webhook posts to when a line's own arguments name none
         * (NULL: unset, and such a line passes every question on with
         * IGNORE); whether approval_tty may ask on the controlling terminal
         * (0: approval.tty off, or auto in an agent's session). */
        const char *approval_exec;
        const char *approval_webhook;
        int approval_tty;
        /* ABI 1.7.  Whether approval_mcp may put questions to the MCP
         * client (approval.mcp; 0: off, which a system layer sets to forbid
         * it). */
        int approval_mcp;
};

/* A request to run a command (permission phase). */
struct stk_request {
        const char *const *argv;
        const char *cwd;
        const char *profile;
};

/* A network destination (egress phase). */
struct stk_egress {
        const char *host;   /* as asked: a name or an address literal */
        uint16_t port;
        const char *scheme; /* "http", "connect", "socks5" */
        pid_t pid;          /* asking process if known, else 0 */
};

enum stk_question_kind {
        STK_QUESTION_COMMAND = 1,
        STK_QUESTION_EGRESS,
};

/* What an approval hook is asked. */
struct stk_question {
        enum stk_question_kind kind;
        const struct stk_request *request; /* STK_QUESTION_COMMAND */
        const struct stk_egress *egress;   /* STK_QUESTION_EGRESS */
        const char *reason;                /* which module asked and why */
};

/* A path the plan makes visible in the sandbox (bind for namespace
 * wrappers, an allow rule for Landlock-like modules). */
enum stk_bind_flags {
        STK_BIND_RW = 1u << 0,
        STK_BIND_TRY = 1u << 1, /* source may be absent */
};

struct stk_bind {
        const char *source;
        const char *dest;
        unsigned flags;
};

struct stk_ctx; /* opaque: one stack line of one run */

enum stk_watch_events {
        STK_WATCH_IN = 1u << 0,
        STK_WATCH_OUT = 1u << 1,
};

typedef void (*stk_watch_cb)(struct stk_ctx *ctx, int fd, unsigned events, void *userdata);

struct stk_host {
        uint32_t size;
        uint32_t abi_minor;

        /* Logging, prefixed with the module name and its policy file:line. */
        void (*log)(struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
                __attribute__((format(printf, 3, 4)));

        /* This line's arguments, already validated against stk_module.args.
         * Strings stay valid for the whole run. */
        const char *(*arg_string)(struct stk_ctx *ctx, const char *name);       /* NULL if absent */
        const char *const *(*arg_list)(struct stk_ctx *ctx, const char *name);  /* never NULL */
        int (*arg_bool)(struct stk_ctx *ctx, const char *name, int dflt);
        long long (*arg_int)(struct stk_ctx *ctx, const char *name, long long dflt);

        const struct stk_settings *(*settings)(struct stk_ctx *ctx);

        /* The module's per-run data, as init returned it. */
        void *(*data)(struct stk_ctx *ctx);

        /* Plan editing: pre-exec phase only (-EPERM elsewhere). */
        const char *const *(*plan_argv)(struct stk_ctx *ctx);  /* the command itself */
        int (*plan_wrap)(struct stk_ctx *ctx, const char *const *prefix);
        int (*plan_setenv)(struct stk_ctx *ctx, const char *name, const char *value);
        int (*plan_unsetenv)(struct stk_ctx *ctx, const char *name);
        int (*plan_bind)(struct stk_ctx *ctx, const char *source, const char *dest, unsigned flags);
        const struct stk_bind *(*plan_binds)(struct stk_ctx *ctx, size_t *ret_n);
        /* Keep `fd` open across exec into the command; the core dup()s it and
         * returns the number it will have in the child (>= 3), or -errno. */
        int (*plan_pass_fd)(struct stk_ctx *ctx, int fd);
        /* Execute the outermost wrapper through this open fd (fexecve) rather
         * than by argv[0]'s path, so a binary checked by the module is the one
         * that runs.  The core dup()s it with O_CLOEXEC. */
        int (*plan_exec_fd)(struct stk_ctx *ctx, int fd);

        /* Ask the approval hooks (stack order, first answer decides). */
        int (*ask)(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict);

        /* Supervisor event loop (epoll, level-triggered): call cb when fd is
         * ready, until unwatched.  Watching an fd again changes its events and
         * callback (ABI 1.2; 1.1 returned -EEXIST).  Valid from pre-exec until
         * the command ends.  A callback may see a spurious wake-up (an fd
         * closed and reused within one round): use non-blocking fds. */
        int (*watch_fd)(struct stk_ctx *ctx, int fd, unsigned events, stk_watch_cb cb, void *userdata);
        int (*unwatch_fd)(struct stk_ctx *ctx, int fd);

        /* Record one decision or event in the audit log: `kind` is a short
         * word ("egress", "approval"), `json_fields` a JSON object text with
         * the record's own fields, or NULL. */
        int (*audit)(struct stk_ctx *ctx, const char *kind, const char *json_fields);

        /* ABI 1.1.  The phase of this line (a module listed in two phases
         * enforces in one of them, and says so in probe). */
        enum stk_phase (*line_phase)(struct stk_ctx *ctx);

        /* ABI 1.1.  stk_cover bits already in force from the lines that took
         * effect before this one (a fallback module steps aside when a
         * stronger one got there first). */
        uint32_t (*covered)(struct stk_ctx *ctx);

        /* ABI 1.1.  In-sandbox only: hand `fd` (a seccomp listener, say) to
         * this module's supervise_fd hook in the supervisor, before the
         * command starts.  The caller keeps its own fd and closes it. */
        int (*send_fd)(struct stk_ctx *ctx, int fd);

        /* ABI 1.2.  Pre-exec only: publish the egress proxy's loopback TCP
         * port (1..65535) in settings->proxy_port for the lines after this one
         * and for the in-sandbox phase. */
        int (*plan_proxy)(struct stk_ctx *ctx, int port);

        /* ABI 1.2.  Supervisor only: decide one destination with the stack's
         * egress lines; an ASK goes on to the approval hooks (or is DENY under
         * `approval: never`).  Writes ALLOW or DENY and the name of what
         * decided (valid for the run); every decision is audited. */
        int (*egress_decide)(struct stk_ctx *ctx, const struct stk_egress *req, enum stk_verdict *ret_verdict,
                             const char **ret_decider);

        /* ABI 1.4.  Prepare only (supervisor): hand this line's in-sandbox
         * hook `len` bytes, once.  The core copies them.  STK_HANDOFF_MAX is
         * what all lines of a run may hand over together (-E2BIG beyond). */
        int (*handoff)(struct stk_ctx *ctx, const void *data, size_t len);

        /* ABI 1.4.  In-sandbox only: what this line's prepare handed over.
         * Waits for the supervisor if it is not there yet.  0 with *ret_data
         * NULL: nothing was (no prepare, or one that handed nothing over);
         * -errno: prepare failed with it, and the in-sandbox hook must fail
         * too.  *ret_data stays valid until exec. */
        int (*handoff_take)(struct stk_ctx *ctx, const void **ret_data, size_t *ret_len);

        /* ABI 1.5.  Doctor hook only: begin one check of `stockade doctor`
         * for this module: a short name ("bwrap"), its status, and a
         * one-line summary.  -EPERM outside the doctor hook. */
        int (*doctor_check)(struct stk_ctx *ctx, enum stk_doctor_status status, const char *name,
                            const char *fmt, ...) __attribute__((format(printf, 4, 5)));
        /* ABI 1.5.  Doctor hook only: a field of the check begun last:
         * "cause", "fix" or "note" (printed under it), or a value of the
         * module's own (in --json only).  -EINVAL before any check. */
        int (*doctor_detail)(struct stk_ctx *ctx, const char *key, const char *fmt, ...)
                __attribute__((format(printf, 3, 4)));

        /* ABI 1.5.  The run's protected paths: every read-only island (the
         * policy's, the built-in protected names in each writable root, the
         * git surfaces, stockade's own files) and every hidden path,
         * absolute and canonical, NULL-terminated; never NULL.  What a
         * permission module checks a command's write targets against. */
        const char *const *(*protected_paths)(struct stk_ctx *ctx);

        /* ABI 1.5.  In-sandbox only, Linux: a compiled seccomp program
         * (`n_insns` struct sock_filter) whose calls go to the supervisor
         * (SECCOMP_RET_USER_NOTIF), with its SECCOMP_FILTER_FLAG_* (LOG).
         * A process holds one seccomp listener at most (a second filter
         * with one is EBUSY), so the core keeps these programs and, once
         * every in-sandbox line has run, loads them as one filter with one
         * listener: each call gets the action of the program that would
         * have won had they been loaded one after the other in stack order
         * (the first by precedence; a tie goes to the later line).  In the
         * supervisor each notification goes to the notify hooks of the
         * lines, in stack order, until one takes it.  The core copies the
         * program.  -EOPNOTSUPP elsewhere than Linux. */
        int (*seccomp_notify)(struct stk_ctx *ctx, const void *insns, size_t n_insns, unsigned flags);

        /* ABI 1.7.  Approve hook only: put `message` to the user of the
         * agent's client that started this run and wait for a yes or a no,
         * at most `timeout_ms`.  Under `stockade mcp` that is an MCP
         * elicitation (stockade-mcp(1)).  1: the user said yes; 0: no
         * (declined, cancelled); -ENOTCONN: no client here that can be
         * asked (not an MCP server, the client did not declare the
         * capability, or a question from the command's supervisor, which
         * has no client); -EPROTO: a malformed answer; -ETIMEDOUT; -EPIPE:
         * the client went away; other -errno.  Nothing is remembered. */
        int (*client_confirm)(struct stk_ctx *ctx, const char *message, int timeout_ms);
};

#define STK_HANDOFF_MAX (64 * 1024)

struct stk_module {
        uint32_t magic;
        uint16_t abi_major;
        uint16_t abi_minor;
        uint32_t size;
        const char *name;    /* must equal the file's base name */
        const char *summary; /* one line, for explain and doctor */
        const struct stk_arg_spec *args;
        uint32_t covers;     /* stk_cover bits this module can enforce */

        /* Per-run state: init once per run for all lines naming the module;
         * fini gets what init returned (even if the run failed half-way). */
        int (*init)(struct stk_ctx *ctx, const struct stk_host *host, void **ret_data);
        void (*fini)(void *data);

        /* What this module can enforce here, with these settings and args;
         * -errno (and a log line saying why) if it cannot run on this machine. */
        int (*probe)(struct stk_ctx *ctx, uint32_t *ret_covers);

        int (*permission)(struct stk_ctx *ctx, const struct stk_request *req, enum stk_verdict *ret_verdict);
        int (*pre_exec)(struct stk_ctx *ctx);
        int (*in_sandbox)(struct stk_ctx *ctx);
        int (*egress)(struct stk_ctx *ctx, const struct stk_egress *req, enum stk_verdict *ret_verdict);
        /* Approval: answer a question, or STK_IGNORE to pass it on. */
        int (*approve)(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict);

        /* ABI 1.1.  What this line would do here, exactly (a generated profile,
         * an argv, a rule set), for review with `stockade explain --details`.
         * *ret_text is malloc()ed; the core frees it. */
        int (*explain)(struct stk_ctx *ctx, char **ret_text);

        /* ABI 1.1.  In the supervisor: an fd this module's in-sandbox hook
         * sent with host->send_fd.  The module owns it from here (typically
         * host->watch_fd).  On failure the core closes it. */
        int (*supervise_fd)(struct stk_ctx *ctx, int fd);

        /* ABI 1.4.  In the supervisor, for an in-sandbox line, right after
         * the child is forked, while the wrapper starts and the lines before
         * this one apply: work the in-sandbox hook would do that needs
         * nothing from inside (compiling a filter), done beside it on
         * another CPU rather than before it.  The result goes over with
         * host->handoff; in_sandbox takes it with host->handoff_take.  A
         * failure (-errno) reaches in_sandbox as handoff_take's result: the
         * command never runs.  Not called for runs that stop before the
         * child (explain, check, a denied command). */
        int (*prepare)(struct stk_ctx *ctx);

        /* ABI 1.5.  `stockade doctor`: what this module finds on this
         * machine (its binary and version, the kernel features it needs),
         * reported with host->doctor_check and host->doctor_detail.  Called
         * on the context of the module's line in a profile, with that
         * line's arguments and settings, WITHOUT init: host->data is NULL,
         * so the hook keeps `host` itself.  It changes nothing; a failure
         * to report (-errno) is a failed check of the core's own. */
        int (*doctor)(struct stk_ctx *ctx, const struct stk_host *host);

        /* ABI 1.5.  In the supervisor: one call that a program given to
         * host->seccomp_notify sent.  `req` is the kernel's struct
         * seccomp_notif, `resp` its struct seccomp_notif_resp with the id
         * set; `listener` is for SECCOMP_IOCTL_NOTIF_ADDFD and ID_VALID.
         * 0: resp is filled (error, val, flags) and the core sends it;
         * 1: not this line's call, the next line's hook is asked (no line
         * takes it: ENOSYS); -errno: the call fails with it.
         * ABI 1.8: STK_NOTIFY_LATER: the hook keeps the call and answers it
         * itself, later (SECCOMP_IOCTL_NOTIF_SEND, or NOTIF_ADDFD with
         * SECCOMP_ADDFD_FLAG_SEND), or drops it once NOTIF_ID_VALID says the
         * caller is gone; the core sends nothing.  For a call that must wait
         * on something else (a FIFO's reader) without stalling the others.
         * Only where host->abi_minor >= 8: an older core fails the call. */
        int (*notify)(struct stk_ctx *ctx, int listener, const void *req, void *resp);
};

/* A notify hook's "answered later, by me" (ABI 1.8). */
#define STK_NOTIFY_LATER 2

#define STK_MODULE_HEADER(n)                      \
        .magic = STK_MODULE_MAGIC,                \
        .abi_major = STK_ABI_MAJOR,               \
        .abi_minor = STK_ABI_MINOR,               \
        .size = sizeof(struct stk_module),        \
        .name = (n)

#ifdef __cplusplus
}
#endif

#endif /* STOCKADE_MODULE_H */
