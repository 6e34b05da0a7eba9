/* SPDX-License-Identifier: MIT */
/* net_seccomp internals, shared with its CUnit tests (not exported). */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stockade/module.h"
#include "seccomp/stk_seccomp.h"

/* What `allow:` may switch off, one name per group of table entries. */
enum ns_group {
        NS_G_NETWORK = 0, /* follows settings.network, never `allow:`-able */
        NS_G_PTRACE,
        NS_G_PROCESS_VM,
        NS_G_IO_URING,
        NS_G_TTY_INJECT,
        NS_G_KEYRING,
        NS_G_BPF,
        NS_G_PERF,
        NS_G_USERFAULTFD,
        NS_G_NAMESPACES,
        NS_G_MOUNT,
        NS_G_KEXEC,
        NS_G_KERNEL_MODULES,
        NS_G_PERSONALITY,
        NS_G_OPEN_BY_HANDLE,
        NS_G_IPC,         /* only without an IPC namespace (STK_COVER_IPC of a wrapper) */
        NS_G_MAX
};

/* How an entry matches its syscall's arguments. */
enum ns_kind {
        NS_ALL = 1,     /* whatever the arguments */
        NS_ANY_BIT,     /* arg has any bit of `mask` set (one rule per bit) */
        NS_EQ32,        /* the low 32 bits of arg equal values[0] */
        NS_NOT_IN,      /* (arg & mask) is none of values[] */
        NS_PERSONA,     /* the low 32 bits of arg are neither 0 nor 0xffffffff */
};

#define NS_MODE(m) (1u << (m))
/* Network off, with IP already kept off the host network by a line before
 * ours (fs_bwrap's network namespace, holding only loopback): a mode of
 * the table's own. */
#define NS_MODE_OFF_CONTAINED (1u << 8)
#define NS_ALL_MODES (NS_MODE(STK_NET_OFF) | NS_MODE_OFF_CONTAINED | NS_MODE(STK_NET_PROXY) | NS_MODE(STK_NET_ON))

struct ns_entry {
        enum ns_group group;
        const char *syscall;
        unsigned modes;          /* NS_MODE() bits of the network modes it applies in */
        enum ns_kind kind;
        unsigned arg;
        uint64_t mask;
        uint64_t values[4];
        unsigned n_values;
        int pre;                 /* also only when the low 32 bits of pre_arg == pre_value */
        unsigned pre_arg;
        uint64_t pre_value;
        int err;                 /* errno the caller sees */
        int notify;              /* the supervisor gives `err`, and tells the user once (guard_unix) */
        const char *reason;
};

extern const struct ns_entry ns_table[];
extern const size_t ns_table_len;
extern const char *const ns_group_names[NS_G_MAX];

/* `allow:` names -> group bits; -EINVAL (and *ret_bad) for an unknown or
 * non-allowable name. */
int ns_parse_allow(const char *const *names, uint32_t *ret_groups, const char **ret_bad);

struct ns_opts {
        enum stk_network network;
        uint32_t allowed_groups;  /* bit (1 << enum ns_group) */
        int log;
        int guard_unix;           /* connect() goes to the supervisor (network off or proxy) */
        int ipc_isolated;         /* a wrapper gave the command its own IPC namespace: no NS_G_IPC */
        int ip_contained;         /* lines before ours keep TCP and every other family off the host
                                   * network (a namespace of its own): network off allows IP there */
};

/* The table's mode bit for these options. */
unsigned ns_mode_of(const struct ns_opts *o);

typedef void (*ns_log_fn)(void *userdata, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A ready filter (not loaded) for these options, or -errno; on failure
 * `log` says which entry. */
int ns_build(const struct ns_opts *o, scmp_filter_ctx *ret, ns_log_fn log, void *userdata);

/* Compile (in the supervisor, where memory is warm and nothing is
 * confined yet); load with stk_sc_load (in the child). */
int ns_compile(const struct ns_opts *o, struct stk_sc_prog *ret, ns_log_fn log, void *userdata);

/* ---- net_seccomp_unix.c: the supervisor's side of guard_unix ------------- */

/* What the settings let the command reach through a pathname socket. */
struct ns_unix_policy {
        const char *const *write;     /* writable roots */
        const char *const *read_only; /* islands inside them */
        const char *const *hide;
        const char *const *allow;     /* sockets reachable wherever they are (unix_allow) */
        enum stk_network network;
        int proxy_port;               /* mode proxy: the only TCP destination, on 127.0.0.1 */
        bool ip_contained;            /* ns_opts.ip_contained: a socket in a network namespace not
                                       * ours is connected as asked */
        /* Told of a network call refused by the network mode, for the
         * user's one notice (may be NULL). */
        void (*refused)(void *userdata, const char *what);
        void *userdata;
        bool wrapped;                 /* a namespace wrapper took effect: a mount namespace
                                       * of the command's is its, and its mounts decide */
};

struct seccomp_notif;
struct seccomp_notif_resp;
/* Answer one pending notification on `listener` (an ABI 1.4 core: the
 * listener is ours): 0 done (or nothing pending), 1 when no filtered
 * process is left, -errno when the listener itself failed. */
int ns_unix_handle(int listener, const struct ns_unix_policy *pol);
/* One notification (ABI 1.5: the core received it): 1 when it is not a
 * connect, else 0 with `resp` filled. */
int ns_unix_answer(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol,
                   struct seccomp_notif_resp *resp);

/* `stockade doctor` (net_seccomp_doctor.c, ABI 1.5). */
int ns_doctor(struct stk_ctx *ctx, const struct stk_host *host);
