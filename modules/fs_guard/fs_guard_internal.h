/* SPDX-License-Identifier: MIT */
/* fs_guard internals, shared with its CUnit tests (not exported). */
#pragma once

#include <limits.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stockade/module.h"
#include "seccomp/stk_seccomp.h"

struct fg_opts {
        int log;
        int guard_attr;           /* chmod/chown/times/xattrs go to the supervisor (fs_guard_attr.c) */
        int guard_top;            /* entries beneath writable roots: the supervisor (fs_guard_top.c) */
};

typedef void (*fg_log_fn)(void *userdata, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The filter for these options (not loaded), or -errno; with neither guard
 * there is none: -ENOENT. */
int fg_build(const struct fg_opts *o, scmp_filter_ctx *ret, fg_log_fn log, void *userdata);
int fg_compile(const struct fg_opts *o, struct stk_sc_prog *ret, fg_log_fn log, void *userdata);

/* The command's scratch entries in the host's /dev/shm (fs_guard_shm.c):
 * each a name it made there through the supervisor, and the inode the
 * name was made for. */
struct fg_shm_entry {
        char name[NAME_MAX + 1];
        dev_t dev;
        ino_t ino;
};
struct fg_shm {
        struct fg_shm_entry *v;
        size_t n, cap;
        int dir;                      /* O_PATH of the /dev/shm they were made in; -1 */
};

/* What the settings let the command change. */
struct fg_policy {
        const char *const *write;     /* writable roots (and writable binds at their path) */
        const char *const *read_only; /* islands inside them */
        const char *const *hide;
        bool wrapped;                 /* a namespace wrapper took effect: a mount namespace
                                       * of the command's is its, and its mounts decide */
        /* private_tmp without a wrapper: the host's /tmp stays read-only
         * (Landlock) and the command's temporary directory is $TMPDIR; told
         * of an entry refused there, for the user's one notice (may be NULL). */
        const char *host_tmp;
        void (*host_tmp_refused)(void *userdata, const char *path);
        void *userdata;
        /* host_shm without a wrapper: the run's entries in /dev/shm; NULL
         * when off. */
        struct fg_shm *shm;
};

struct seccomp_notif;

/* ---- fs_guard_attr.c: guard_attr ----------------------------------------- */
bool fg_attr_is_guarded(int nr);
/* Done for the command if it may: 0 or -errno for it. */
int fg_attr_call(int listener, const struct seccomp_notif *req, const struct fg_policy *pol);

/* ---- fs_guard_top.c: guard_top ------------------------------------------- */
bool fg_top_is_guarded(int nr);
/* Done for the command: 0 (the call returns *ret_val: a new fd, or 0) or
 * -errno for it to see; FG_CONTINUE when the kernel (and Landlock) should
 * decide. */
#define FG_CONTINUE 1
int fg_top_call(int listener, const struct seccomp_notif *req, const struct fg_policy *pol, long *ret_val);

/* ---- fs_guard_top.c: what fs_guard_shm.c shares of it --------------------- */
enum top_op { T_OPEN, T_MKDIR, T_MKNOD, T_SYMLINK, T_UNLINK, T_RENAME, T_LINK, T_TRUNCATE, T_BIND };

/* One end of the call: a directory fd (or AT_FDCWD) and the command's path. */
struct end {
        int dirfd;
        uint64_t addr;
        char path[PATH_MAX];
        int parent;             /* O_PATH of its directory, ours; -1 */
        char parent_path[PATH_MAX];
        const char *leaf;       /* into path */
        bool slash;             /* the path ended in "/": a directory only */
        bool copied;            /* path holds the name already (bind's, from its address) */
};

struct top_call {
        enum top_op op;
        struct end a, b;        /* b: the new name of a rename or link */
        off_t length;           /* truncate */
        uint64_t target;        /* symlink: the link's text */
        int flags;              /* open flags, AT_REMOVEDIR, rename flags */
        mode_t mode;
        dev_t dev;
};

mode_t file_mode(pid_t pid, mode_t mode);
int open_for_command(int dirfd, const char *path, int flags, mode_t mode);
int hand_over(int listener, const struct seccomp_notif *req, int fd, int flags, long *ret_val);
bool protected(const char *p, const struct fg_policy *pol);

/* ---- fs_guard_shm.c: host_shm --------------------------------------------- */
/* Each FG_CONTINUE when the call is not about the run's own entries in
 * /dev/shm (then the kernel and Landlock decide, as before); else done for
 * the command: 0 or -errno.  A new name: */
int fg_shm_open_new(int listener, const struct seccomp_notif *req, const struct top_call *c,
                    const struct fg_policy *pol, long *ret_val);
/* An existing file, `target` our O_PATH fd of what the command named: */
int fg_shm_open_existing(int listener, const struct seccomp_notif *req, const struct top_call *c, int target,
                         const struct fg_policy *pol, long *ret_val);
/* unlink, link, rename (both ends opened by open_end): */
int fg_shm_decide(int listener, const struct seccomp_notif *req, const struct top_call *c,
                  const struct fg_policy *pol);
void fg_shm_init(struct fg_shm *set);
/* The run is over: every entry still its inode is unlinked; the set freed. */
void fg_shm_remove_all(struct fg_shm *set);
