/* SPDX-License-Identifier: MIT */
/*
 * net_seccomp_doctor.c - `stockade doctor` for net_seccomp (ABI 1.5):
 * whether seccomp filters can be loaded here, which actions the kernel
 * offers (user notification is what the supervisor-side guards need), and
 * whether doctor itself already runs under filters that stay in force for
 * every command.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "net_seccomp_internal.h"

/* "Seccomp:" and "Seccomp_filters:" of /proc/self/status; -1 when absent. */
static void seccomp_status(int *ret_mode, int *ret_filters)
{
        char line[256];
        FILE *f = fopen("/proc/self/status", "re");

        *ret_mode = *ret_filters = -1;
        while (f && fgets(line, sizeof(line), f)) {
                (void) sscanf(line, "Seccomp: %d", ret_mode); /* a non-matching line leaves the value */
                (void) sscanf(line, "Seccomp_filters: %d", ret_filters);
        }
        if (f)
                fclose(f);
}

static void actions_avail(char *buf, size_t size)
{
        FILE *f = fopen("/proc/sys/kernel/seccomp/actions_avail", "re");

        buf[0] = '\0';
        if (f && fgets(buf, (int) size, f))
                buf[strcspn(buf, "\n")] = '\0';
        if (f)
                fclose(f);
}

int ns_doctor(struct stk_ctx *ctx, const struct stk_host *h)
{
        char actions[512];
        int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0), err = errno, smode, filters;
        bool notif;

        if (mode < 0) {
                h->doctor_check(ctx, STK_DOCTOR_WARN, "seccomp", "no seccomp: prctl(PR_GET_SECCOMP): %s", strerror(err));
                h->doctor_detail(ctx, "cause", "kernel built without CONFIG_SECCOMP_FILTER");
                h->doctor_detail(ctx, "fix", "net_seccomp cannot run here; rely on a network namespace (fs_bwrap) "
                                 "for network off");
                return 0;
        }
        seccomp_status(&smode, &filters);
        actions_avail(actions, sizeof(actions));
        notif = strstr(actions, "user_notif") != NULL;
        h->doctor_check(ctx, notif ? STK_DOCTOR_OK : STK_DOCTOR_WARN, "seccomp", "seccomp filters available; actions: %s",
                        actions[0] ? actions : "(unknown: no /proc/sys/kernel/seccomp/actions_avail)");
        h->doctor_detail(ctx, "actions", "%s", actions);
        h->doctor_detail(ctx, "user_notif", "%s", notif ? "true" : "false");
        h->doctor_detail(ctx, "filters_on_doctor", "%d", filters < 0 ? 0 : filters);
        if (!notif) {
                h->doctor_detail(ctx, "cause", "no user_notif action (kernel older than 5.0, or not reported)");
                h->doctor_detail(ctx, "fix", "the supervisor-side guards (seccomp notify) cannot run; plain filters "
                                 "still work");
        }
        if (mode == 2 || filters > 0)
                h->doctor_detail(ctx, "note", "doctor itself already runs under %d seccomp filter(s) (a container's "
                                 "profile?); they stay in force for every command and may refuse syscalls a wrapper "
                                 "needs (see userns)", filters > 0 ? filters : 1);
        return 0;
}
