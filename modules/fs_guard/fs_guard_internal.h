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

/* ---- fs_guard_grant.c: what Landlock grants beneath the writable roots ---- */
struct fg_grants {
        char **v;   /* sorted: the paths whose entry carries a write rule */
        size_t n, cap;
};
/* The writable roots' entries as fs_landlock grants them with these
 * settings (read_only, hide: the protected paths); 0 or -ENOMEM. */
int fg_grants_snapshot(struct fg_grants *g, const char *const *write, const char *const *read_only,
                       const char *const *hide);
/* `path` (canonical) is one of them or beneath one: the kernel grants
 * writes there, unless it was renamed or removed since (fg_grants_forget). */
bool fg_grants_cover(const struct fg_grants *g, const char *path);
/* `path` and what is beneath it are renamed or removed: no longer known. */
void fg_grants_forget(struct fg_grants *g, const char *path);
void fg_grants_free(struct fg_grants *g);
/* `p` is a protected path (an island, a hidden path) or beneath one;
 * `dir` holds one strictly beneath it. */
bool fg_beneath_protected(const char *p, const char *const *read_only, const char *const *hide);
bool fg_holds_protected(const char *dir, const char *const *read_only, const char *const *hide);

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
        /* A FIFO open for writing that must wait for a reader: kept, and
         * answered later (FG_LATER), or -errno (may be NULL: no waiting,
         * ENXIO). */
        int (*fifo_wait)(void *userdata, int listener, uint64_t id, int fifo, int flags);
        /* Where Landlock grants writes: answered CONTINUE (may be NULL). */
        struct fg_grants *grants;
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
/* Kept, to be answered later (fs_guard_fifo.c). */
#define FG_LATER 2
int fg_top_call(int listener, const struct seccomp_notif *req, const struct fg_policy *pol, long *ret_val);
/* Put `fd` (ours, closed here) into the command for the call `req`:
 * *ret_val is its number there. */
int fg_hand_over(int listener, const struct seccomp_notif *req, int fd, int flags, long *ret_val);

/* ---- fs_guard_fifo.c: FIFOs opened for writing ---------------------------- */
struct fg_fifo_wait;
/* The open of the FIFO `fifo` (an O_PATH fd of ours, checked) for the
 * call: handed over, FG_LATER (pol->fifo_wait kept it), FG_CONTINUE, or
 * -errno. */
int fg_fifo_open(int listener, const struct seccomp_notif *req, int fifo, int flags, const struct fg_policy *pol,
                 long *ret_val);
/* Keep the call on `list` (a copy of `fifo` with it). */
int fg_fifo_keep(struct fg_fifo_wait **list, int listener, uint64_t id, int fifo, int flags);
/* Try every kept call again: answered, dropped (its caller gone), or
 * kept; the microseconds until the next try, 0 when none is left.
 * *ret_error: an answer the listener refused (-errno), else 0. */
unsigned fg_fifo_retry(struct fg_fifo_wait **list, int *ret_error);
void fg_fifo_drop_all(struct fg_fifo_wait **list);
/* Answer every kept call with `error` (-errno), and drop it. */
void fg_fifo_fail_all(struct fg_fifo_wait **list, int error);
/* A one-shot timerfd `us` from now (0: disarmed). */
int fg_timer_arm(int timer, unsigned us);

/* ---- fs_guard_top.c: what fs_guard_shm.c shares of it --------------------- */
enum top_op { T_OPEN, T_MKDIR, T_MKNOD, T_SYMLINK, T_UNLINK, T_RENAME, T_LINK, T_TRUNCATE, T_BIND };

/* One end of the call: a directory fd (or AT_FDCWD) and the command's path. */
struct end {
        int dirfd;
        uint64_t addr;
        char path[PATH_MAX];
        int base;               /* where the path starts (root, cwd, dirfd), ours; -1 */
        int parent;             /* O_PATH of its directory, ours; -1 */
        bool parent_is_base;    /* a plain name: its directory is where it starts */
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
/* The existing file we hold as `target` (checked), opened again for the
 * command with its flags and handed over (*ret_val), or truncated. */
int fg_reopen(int listener, const struct seccomp_notif *req, const struct top_call *c, int target, long *ret_val);


mode_t file_mode(pid_t pid, mode_t mode);
int open_for_command(int dirfd, const char *path, int flags, mode_t mode);

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
