/* SPDX-License-Identifier: MIT */
/*
 * Included first by every file of a `make PORTABLE=1` build (GNUmakefile),
 * which is compiled with _XOPEN_SOURCE=700 instead of _GNU_SOURCE: glibc
 * then declares POSIX and XSI only, so a call macOS does not have (pipe2,
 * reallocarray, execvpe, ...) is an error here, on Linux, before a Mac user
 * meets it.  Declared below: what glibc hides in that mode but macOS
 * offers (with _DARWIN_C_SOURCE), and stockade uses.
 */
#pragma once
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

/* Errnos glibc defines whatever the feature macros and macOS has not:
 * gone here too, so the code's fallbacks are what is compiled. */
#undef EKEYREJECTED
#undef EBADFD

int asprintf(char **strp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vasprintf(char **strp, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);
int getentropy(void *buf, size_t len);
#define FNM_CASEFOLD (1 << 4) /* glibc's and macOS's value; XSI has no name for it */
#ifndef NSIG
#define NSIG 65 /* glibc's _NSIG; macOS defines NSIG itself */
#endif
