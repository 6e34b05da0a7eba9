/* SPDX-License-Identifier: MIT */
/* fs_guard internals, shared with its CUnit tests (not exported). */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * kept; the microseconds until the next try, 0 when none is left. */
unsigned fg_fifo_retry(struct fg_fifo_wait **list);
void fg_fifo_drop_all(struct fg_fifo_wait **list);
/* Answer every kept call with `error` (-errno), and drop it. */
void fg_fifo_fail_all(struct fg_fifo_wait **list, int error);
/* A one-shot timerfd `us` from now (0: disarmed). */
int fg_timer_arm(int timer, unsigned us);
