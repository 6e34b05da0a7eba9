/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the core: cleanup attributes, string vectors. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd); /* nothing useful to do on a failed close of a read fd */
                errno = saved;
        }
        *fd = -1; /* a struct member must not keep naming a number the next open may reuse */
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_strv_ _cleanup_(strv_freep)

/* Hand ownership over: returns the value and leaves NULL / -1 behind. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* The core's "not a regular file" (policy_load.c): EBADFD on Linux, EFTYPE
 * where that is missing (macOS). */
#if defined(EBADFD)
#define E_NOT_REGULAR EBADFD
#elif defined(EFTYPE)
#define E_NOT_REGULAR EFTYPE
#else
#define E_NOT_REGULAR EINVAL
#endif
#define streq(a, b) (strcmp((a), (b)) == 0)

/* NULL-terminated string vectors. */
size_t strv_length(char *const *v);
char **strv_free(char **v);
static inline void strv_freep(char ***v) { strv_free(*v); }
int strv_push(char ***v, const char *s);          /* copies s */
int strv_push_take(char ***v, char *s);           /* takes s (freed on failure) */
char **strv_copy(const char *const *v);
bool strv_contains(const char *const *v, const char *s);

/* Path helpers. */
bool path_is_beneath(const char *path, const char *root); /* path == root or inside it */
/* realpath() of the longest existing prefix, plus the rest; -errno */
int path_canonicalize(const char *path, char **ret);
/* Between these two, path_canonicalize() remembers the directories it made
 * canonical (a policy's load: core_policy_load). */
void path_memo_begin(void);
void path_memo_end(void);
/* The same for the parent; the last component is kept as written (a final
 * symlink stays the link). */
int path_canonicalize_parent(const char *path, char **ret);

/* Every fd from `from` upward is closed except those in keep[] (n_keep). */
int close_fds_except(int from, const int *keep, size_t n_keep);
