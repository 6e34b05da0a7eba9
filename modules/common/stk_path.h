/* SPDX-License-Identifier: MIT */
/* Path predicates the enforcement modules share (see stk_remove_tree.h for
 * how modules/common/ sources are built in). */
#pragma once
#include <stdbool.h>

/* Absolute, and canonical in form: no empty, "." or ".." component and no
 * trailing slash.  (That no component is a symlink is the core's job.) */
bool stk_path_valid(const char *p);
/* path is root or inside it (string compare of canonical paths). */
bool stk_path_beneath(const char *path, const char *root);
