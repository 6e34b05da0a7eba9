/* SPDX-License-Identifier: MIT */
/*
 * A TOML 1.0 reader for `stockade import codex` (Codex's config.toml).
 * Debian ships no C TOML library (tomlc99 is not packaged), and import
 * needs only to read a file into a tree: this one builds json-c objects,
 * which the import code already walks for sandbox-runtime's JSON.
 *
 * Tables and arrays of tables become objects and arrays; strings, booleans,
 * integers and floats their json-c types; dates and times stay strings as
 * written.  Everything TOML 1.0 allows is read (so a file full of settings
 * import does not know still parses); what it forbids is an error: a key
 * defined twice, a table defined twice, a control character in a string,
 * a newline inside an inline table, nesting deeper than 64.
 */
#pragma once

#include <stddef.h>

struct json_object;

/* 0 and *ret (an object; json_object_put it), or -1 and `err` holding
 * "NAME:LINE:COL: what was wrong". */
int toml_parse(const char *text, size_t len, const char *name, struct json_object **ret, char *err,
               size_t err_size);
