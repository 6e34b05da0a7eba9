/* SPDX-License-Identifier: MIT */
/* stockade doctor: shared between core/doctor*.c.  Every check is one JSON
 * object in an array (name, status, summary, cause, fix, note); the text
 * output is printed from the same document, so --json and text agree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stockade/module.h"

struct json_object;

/* The SDK's enum stk_doctor_status, under the core's own names. */
enum doctor_status {
        DOCTOR_OK = STK_DOCTOR_OK,
        DOCTOR_WARN = STK_DOCTOR_WARN,
        DOCTOR_FAIL = STK_DOCTOR_FAIL,
};

const char *doctor_status_name(enum doctor_status s);
enum doctor_status doctor_status_of(struct json_object *check);

/* Append {name, status, summary} to `checks`; returns the new object
 * (owned by the array) so the caller can add cause/fix/note and values. */
struct json_object *doctor_add(struct json_object *checks, const char *name, enum doctor_status s,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* o[key] = formatted string. */
void doctor_set(struct json_object *o, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
struct json_object *doctor_find(struct json_object *checks, const char *name);

/* Children with a deadline (doctor_spawn.c).  `fn` runs in a forked child
 * that leads its own process group and writes its result to `fd`; the
 * parent reads at most `size` bytes into `buf` and waits at most
 * `timeout_ms` in all, then kills the whole group.  Returns the number of
 * bytes read, -ETIMEDOUT or -errno; *ret_status is the wait status. */
typedef int (*doctor_child_fn)(void *arg, int fd);
int doctor_fork_call(doctor_child_fn fn, void *arg, int timeout_ms, void *buf, size_t size, int *ret_status);
/* Execute argv (argv[0] an absolute path, no PATH search, no shell) with
 * stdout and stderr captured into out (NUL-terminated, truncated). */
int doctor_exec_capture(const char *const *argv, int timeout_ms, char *out, size_t size, int *ret_status);

/* Machine checks, each appends one or more objects to `checks`. */
/* What this system offers a sandbox that belongs to no module, each its
 * own check: the kernel, root, containers, user namespaces and what blocks
 * them (doctor_kernel.c, doctor_ns.c; doctor_posix.c elsewhere).  What a
 * module needs (bwrap, Landlock, seccomp, sandbox-exec), its doctor hook
 * says (doctor_modules.c). */
void doctor_check_system(struct json_object *checks);
void doctor_check_kernel(struct json_object *checks);
void doctor_check_root(struct json_object *checks);
bool doctor_in_container(const char **ret_why);
void doctor_check_container(struct json_object *checks);
void doctor_check_userns(struct json_object *checks);
void doctor_check_proc(struct json_object *checks);

/* The shipped profiles, and --policy FILE (doctor_profile.c). */
struct json_object *doctor_profiles(struct json_object *checks, const char *policy_file);
char **doctor_profile_names(void);
/* What each of their modules finds here, by its doctor hook (doctor_modules.c). */
void doctor_modules(struct json_object *checks, const char *policy_file);

#define DOCTOR_BWRAP "/usr/bin/bwrap"
#define DOCTOR_TIMEOUT_MS 5000
