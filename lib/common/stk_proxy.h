/* SPDX-License-Identifier: MIT */
#pragma once

#include "stockade/module.h"

/* The egress proxy's loopback TCP port for a line that guards network mode
 * proxy (fs_landlock, net_seccomp, fs_seatbelt): the one the core resolved
 * into settings->proxy_port (network.proxy_port, or what net_proxy
 * published), else the line's deprecated `proxy_port` argument (with a
 * warning naming the setting), else 0.  -EINVAL for an argument outside
 * 1..65535 or one that contradicts the setting. */
int stk_proxy_port(const struct stk_host *host, struct stk_ctx *ctx);
