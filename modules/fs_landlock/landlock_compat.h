/* SPDX-License-Identifier: MIT */
/*
 * Landlock UAPI newer than the distribution's <linux/landlock.h>.
 *
 * Debian 12's header stops at ABI 2 (REFER) and its struct
 * landlock_ruleset_attr has only handled_access_fs.  The kernel's ABI is
 * append-only and versioned by landlock_create_ruleset(NULL, 0,
 * LANDLOCK_CREATE_RULESET_VERSION), so defining the later constants here is
 * safe: fs_landlock_sys.c only uses a right once the running kernel reports an
 * ABI that has it.  Values from include/uapi/linux/landlock.h (Linux 6.15,
 * ABI 7) and Documentation/userspace-api/landlock.rst.
 *
 * Enum members (LANDLOCK_RULE_NET_PORT) and structs cannot be tested with
 * #ifndef, so they get our own names: LL_RULE_NET_PORT, struct ll_*.
 */
#pragma once

#include <linux/landlock.h>
#include <linux/types.h>
#include <sys/syscall.h>

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

#ifndef LANDLOCK_ACCESS_FS_REFER                 /* ABI 2 */
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE              /* ABI 3 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV             /* ABI 5 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

#ifndef LANDLOCK_ACCESS_NET_BIND_TCP             /* ABI 4 */
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif

#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET      /* ABI 6 */
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF /* ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#endif

/* enum landlock_rule_type: LANDLOCK_RULE_NET_PORT = 2 (ABI 4). */
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* struct landlock_ruleset_attr as of ABI 6.  Passing the whole struct to an
 * older kernel is fine as long as the fields it does not know are zero
 * (copy_struct_from_user() rejects only non-zero trailing bytes). */
struct ll_ruleset_attr {
        __u64 handled_access_fs;
        __u64 handled_access_net; /* ABI 4 */
        __u64 scoped;             /* ABI 6 */
};

/* struct landlock_net_port_attr (ABI 4). */
struct ll_net_port_attr {
        __u64 allowed_access;
        __u64 port;
};

/* Same numbers on every architecture (unified syscall table since 5.13). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
