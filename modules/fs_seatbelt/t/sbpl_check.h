/* SPDX-License-Identifier: MIT */
/* A strict reader of the SBPL subset fs_seatbelt generates (t/test_sbpl.c). */
#pragma once

#include <stddef.h>

/*
 * 0 if `text` is a profile Seatbelt would accept as far as a reader without
 * macOS can tell: balanced parentheses, terminated string and regex
 * literals, `(version 1)` first and `(deny default)` before any allow, every
 * rule `(allow|deny OPERATION... FILTER...)` with operations from a known
 * list and filters of a known shape, every (param "X") one of `params` and
 * every one of `params` used.  Otherwise -1 with the reason and its line in
 * `why`.
 */
int sbpl_check(const char *text, const char *const *params, size_t n_params, char *why, size_t why_size);
