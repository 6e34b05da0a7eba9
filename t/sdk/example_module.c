/* SPDX-License-Identifier: MIT */
/*
 * deny_rm: a permission-phase module built out of tree against the
 * installed SDK only (t/integration/sdk.sh), as a third party would:
 *
 *   cc $(pkg-config --cflags stockade-module) -shared -fPIC \
 *      -o deny_rm.so example_module.c
 *
 * It denies a command whose argv[0] has one of the basenames listed in its
 * `names` argument ("rm" when absent) and allows everything else:
 *
 *   - { phase: permission, control: required, module: deny_rm,
 *       args: { names: [rm, shred] } }
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <stockade/module.h>

static const struct stk_arg_spec deny_rm_args[] = {
        { .name = "names", .type = STK_ARG_LIST, .help = "basenames of argv[0] to deny (default: rm)" },
        { .name = NULL },
};

/* The host table outlives every hook call of the run; init stores it. */
static const struct stk_host *host;

static int deny_rm_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        (void) ctx;
        /* Every slot used here exists since ABI 1.0; a newer slot would need
         * a check of h->size first (stockade-module(3), COMPATIBILITY). */
        if (!STK_HAS(h, stk_host, arg_list))
                return -EPROTO;
        host = h;
        *ret_data = NULL;
        return 0;
}

static int deny_rm_permission(struct stk_ctx *ctx, const struct stk_request *req, enum stk_verdict *ret_verdict)
{
        const char *const *names = host->arg_list(ctx, "names");
        const char *cmd = req->argv[0], *base;
        int deny = 0;

        if (!cmd)
                return -EINVAL; /* an error is a DENY under any control flag */
        base = strrchr(cmd, '/');
        base = base ? base + 1 : cmd;
        if (!names[0])
                deny = strcmp(base, "rm") == 0;
        for (size_t i = 0; names[i]; i++)
                deny |= strcmp(base, names[i]) == 0;
        if (deny)
                host->log(ctx, STK_LOG_WARNING, "%s is not allowed here", base);
        *ret_verdict = deny ? STK_DENY : STK_ALLOW;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("deny_rm"),
        .summary = "deny commands by the basename of argv[0] (an SDK example)",
        .args = deny_rm_args,
        .init = deny_rm_init,
        .permission = deny_rm_permission,
};
