/* SPDX-License-Identifier: MIT */
/*
 * stk_trust.h - the one rule for every file stockade reads or runs as
 * authority: a policy layer, a module, the approvals store, a helper binary.
 *
 * A file (or directory) is trusted when it is owned by root or by the user
 * stockade runs as, and neither its group nor others may write it: anyone
 * else who could rewrite it would decide what the next run enforces, or run
 * code outside the sandbox with our privileges.  An ancestor directory may
 * also be root-owned with the sticky bit (/tmp, /var/tmp): there nobody
 * can rename or replace another user's entry.
 *
 * Always on an open fd (fstat), never on a path a second look could see
 * changed.
 */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

enum stk_trust_flags {
        STK_TRUST_REGULAR    = 1u << 0, /* must be a regular file */
        STK_TRUST_DIRECTORY  = 1u << 1, /* must be a directory */
        STK_TRUST_EXECUTABLE = 1u << 2, /* a regular file with an execute bit */
        STK_TRUST_STICKY_OK  = 1u << 3, /* a root-owned sticky directory passes (an ancestor) */
        STK_TRUST_OWNER_ONLY = 1u << 4, /* owned by `uid` itself: root's is not enough (private state) */
};

/* 0, or -EPERM (-EACCES for the wrong kind of file) with *ret_why a static
 * sentence ("writable by group or others") for the caller's message. */
int stk_trust_stat(const struct stat *st, uid_t uid, unsigned flags, const char **ret_why);
/* fstat(fd) and stk_trust_stat; -errno of fstat. */
int stk_trust_fd(int fd, uid_t uid, unsigned flags, const char **ret_why);
/* Every directory from `path`'s parent up to / (path itself not included),
 * opened O_PATH|O_NOFOLLOW one component at a time from /, each checked
 * with STK_TRUST_DIRECTORY | STK_TRUST_STICKY_OK.  On failure *ret_dir (if
 * non-NULL) gets a malloc()ed copy of the directory that failed.  `path`
 * must be canonical (realpath): a symlink on the way is refused. */
int stk_trust_ancestors(const char *path, uid_t uid, char **ret_dir, const char **ret_why);
