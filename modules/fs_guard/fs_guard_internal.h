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
