/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: placeholder descriptor so the parsing core (np_*.c) builds and
 * its unit tests run on this branch.  The lead developer's net_proxy.c (the
 * event loop and module glue) replaces this file; it has no hooks, so a
 * policy that names it gets no proxy and no egress verdicts from it.
 */
#include "stockade/module.h"

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("net_proxy"),
        .summary = "placeholder",
};
