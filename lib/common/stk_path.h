/* SPDX-License-Identifier: MIT */
/* Path predicates on canonical paths (strings only: no filesystem access),
 * and where stockade's own cache directory is (the environment only). */
#pragma once
#include <stdbool.h>
#include <stddef.h>

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
/* stockade's cache directory followed by `tail` ("" or "/name..."):
 * $XDG_CACHE_HOME/stockade when that is absolute, else $HOME/.cache/stockade.
 * The one copy of that rule: the sandbox's tool caches (core/run/caches.c)
 * and fs_bwrap's probe cache both live there.  0, -ENOENT when neither
 * variable is an absolute path, -ENAMETOOLONG when `buf` is too small. */
int stk_path_stockade_cache(char *buf, size_t size, const char *tail);
