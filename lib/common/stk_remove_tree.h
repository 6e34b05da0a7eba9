/* SPDX-License-Identifier: MIT */
/* Sources shared by modules (compiled into each module that lists them in
 * its module.mk as <name>_SHARED; never a library of its own, so a module
 * still exports its descriptor alone). */
#pragma once

/* Remove dfd/name and everything beneath it, fd-relative all the way down
 * with O_NOFOLLOW: a symlink the command left behind is unlinked, never
 * followed.  Goes on past errors, returns the first (-errno). */
int stk_remove_tree_at(int dfd, const char *name);
