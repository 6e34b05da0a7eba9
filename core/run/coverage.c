/* SPDX-License-Identifier: MIT */
/*
 * Fail closed on coverage (docs/ARCHITECTURE.md, The run path): a setting that no module that took
 * effect can enforce stops the run, unless the policy lists it best_effort.
 */
#include <stdio.h>

#include "core.h"
#include "util/util.h"

uint32_t core_required_covers(const struct stk_settings *s)
{
        uint32_t need = 0;

        /* Confined writes mean a sandbox, and a sandbox whose command can
         * kill(-1, SIGKILL) every process of its user, or write into their
         * System V shared memory, is none. */
        if (!strv_contains(s->write, "/"))
                need |= STK_COVER_WRITE | STK_COVER_METADATA | STK_COVER_PROCESS | STK_COVER_IPC |
                        /* and whose command reads every host process's
                         * command line (tokens, passwords) is a leaky one */
                        STK_COVER_PROC_OTHERS;
        if (s->read_only[0])
                need |= STK_COVER_READ_ONLY;
        if (s->hide[0])
                need |= STK_COVER_HIDE;
        if (s->private_tmp)
                need |= STK_COVER_PRIVATE_TMP;
        if (s->network != STK_NET_ON)
                need |= STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT;
        /* With the network off, a host's unix sockets (docker.sock, the
         * session bus) are network too.  (In proxy mode nothing guards them
         * yet: issue 4 brings that.) */
        if (s->network == STK_NET_OFF && !strv_contains(s->write, "/"))
                need |= STK_COVER_NET_UNIX;
        return need;
}

int core_covers_describe(uint32_t bits, char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (uint32_t b = 1; b && b <= STK_COVER_LAST; b <<= 1) {
                if (!(bits & b))
                        continue;
                int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", core_cover_name(b));
                if (n < 0 || (size_t) n >= size - used)
                        return -ENOBUFS;
                used += (size_t) n;
        }
        return 0;
}

/* After the enforcement phases: what the settings need and nothing gave. */
int core_coverage_check(const struct core_run *run)
{
        uint32_t need = core_required_covers(&run->settings.pub);
        uint32_t missing = need & ~run->covered & ~run->settings.pub.best_effort;
        char names[512];

        if (!missing)
                return 0;
        (void) core_covers_describe(missing, names, sizeof(names)); /* truncation only shortens the message */
        core_log(STK_LOG_ERROR, "no module in the stack enforced: %s; refusing to run "
                 "(add a module that does, or list them under settings.best_effort)%s", names,
                 /* Landlock has no right for it: a stack of before fs_guard
                  * had it from net_seccomp's guard_attr. */
                 missing & STK_COVER_METADATA ? "; metadata (chmod, chown, timestamps, xattrs) beside "
                 "fs_landlock is fs_guard's: add \"{ phase: in-sandbox, control: required, module: fs_guard }\"" : "");
        return -EOPNOTSUPP;
}
