/* SPDX-License-Identifier: MIT */
/*
 * t_flood: a test-only module that floods the audit log and the terminal
 * from its permission hook, as a flood of refused requests would through
 * net_proxy or an egress line (issue 21 section 5), then votes IGNORE so
 * the other lines decide.  Never installed.
 *
 *   records:  how many "flood" records with verdict deny to write
 *   distinct: each record different (a field "n"); else all the same
 *   warnings: how many warning lines to log
 */
#include <stdio.h>

#include "stockade/module.h"

static const struct stk_host *host;

static const struct stk_arg_spec args[] = {
        { "records", STK_ARG_INT, 0, "records to write" },
        { "distinct", STK_ARG_BOOL, 0, "each record different" },
        { "warnings", STK_ARG_INT, 0, "warning lines to log" },
        { NULL, 0, 0, NULL },
};

static int flood_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret)
{
        host = h;
        *ret = NULL;
        return 0;
}

static int flood_permission(struct stk_ctx *ctx, const struct stk_request *req, enum stk_verdict *v)
{
        long long records = host->arg_int(ctx, "records", 0), warnings = host->arg_int(ctx, "warnings", 0);
        int distinct = host->arg_bool(ctx, "distinct", 0);
        char fields[128];

        for (long long i = 0; i < records; i++) {
                snprintf(fields, sizeof(fields), "{\"verdict\":\"deny\",\"host\":\"evil.test\",\"n\":%lld}",
                         distinct ? i : -1);
                (void) host->audit(ctx, "flood", fields); /* the point: nothing it returns stops us */
        }
        for (long long i = 0; i < warnings; i++)
                host->log(ctx, STK_LOG_WARNING, "flood warning %lld", i);
        *v = STK_IGNORE;
        return 0;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("t_flood"),
        .args = args,
        .init = flood_init,
        .permission = flood_permission,
};
