/* SPDX-License-Identifier: MIT */
/*
 * fs_guard's filter: the calls its supervisor side answers (guard_attr,
 * guard_top) as SECCOMP_RET_USER_NOTIF, a few it refuses outright, and
 * nothing else (default allow).  Not loaded here: the unit tests build it
 * without confining themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <string.h>

#include "fs_guard_internal.h"

#define LOW32 0xffffffffULL

/* chmod, chown, timestamps and extended attributes: Landlock has no right
 * for file metadata, so the supervisor answers each (fs_guard_attr.c).
 * A call this architecture does not have (utime on aarch64) is skipped.
 * The *at2 variants (fchmodat2 in Linux 6.6, setxattrat and removexattrat
 * in 6.13, file_setattr in 6.17) are newer than what libc uses here:
 * ENOSYS makes a caller fall back to the calls above.  The numbers of the
 * 4xx range are the same on every architecture. */
static int add_attr_guard(scmp_filter_ctx f, fg_log_fn log, void *userdata)
{
        static const char *const calls[] = {
                "chmod", "fchmod", "fchmodat", "chown", "lchown", "fchown", "fchownat",
                "utime", "utimes", "futimesat", "utimensat",
                "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
        };
        static const struct { const char *name; int nr; } newer[] = {
                { "fchmodat2", 452 }, { "setxattrat", 463 }, { "removexattrat", 466 }, { "file_setattr", 469 },
        };
        /* The inode flags (chattr: append-only, no-dump, ...) and the
         * project id are metadata too, set by ioctl: refused (EPERM), in a
         * workspace as outside, for nothing a build needs sets them. */
        static const unsigned long flag_ioctls[] = {
                0x40086602UL, /* FS_IOC_SETFLAGS */
                0x40046602UL, /* FS_IOC32_SETFLAGS */
                0x401c5820UL, /* FS_IOC_FSSETXATTR */
        };
        int r = 0;

        for (size_t i = 0; r >= 0 && i < sizeof(calls) / sizeof(calls[0]); i++) {
                int nr = seccomp_syscall_resolve_name(calls[i]);
                if (nr == __NR_SCMP_ERROR)
                        continue; /* not on this architecture: nothing to guard */
                r = seccomp_rule_add(f, SCMP_ACT_NOTIFY, nr, 0);
                if (r < 0)
                        log(userdata, "seccomp_rule_add(%s, notify): %s", calls[i], strerror(-r));
        }
        for (size_t i = 0; r >= 0 && i < sizeof(flag_ioctls) / sizeof(flag_ioctls[0]); i++)
                r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                                     SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, flag_ioctls[i]));
        for (size_t i = 0; r >= 0 && i < sizeof(newer) / sizeof(newer[0]); i++) {
                int nr = seccomp_syscall_resolve_name(newer[i].name);
                r = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), nr == __NR_SCMP_ERROR ? newer[i].nr : nr, 0);
                if (r < 0)
                        log(userdata, "seccomp_rule_add(%s, ENOSYS): %s", newer[i].name, strerror(-r));
        }
        return r;
}

/* guard_top (fs_guard_top.c): what makes, removes, renames or links a
 * directory entry, and every open that may write (O_WRONLY, O_RDWR,
 * O_CREAT, O_TRUNC: one rule a bit, rules are ORed), so that the supervisor
 * can make them beneath a writable root and answer CONTINUE elsewhere.
 * openat2 hides its flags in a struct, so every call of it.  An open for
 * reading never comes here. */
static int add_top_guard(scmp_filter_ctx f, fg_log_fn log, void *userdata)
{
        static const char *const calls[] = {
                "creat", "openat2", "mkdir", "mkdirat", "mknod", "mknodat", "symlink", "symlinkat", "link", "linkat",
                "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "truncate", "bind",
        };
        static const unsigned writes[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };
        int r = 0, nr, open_nr = seccomp_syscall_resolve_name("open");

        for (size_t i = 0; r >= 0 && i < sizeof(calls) / sizeof(calls[0]); i++) {
                nr = seccomp_syscall_resolve_name(calls[i]);
                if (nr != __NR_SCMP_ERROR)
                        r = seccomp_rule_add(f, SCMP_ACT_NOTIFY, nr, 0);
        }
        for (size_t i = 0; r >= 0 && i < sizeof(writes) / sizeof(writes[0]); i++) {
                if (open_nr != __NR_SCMP_ERROR)
                        r = seccomp_rule_add(f, SCMP_ACT_NOTIFY, open_nr, 1,
                                             SCMP_A1(SCMP_CMP_MASKED_EQ, writes[i], writes[i]));
                if (r >= 0)
                        r = seccomp_rule_add(f, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
                                             SCMP_A2(SCMP_CMP_MASKED_EQ, writes[i], writes[i]));
        }
        /* A lease would make the supervisor's open of that file wait until
         * it broke (45 s), and every other guarded call behind it. */
        if (r >= 0)
                r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(fcntl), 1,
                                     SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETLEASE));
        if (r < 0)
                log(userdata, "seccomp_rule_add(guard_top): %s", strerror(-r));
        return r;
}

int fg_build(const struct fg_opts *o, scmp_filter_ctx *ret, fg_log_fn log, void *userdata)
{
        scmp_filter_ctx f;
        int r;

        if (!o->guard_attr && !o->guard_top)
                return -ENOENT;
        f = seccomp_init(SCMP_ACT_ALLOW);
        if (!f)
                return -ENOMEM;
        /* A foreign ABI (i386 through int 0x80, x32) is not in the filter:
         * every call of it is refused, so none of ours can be made there
         * unseen. */
        r = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
        if (r >= 0)
                r = seccomp_attr_set(f, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        if (r >= 0 && o->log && seccomp_attr_set(f, SCMP_FLTATR_CTL_LOG, 1) < 0)
                log(userdata, "seccomp_attr_set(CTL_LOG): kernel or libseccomp too old");
        if (r < 0)
                log(userdata, "seccomp_attr_set: %s", strerror(-r));
        if (r >= 0 && o->guard_attr)
                r = add_attr_guard(f, log, userdata);
        if (r >= 0 && o->guard_top)
                r = add_top_guard(f, log, userdata);
        if (r < 0) {
                seccomp_release(f);
                return r;
        }
        *ret = f;
        return 0;
}

int fg_compile(const struct fg_opts *o, struct stk_sc_prog *ret, fg_log_fn log, void *userdata)
{
        scmp_filter_ctx f;
        int r = fg_build(o, &f, log, userdata);

        if (r < 0)
                return r;
        r = stk_sc_compile(f, (o->log ? SECCOMP_FILTER_FLAG_LOG : 0) | SECCOMP_FILTER_FLAG_NEW_LISTENER, ret);
        seccomp_release(f);
        if (r < 0)
                log(userdata, "seccomp_export_bpf: %s", strerror(-r));
        return r;
}
