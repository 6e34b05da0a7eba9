/* SPDX-License-Identifier: MIT */
/* Test-only: a module built for an older ABI major (0) than the core
 * speaks, which the loader must refuse as it refuses a newer one (issue 20:
 * t_badabi's 99 alone let a `>` for `!=` pass). */
#include "stockade/module.h"

#pragma GCC diagnostic ignored "-Woverride-init" /* the point: a field overridden */

static int noop(struct stk_ctx *ctx) { (void) ctx; return 0; }

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("t_abizero"),
        .abi_major = 0,
        .pre_exec = noop,
};
