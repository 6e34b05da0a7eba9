/* SPDX-License-Identifier: MIT */
/* net_seccomp internals, shared with its CUnit tests (not exported). */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stockade/module.h"

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
#define NS_ALL_MODES (NS_MODE(STK_NET_OFF) | NS_MODE(STK_NET_PROXY) | NS_MODE(STK_NET_ON))

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
        int guard_attr;           /* chmod/chown go to the supervisor (net_seccomp_attr.c) */
        int ipc_isolated;         /* a wrapper gave the command its own IPC namespace: no NS_G_IPC */
        int guard_top;            /* entries at a writable root's top level: the supervisor (net_seccomp_top.c) */
};

typedef void (*ns_log_fn)(void *userdata, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A ready filter (not loaded) for these options, or -errno; on failure
 * `log` says which entry. */
int ns_build(const struct ns_opts *o, scmp_filter_ctx *ret, ns_log_fn log, void *userdata);

/* A filter compiled to BPF by libseccomp, ready for seccomp(2). */
struct ns_prog {
        struct sock_filter *insns;
        unsigned short len;
        unsigned flags;  /* SECCOMP_FILTER_FLAG_* */
};

/* Compile (in the supervisor, where memory is warm and nothing is
 * confined yet); load (in the child: two syscalls, no allocation). */
int ns_compile(const struct ns_opts *o, struct ns_prog *ret, ns_log_fn log, void *userdata);
/* 0, or the listener fd when the filter sends calls to the supervisor. */
int ns_load(const struct ns_prog *p);
void ns_prog_done(struct ns_prog *p);

/* ---- net_seccomp_unix.c: the supervisor's side of guard_unix ------------- */

/* What the settings let the command reach through a pathname socket. */
struct ns_unix_policy {
        const char *const *write;     /* writable roots */
        const char *const *read_only; /* islands inside them */
        const char *const *hide;
        const char *const *allow;     /* sockets reachable wherever they are (unix_allow) */
        enum stk_network network;
        int proxy_port;               /* mode proxy: the only TCP destination, on 127.0.0.1 */
        bool wrapped;                 /* a namespace wrapper took effect: a mount namespace
                                       * of the command's is its, and its mounts decide */
};

/* Answer one pending notification on `listener`: connect for the command
 * when the socket is one it may reach, else refuse.  0 done (or nothing
 * pending), 1 when no filtered process is left, -errno when the listener
 * itself failed. */
int ns_unix_handle(int listener, const struct ns_unix_policy *pol);
/* Whether the process shares our namespace of kind `ns` ("mnt", "net"). */
bool ns_same_ns(pid_t pid, const char *ns);
/* The command's open file `fd` as a descriptor of ours; -ESRCH or -EBADF. */
int ns_fd_of(pid_t pid, int fd);
/* What our `fd` is open on, as /proc/self/fd/N says ("/a/b", "pipe:[..]");
 * -1 when it cannot say. */
int ns_fd_path(int fd, char *buf, size_t size);
/* Whether path `p` is one of `roots` or beneath one. */
bool ns_beneath_any(const char *p, const char *const *roots);

/* ---- net_seccomp_attr.c: the supervisor's side of guard_attr ------------- */
struct seccomp_notif;
bool ns_attr_is_guarded(int nr);
int ns_attr_call(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol);
/* The command's string at `addr`, copied once; -EFAULT, -ENAMETOOLONG. */
int ns_read_path(pid_t pid, uint64_t addr, char *buf, size_t size);
/* `path` as the command would resolve it (its root, its cwd or dirfd),
 * opened O_PATH by us; -errno. */
int ns_open_target(pid_t pid, int dirfd, const char *path, bool follow);

/* Our effective capabilities off while we act for the command (which has
 * none), and back on. */
#include <linux/capability.h>
struct ns_caps {
        struct __user_cap_data_struct data[2];
        bool dropped;
};
int ns_caps_off(struct ns_caps *saved);
void ns_caps_on(const struct ns_caps *saved);

/* ---- net_seccomp_top.c: the supervisor's side of guard_top ---------------- */
bool ns_top_is_guarded(int nr);
/* Done for the command: 0 (the call returns *ret_val: a new fd, or 0) or
 * -errno for it to see; NS_TOP_CONTINUE when the kernel (and Landlock)
 * should decide. */
#define NS_TOP_CONTINUE 1
int ns_top_call(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol, long *ret_val);

/* `stockade doctor` (net_seccomp_doctor.c, ABI 1.5). */
int ns_doctor(struct stk_ctx *ctx, const struct stk_host *host);
