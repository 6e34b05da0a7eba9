/* SPDX-License-Identifier: MIT */
/* NULL-terminated string vectors, each string owned by the vector. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

size_t strv_length(char *const *v);
char **strv_free(char **v);
static inline void strv_freep(char ***v) { strv_free(*v); }
#define _cleanup_strv_ __attribute__((cleanup(strv_freep)))
int strv_push(char ***v, const char *s);          /* copies s; -ENOMEM */
int strv_push_take(char ***v, char *s);           /* takes s (freed on failure) */
char **strv_copy(const char *const *v);
bool strv_contains(const char *const *v, const char *s);
