/* SPDX-License-Identifier: MIT */
/*
 * host->seccomp_notify (ABI 1.5): the seccomp programs of the in-sandbox
 * lines whose calls go to the supervisor, loaded as one filter with one
 * listener (a process holds one at most: core/os/seccomp_linux.c), and in
 * the supervisor each notification offered to the lines' notify hooks in
 * stack order.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "os/os.h"
#include "status.h"
#include "util/util.h"

int core_notify_add(struct stk_ctx *ctx, const void *insns, size_t n, unsigned flags)
{
        struct core_run *run = ctx->run;
        struct core_notify_prog *np;
        void *copy;

        if (!OS_LINUX)
                return -EOPNOTSUPP;
        if (!run->in_child || run->phase != STK_PHASE_IN_SANDBOX)
                return -EPERM;
        if (!insns || n == 0 || n > 4096)
                return -EINVAL;
        copy = malloc(n * 8); /* struct sock_filter: 8 bytes */
        if (!copy)
                return -ENOMEM;
        memcpy(copy, insns, n * 8);
        np = realloc(run->notify_progs, (run->n_notify_progs + 1) * sizeof(*np));
        if (!np) {
                free(copy);
                return -ENOMEM;
        }
        run->notify_progs = np;
        np[run->n_notify_progs++] = (struct core_notify_prog) { copy, n, flags };
        return 0;
}

int core_notify_load(struct core_run *run)
{
        struct os_bpf progs[16];
        int listener, r;

        if (run->n_notify_progs == 0)
                return 0;
        if (run->n_notify_progs > ELEMENTSOF(progs))
                return -E2BIG;
        for (size_t i = 0; i < run->n_notify_progs; i++)
                progs[i] = (struct os_bpf) { run->notify_progs[i].insns, run->notify_progs[i].n,
                                             run->notify_progs[i].flags };
        listener = os_seccomp_load_merged(progs, run->n_notify_progs);
        if (listener < 0) {
                core_log(STK_LOG_ERROR, "loading the in-sandbox lines' seccomp filter (%zu programs): %s",
                         run->n_notify_progs, strerror(-listener));
                return listener;
        }
        /* Without the listener in the supervisor the filtered calls would
         * wait forever: failing to send it fails the run. */
        r = core_status_send_fd(run->status_fd, listener, CORE_NOTIFY_FD_NAME);
        (void) close(listener);
        if (r < 0)
                core_log(STK_LOG_ERROR, "handing the seccomp listener to the supervisor: %s", strerror(-r));
        return r;
}

struct notify_state {
        struct core_run *run;
        int fd;                 /* the listener, watched; -1 before */
        size_t req_size, resp_size;
        void *req, *resp;
};

/* The listener's state: its fd closed (a seccomp listener closed fails
 * the calls still to come, ENOSYS, rather than letting them through). */
static void notify_state_free(struct core_run *run)
{
        struct notify_state *st = run->notify;

        if (!st)
                return;
        if (st->fd >= 0) {
                for (size_t i = 0; i < run->policy->n_lines; i++)
                        if (run->watches && (size_t) st->fd < run->n_watches && run->watches[st->fd].ctx == &run->ctxs[i]) {
                                (void) core_unwatch_fd(&run->ctxs[i], st->fd);
                                break;
                        }
                (void) close(st->fd);
        }
        free(st->req);
        free(st->resp);
        free(st);
        run->notify = NULL;
}

void core_notify_free(struct core_run *run)
{
        notify_state_free(run);
        for (size_t i = 0; i < run->n_notify_progs; i++)
                free(run->notify_progs[i].insns);
        free(run->notify_progs);
        run->notify_progs = NULL;
        run->n_notify_progs = 0;
}


static bool takes_notify(const struct stk_ctx *ctx)
{
        return ctx->mod && ctx->mod->desc && MODULE_HAS(ctx->mod->desc, notify) && ctx->probe_r >= 0 &&
               ctx->line->phase == STK_PHASE_IN_SANDBOX;
}

