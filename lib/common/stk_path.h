/* SPDX-License-Identifier: MIT */
/* Path predicates on canonical paths (strings only: no filesystem access). */
#pragma once
#include <stdbool.h>

/* Absolute, and canonical in form: no empty, "." or ".." component and no
 * trailing slash.  (That no component is a symlink is the core's job.) */
bool stk_path_valid(const char *p);
/* path is root or inside it (a string compare; a trailing slash on root is
 * ignored). */
bool stk_path_beneath(const char *path, const char *root);
/* path is inside root, not root itself. */
bool stk_path_strictly_beneath(const char *path, const char *root);
/* dir/name, without a doubled slash under "/" (malloc()ed; NULL: out of
 * memory). */
char *stk_path_join(const char *dir, const char *name);
