/* SPDX-License-Identifier: MIT */
/* Test-only: a module whose descriptor names another file; refused. */
#include "stockade/module.h"

static int noop(struct stk_ctx *ctx) { (void) ctx; return 0; }

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("fs_bwrap"),
        .pre_exec = noop,
};