/* STK_NOTIFY_LATER is a module's of ABI 1.8 or later: from an older one
 * the value means nothing, and the call fails (below) rather than hang. */
static bool answers_later(const struct stk_ctx *ctx)
{
        return ctx->mod->desc->abi_minor >= 8;
}

/* struct seccomp_notif_resp begins with id (u64), val (s64), error (s32),
 * flags (u32); struct seccomp_notif with id (u64). */
struct resp_head {
        uint64_t id;
        int64_t val;
        int32_t error;
        uint32_t flags;
};

/* For `run --json`: what the supervisor refused, by errno. */
static void count_refusal(struct core_run *run, int32_t error)
{
        if (error == -EPERM)
                run->denied_eperm++;
        else if (error == -EACCES)
                run->denied_eacces++;
        else if (error == -EROFS)
                run->denied_erofs++;
        else if (error != 0)
                run->denied_other++;
}

static void on_notify(struct stk_ctx *unused, int fd, unsigned events, void *userdata)
{
        struct notify_state *st = userdata;
        struct core_run *run = st->run;
        struct resp_head head;
        int r = os_notify_recv(fd, st->req, st->req_size);

        if (r == 0)
                return;
        if (r < 0) {
                /* No filtered process left, or a broken listener: closing it
                 * fails the calls still to come (ENOSYS) rather than letting
                 * them through. */
                if (r != -ESHUTDOWN)
                        core_log(STK_LOG_ERROR, "seccomp listener: %s; refusing further calls", strerror(-r));
                notify_state_free(run);
                return;
        }
        memset(st->resp, 0, st->resp_size);
        memcpy(&head.id, st->req, sizeof(head.id));
        memcpy(st->resp, &head.id, sizeof(head.id));
        r = 1;
        for (size_t i = 0; r == 1 && i < run->policy->n_lines; i++)
                if (takes_notify(&run->ctxs[i])) {
                        r = run->ctxs[i].mod->desc->notify(&run->ctxs[i], fd, st->req, st->resp);
                        if (r == STK_NOTIFY_LATER && answers_later(&run->ctxs[i]))
                                return; /* the hook keeps the call, and answers it */
                }
        if (r != 0) {
                /* Nobody's call (1), or a hook's error: the call fails. */
                head = (struct resp_head) { .id = head.id, .error = r == 1 ? -ENOSYS : (r < 0 ? r : -EPERM) };
                memcpy(st->resp, &head, sizeof(head));
        }
        memcpy(&head, st->resp, sizeof(head));
        count_refusal(run, head.error);
        head.id = *(const uint64_t *) st->req; /* whatever a hook wrote there */
        memcpy(st->resp, &head, sizeof(head));
        r = os_notify_send(fd, st->resp);
        if (r < 0)
                core_log(STK_LOG_DEBUG, "seccomp listener: answering: %s", strerror(-r));
}

int core_notify_watch(struct core_run *run, int listener)
{
        struct notify_state *st = calloc(1, sizeof(*st));
        struct stk_ctx *owner = NULL;
        int r;

        if (!st)
                return -ENOMEM;
        if (run->notify) {
                free(st);
                return -EBUSY; /* one listener a run */
        }
        st->run = run;
        st->fd = -1;
        for (size_t i = 0; !owner && i < run->policy->n_lines; i++)
                if (takes_notify(&run->ctxs[i]))
                        owner = &run->ctxs[i];
        r = owner ? os_notify_sizes(&st->req_size, &st->resp_size) : -ENOENT;
        if (r >= 0) {
                st->req = calloc(1, st->req_size);
                st->resp = calloc(1, st->resp_size);
                r = st->req && st->resp ? 0 : -ENOMEM;
        }
        if (r >= 0) {
                os_notify_sync_wake(listener);
                r = core_watch_fd(owner, listener, STK_WATCH_IN, on_notify, st);
        }
        if (r < 0) {
                free(st->req);
                free(st->resp);
                free(st);
                return r;
        }
        st->fd = listener;
        run->notify = st;
        return r;
}
