/* SPDX-License-Identifier: MIT */
/*
 * The command stands still while a question is on the user's terminal
 * (issue 21 §2).  It shares that terminal, so it could otherwise redraw
 * the question (escape sequences rewrote the host line of an egress
 * question, and the user allowed the wrong host).  Every process the
 * command has, the keeper's descendants (docs/ARCHITECTURE.md, Processes),
 * gets SIGSTOP, and the question is asked only once each is seen stopped;
 * afterwards each gets SIGCONT.  A tree that cannot be stopped whole is a
 * question that is not asked: DENY, fail closed.
 */
#include <signal.h>
#include <stdio.h>

#include "core.h"
#include "os/os.h"
#include "util/util.h"

#define FREEZE_MAX 4096
#define FREEZE_ROUNDS 8          /* a tree that keeps forking while we stop it */
#define FREEZE_WAIT_MS 200       /* for the SIGSTOPs to take effect */

static bool listed(const struct core_freeze *f, pid_t pid)
{
        for (size_t i = 0; i < f->n; i++)
                if (f->pids[i] == pid)
                        return true;
        return false;
}

/* One round: stop every descendant not stopped yet; how many were new. */
static int stop_round(struct core_freeze *f, pid_t root, size_t *ret_new)
{
        pid_t now[FREEZE_MAX];
        size_t n = 0;
        int r = os_list_descendants(root, now, ELEMENTSOF(now), &n);

        *ret_new = 0;
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (listed(f, now[i]))
                        continue;
                if (f->n == FREEZE_MAX)
                        return -E2BIG;
                if (kill(now[i], SIGSTOP) < 0 && errno != ESRCH)
                        return -errno;
                f->pids[f->n++] = now[i];
                (*ret_new)++;
        }
        return 0;
}

static void thaw(struct core_freeze *f)
{
        while (f->n > 0)
                (void) kill(f->pids[--f->n], SIGCONT); /* ESRCH: it died meanwhile */
}

int core_freeze(struct core_run *run)
{
        struct core_freeze *f = &run->frozen;
        size_t added = 1;
        int r = 0;

        if (run->freeze_root <= 0)
                return 0; /* before the command started: nothing to stop */
        if (!f->pids && !(f->pids = calloc(FREEZE_MAX, sizeof(pid_t))))
                return -ENOMEM;
        for (unsigned round = 0; r >= 0 && added && round < FREEZE_ROUNDS; round++)
                r = stop_round(f, run->freeze_root, &added);
        if (r >= 0 && added)
                r = -EAGAIN; /* still forking after every round */
        if (r >= 0)
                r = os_wait_stopped(f->pids, f->n, FREEZE_WAIT_MS);
        if (r < 0) {
                thaw(f);
                core_log(STK_LOG_ERROR, "the command's processes could not all be stopped while a question "
                         "was asked (%s): the answer is no", strerror(-r));
        }
        return r;
}

void core_thaw(struct core_run *run)
{
        thaw(&run->frozen);
}
