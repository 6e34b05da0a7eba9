/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "stk_proxy.h"

int stk_proxy_port(const struct stk_host *host, struct stk_ctx *ctx)
{
        const struct stk_settings *s = host->settings(ctx);
        long long arg = host->arg_int(ctx, "proxy_port", 0);
        int resolved = STK_HAS(s, stk_settings, proxy_port) ? s->proxy_port : 0;

        if (arg == 0)
                return resolved;
        if (arg < 1 || arg > 65535 || (resolved && arg != resolved)) {
                host->log(ctx, STK_LOG_ERROR, "proxy_port %lld: %s", arg,
                          arg < 1 || arg > 65535 ? "expected 1..65535" : "differs from the proxy's port in the settings");
                return -EINVAL;
        }
        host->log(ctx, STK_LOG_WARNING, "the proxy_port argument is deprecated: set network.proxy_port in the "
                  "settings instead");
        return (int) arg;
}
