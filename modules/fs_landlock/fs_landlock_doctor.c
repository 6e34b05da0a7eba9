/* SPDX-License-Identifier: MIT */
/*
 * fs_landlock_doctor.c - `stockade doctor` for fs_landlock (ABI 1.5): the
 * kernel's Landlock ABI, what each ABI added, and which settings this
 * module can enforce at it (from the same table its probe uses,
 * ll_abi_covers, so the two cannot drift).
 */
#include <stdio.h>
#include <string.h>

#include "common/stk_util.h"
#include "fs_landlock_internal.h"

/* What each Landlock ABI added (Documentation/userspace-api/landlock.rst). */
static const char *const abi_added[] = {
        NULL, "filesystem rights", "refer", "truncate", "TCP bind/connect rules",
        "device ioctl", "abstract unix socket and signal scoping", "audit logging",
};

static void features(int abi, char *buf, size_t size)
{
        buf[0] = '\0';
        for (int i = 1; i <= abi && i < (int) ELEMENTSOF(abi_added); i++)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i > 1 ? ", " : "", abi_added[i]);
        if (abi >= (int) ELEMENTSOF(abi_added))
                snprintf(buf + strlen(buf), size - strlen(buf), ", and more than this stockade knows");
}

static void covers_text(int abi, char *buf, size_t size)
{
        uint32_t have = ll_abi_covers(abi);

        buf[0] = '\0';
        for (uint32_t bit = 1; bit && bit <= STK_COVER_LAST; bit <<= 1)
                if (have & bit)
                        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ", " : "", ll_cover_name(bit));
}

static void unavailable(struct stk_ctx *ctx, const struct stk_host *h, int err)
{
        if (err == EOPNOTSUPP) {
                h->doctor_check(ctx, STK_DOCTOR_WARN, "landlock", "Landlock is built into this kernel but disabled at boot");
                h->doctor_detail(ctx, "cause", "\"landlock\" is missing from the active LSM list");
                h->doctor_detail(ctx, "fix", "add landlock to the lsm= kernel boot parameter, keeping the LSMs already "
                                 "listed in /sys/kernel/security/lsm, then reboot");
        } else if (err == ENOSYS) {
                h->doctor_check(ctx, STK_DOCTOR_WARN, "landlock", "no Landlock: landlock_create_ruleset is ENOSYS");
                h->doctor_detail(ctx, "cause", "kernel older than 5.13 or built without CONFIG_SECURITY_LANDLOCK, "
                                 "or a seccomp filter answering ENOSYS");
                h->doctor_detail(ctx, "fix", "fs_landlock cannot run here; use fs_bwrap (or a kernel with Landlock)");
        } else {
                h->doctor_check(ctx, STK_DOCTOR_WARN, "landlock", "landlock_create_ruleset: %s", strerror(err));
                h->doctor_detail(ctx, "cause", "%s", err == EPERM ? "a seccomp filter (a container's profile?) refuses "
                                 "the Landlock syscalls" : "unexpected error from the kernel");
                h->doctor_detail(ctx, "fix", "%s", err == EPERM ? "allow landlock_create_ruleset, landlock_add_rule "
                                 "and landlock_restrict_self in the container's seccomp profile" : "fs_landlock cannot run here");
        }
        h->doctor_detail(ctx, "abi", "0");
}

int ll_doctor(struct stk_ctx *ctx, const struct stk_host *h)
{
        int abi = ll_kernel_abi();
        char what[256], covers[256];

        if (abi < 0) {
                unavailable(ctx, h, -abi);
                return 0;
        }
        features(abi, what, sizeof(what));
        covers_text(abi, covers, sizeof(covers));
        h->doctor_check(ctx, STK_DOCTOR_OK, "landlock", "Landlock ABI %d (%s)", abi, what);
        h->doctor_detail(ctx, "abi", "%d", abi);
        h->doctor_detail(ctx, "enforces", "%s", covers);
        if (abi < 4)
                h->doctor_detail(ctx, "note", "ABI < 4 has no TCP rules: network off then rests on net_seccomp or a "
                                 "network namespace");
        return 0;
}
