/* SPDX-License-Identifier: MIT */
/* lib/seccomp (stk_seccomp.c): shared by the modules whose supervisor
 * answers the command's system calls.  Linux only. */
#pragma once

#include <linux/capability.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stockade/module.h"

/* A filter compiled to BPF by libseccomp, ready for seccomp(2). */
struct stk_sc_prog {
        struct sock_filter *insns;
        unsigned short len;
        unsigned flags;  /* SECCOMP_FILTER_FLAG_* */
};
/* libseccomp 2.5 exports BPF only to an fd: a memfd, read back. */
int stk_sc_export(scmp_filter_ctx f, struct stk_sc_prog *ret);
/* stk_sc_export with `flags`; *ret untouched on failure. */
int stk_sc_compile(scmp_filter_ctx f, unsigned flags, struct stk_sc_prog *ret);
/* Load it (in the child: two syscalls, no allocation): 0, or the listener
 * fd with SECCOMP_FILTER_FLAG_NEW_LISTENER; -errno. */
int stk_sc_load(const struct stk_sc_prog *p);
void stk_sc_prog_done(struct stk_sc_prog *p);

/* Whether the process shares our namespace of kind `ns` ("mnt", "net"). */
bool stk_sc_same_ns(pid_t pid, const char *ns);
/* Whether path `p` is one of `roots` or beneath one. */
bool stk_sc_beneath_any(const char *p, const char *const *roots);
/* What our `fd` is open on, as /proc/self/fd/N says ("/a/b", "pipe:[..]");
 * -1 when it cannot say. */
int stk_sc_fd_path(int fd, char *buf, size_t size);
/* The command's open file `fd` as a descriptor of ours; -ESRCH or -EBADF. */
int stk_sc_fd_of(pid_t pid, int fd);
/* The command's string at `addr`, copied once; -EFAULT, -ENAMETOOLONG. */
int stk_sc_read_path(pid_t pid, uint64_t addr, char *buf, size_t size);
/* `path` as the command would resolve it (its root, its cwd or dirfd),
 * opened O_PATH by us; -errno. */
int stk_sc_open_target(pid_t pid, int dirfd, const char *path, bool follow);
/* Its two halves, for a caller that resolves two paths from one start:
 * where a path of the command's starts (its root for an absolute one, its
 * cwd, or its `dirfd`), opened by us; then `path` (absolute or relative,
 * as given to the first) from there. */
int stk_sc_open_base(pid_t pid, int dirfd, bool absolute);
int stk_sc_open_from(int base, const char *path, bool follow);

/* Our effective capabilities off while we act for the command (which has
 * none), and back on. */
struct stk_sc_caps {
        struct __user_cap_data_struct data[2];
        bool dropped;
};
int stk_sc_caps_off(struct stk_sc_caps *saved);
void stk_sc_caps_on(const struct stk_sc_caps *saved);

/* The writable roots and the writable binds at their own path, NULL-ended
 * (malloc()ed; the strings are the host's). */
int stk_sc_writable(const struct stk_host *host, struct stk_ctx *ctx, const char ***ret);
/* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on a listener (Linux 6.6; older: 0). */
int stk_sc_sync_wake_up(int listener);

/* A program compiled in prepare (the supervisor) handed to in_sandbox (the
 * child) with the options it was compiled for, so the child need not run
 * libseccomp again.  Whether the core can hand over (ABI 1.5). */
bool stk_sc_handoff_available(const struct stk_host *host);
/* Hand `prog` (consumed, whatever the result) over with `opts`. */
int stk_sc_handoff_give(const struct stk_host *host, struct stk_ctx *ctx, const void *opts, size_t opts_size,
                        struct stk_sc_prog *prog);
/* 1 and *ret filled: prepare's program, for options `same_opts` calls the
 * same as ours; 0: none usable (compile here); -errno: prepare failed, so
 * must we (-EBADMSG: a handoff of another shape). */
int stk_sc_handoff_take(const struct stk_host *host, struct stk_ctx *ctx, const void *opts, size_t opts_size,
                        bool (*same_opts)(const void *given, const void *ours), struct stk_sc_prog *ret);
