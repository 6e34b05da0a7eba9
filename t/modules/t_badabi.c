/* SPDX-License-Identifier: MIT */
/* Test-only: a module the loader must refuse (badabi). */
#include "stockade/module.h"

#pragma GCC diagnostic ignored "-Woverride-init" /* the point: a field overridden */

static int noop(struct stk_ctx *ctx) { (void) ctx; return 0; }

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("t_badabi"),
        .abi_major = 99,
        .pre_exec = noop,
};
