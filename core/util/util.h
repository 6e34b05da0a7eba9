/* SPDX-License-Identifier: MIT */
/* The core's own helpers beside lib/common: its log, canonical paths, fds. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/stk_path.h"
#include "common/stk_strv.h"
#include "common/stk_util.h"
#include "stockade/module.h"

/* log.c: the core's own messages (modules log through their host table). */
void core_log(enum stk_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *core_log_level_name(enum stk_log_level level);
extern int core_log_level;
/* Whether a line of this level is printed now (the level, then the rate
 * limit for warnings and info); a line that passes after suppressed ones
 * is preceded by their count.  core_log_end: the count of the last
 * suppressed ones, said, and the total suppressed (the audit summary). */
bool core_log_admit(enum stk_log_level level);
uint64_t core_log_end(void);

/* Path helpers. */
/* realpath() of the longest existing prefix, plus the rest; -errno */
int path_canonicalize(const char *path, char **ret);
/* Between these two, path_canonicalize() remembers the directories it made
 * canonical (a policy's load: core_policy_load). */
void path_memo_begin(void);
void path_memo_end(void);
/* The same for the parent; the last component is kept as written (a final
 * symlink stays the link). */
int path_canonicalize_parent(const char *path, char **ret);

/* Every fd from `from` upward is closed except those in keep[] (n_keep). */
int close_fds_except(int from, const int *keep, size_t n_keep);

/* An audit destination (stockade.yaml(5), audit): a file, or a sink named
 * "syslog" / "journal", optionally with ":/absolute/socket".  Returns the
 * kind and sets *ret_socket to the socket (the default when none is
 * given), or -EINVAL for a sink whose socket is not an absolute path. */
enum core_audit_kind { CORE_AUDIT_FILE, CORE_AUDIT_SYSLOG, CORE_AUDIT_JOURNAL };
int core_audit_kind(const char *spec, const char **ret_socket);

/* build_tree.c (compiled twice, mk/core.mk): the build tree of a
 * development build run from it, else NULL; an installed binary has none. */
const char *core_build_tree(void);
bool core_running_from_build_tree(void);
