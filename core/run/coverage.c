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

/* Where each required cover comes from, and the shipped modules that give
 * it, for the message of a setting no line of the stack enforces. */
static const struct cover_source {
        uint32_t bit;
        const char *setting;    /* the setting whose value requires it */
        const char *enforcer;   /* what would enforce it */
} cover_sources[] = {
        { STK_COVER_WRITE, "write", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_METADATA, "write",
          "fs_bwrap, or beside fs_landlock \"{ phase: in-sandbox, control: required, module: fs_guard }\"" },
        { STK_COVER_PROCESS, "write", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_IPC, "write", "fs_bwrap, or net_seccomp (in-sandbox)" },
        { STK_COVER_PROC_OTHERS, "write", "fs_bwrap (its PID namespace)" },
        { STK_COVER_READ_ONLY, "read_only", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_HIDE, "hide", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_PRIVATE_TMP, "private_tmp", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_NET_TCP, "network.mode", "fs_bwrap, fs_landlock or net_seccomp" },
        { STK_COVER_NET_OTHER, "network.mode", "fs_bwrap, or net_seccomp (in-sandbox)" },
        { STK_COVER_NET_ABSTRACT, "network.mode", "fs_bwrap or fs_landlock (pre-exec)" },
        { STK_COVER_NET_UNIX, "network.mode: off", "\"{ phase: in-sandbox, control: required, module: net_seccomp }\"" },
};

static const struct cover_source *cover_source(uint32_t bit)
{
        for (size_t i = 0; i < ELEMENTSOF(cover_sources); i++)
                if (cover_sources[i].bit == bit)
                        return &cover_sources[i];
        return NULL;
}

static const struct core_origin *setting_origin(const struct core_policy *p, const char *setting)
{
        if (strncmp(setting, "network", 7) == 0)
                return &p->network_origin;
        if (streq(setting, "private_tmp"))
                return &p->private_tmp_origin;
        if (streq(setting, "write") && p->write.n)
                return &p->write.items[0].origin;
        if (streq(setting, "hide") && p->hide.n)
                return &p->hide.items[0].origin;
        if (streq(setting, "read_only") && p->read_only.n)
                return &p->read_only.items[0].origin;
        return NULL;
}

/* What the enforcement lines of the stack could give at all: what each
 * module declares, and what its probe said.  A line whose probe failed may
 * have given more (net_seccomp's net_unix depends on its arguments):
 * *ret_unsure then. */
static uint32_t claimable_covers(const struct core_run *run, bool *ret_unsure)
{
        uint32_t c = 0;

        *ret_unsure = false;
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                const struct stk_ctx *ctx = &run->ctxs[i];

                if (l->phase != STK_PHASE_PRE_EXEC && l->phase != STK_PHASE_IN_SANDBOX)
                        continue;
                c |= ctx->mod->desc->covers;
                if (ctx->probe_r >= 0)
                        c |= ctx->covers;
                else
                        *ret_unsure = true;
        }
        return c;
}

/* A setting that no line of the stack enforces is the policy's mistake,
 * not the machine's (issue 13 §6): 241 before anything runs, naming the
 * setting, where it was set, the profile and what would enforce it.  Where
 * a line that might have enforced it is unusable here, the machine's
 * (242, core_coverage_check and check's probe report). */
int core_coverage_unclaimed(const struct core_run *run)
{
        const struct core_policy *p = run->policy;
        bool unsure;
        uint32_t missing = core_required_covers(&run->settings.pub) & ~claimable_covers(run, &unsure) &
                           ~run->settings.pub.best_effort;

        if (!missing || unsure)
                return 0;
        for (uint32_t b = 1; b && b <= STK_COVER_LAST; b <<= 1) {
                const struct cover_source *src = cover_source(b);
                const struct core_origin *o;
                static const struct core_origin none = { 0 };

                if (!(missing & b))
                        continue;
                o = src ? setting_origin(p, src->setting) : NULL;
                core_diag(o && o->file ? o : &none,
                          "%s requires %s enforced, and no line of profile %s's stack enforces it: add a line of %s, "
                          "or list %s under settings.best_effort",
                          src ? src->setting : "a setting", core_cover_name(b), p->profile,
                          src ? src->enforcer : "a module that covers it", core_cover_name(b));
        }
        return STK_EXIT_POLICY;
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
