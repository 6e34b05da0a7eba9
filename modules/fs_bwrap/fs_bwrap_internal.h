/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap_internal.h - what the files of fs_bwrap share with each other and
 * with their unit tests (t/test_fs_bwrap.c).  Nothing here is exported from
 * the .so: the version script keeps `stockade_module` alone.
 */
#pragma once
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/stk_path.h"
#include "common/stk_util.h"
#include "stockade/module.h"

#define FS_BWRAP_DEFAULT "/usr/bin/bwrap"
#define FS_BWRAP_MIN_VERSION 800 /* 0.8.0: --disable-userns */
#define FS_BWRAP_MARK_XATTR "user.stockade.mountpoint"

/* ---- fs_bwrap_argv.c: the bwrap command line, a pure function ---------- */

enum fs_bwrap_kind {
        FS_BWRAP_MISSING = 0,
        FS_BWRAP_DIR,
        FS_BWRAP_OTHER,   /* a file, socket, fifo or device */
};

/* What the builder may ask of the world: the kind of a path (an
 * fs_bwrap_kind, or -errno).  The real one stats; tests pass a table. */
typedef int (*fs_bwrap_kind_fn)(void *userdata, const char *path);

struct fs_bwrap_conf {
        const char *bwrap;       /* argv[0]: absolute */
        const char *chdir;       /* the command's working directory, or NULL */
        bool host_proc;          /* a fresh /proc is refused here: bind the host's */
        const char *void_hidden; /* empty regular file, mode 0000: hides a file */
        const char *void_dir;    /* empty directory, mode 0555: fills a missing path */
        fs_bwrap_kind_fn kind;
        /* Whether `path` names itself: no symlink on the way (NULL: every
         * path does, for tests).  A pin is a read-write bind, and one
         * through a symlink would bind the link's target, outside. */
        bool (*unlinked)(void *userdata, const char *path);
        void *userdata;
};

struct fs_bwrap_argv {
        char **argv;        /* NULL-terminated, last element "--" */
        char **mountpoints; /* missing paths masked in a writable root: create them (directories) first */
};

int fs_bwrap_build(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
                   const struct fs_bwrap_conf *conf, struct fs_bwrap_argv *ret);
void fs_bwrap_argv_done(struct fs_bwrap_argv *a);
char **fs_bwrap_strv_free(char **v);

/* Validate this line's arguments; on -EINVAL, *ret_what says which and why. */
int fs_bwrap_check_args(const char *bwrap, const char *sha256, const char **ret_what);

/* ---- fs_bwrap_probe.c: the binary and what this machine allows -------- */

/* Opens the binary O_RDONLY|O_CLOEXEC and checks it is a regular,
 * executable file nobody but its owner can write. */
int fs_bwrap_open_binary(const char *path, int *ret_fd, const char **ret_why);
int fs_bwrap_sha256_fd(int fd, char ret_hex[65]);
/* Runs `bwrap --version` through the fd: major*10000 + minor*100 + micro. */
int fs_bwrap_version(int fd, int *ret_version);

enum fs_bwrap_ns_stage {
        FS_BWRAP_NS_OK = 0,
        FS_BWRAP_NS_USER,   /* unshare(CLONE_NEWUSER) refused */
        FS_BWRAP_NS_CAPS,   /* user namespace made, but no mount/pid namespace in it */
        FS_BWRAP_NS_PROC,   /* everything but mounting a fresh proc */
};
struct fs_bwrap_ns_probe {
        int stage; /* enum fs_bwrap_ns_stage */
        int err;   /* errno of the failed step */
};
int fs_bwrap_probe_ns(struct fs_bwrap_ns_probe *ret);
/* A sentence naming the cause of a failed stage, for the log. */
const char *fs_bwrap_ns_hint(const struct fs_bwrap_ns_probe *p, char *buf, size_t n);

/* ---- fs_bwrap_doctor.c: `stockade doctor` (ABI 1.5) ------------------- */
int fs_bwrap_doctor(struct stk_ctx *ctx, const struct stk_host *host);

/* ---- fs_bwrap_explain.c: the argv and the paths it enforces, as text --- */
int fs_bwrap_explain_text(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
                          const struct fs_bwrap_conf *conf, char **ret_text);

/* ---- fs_bwrap_cache.c: the probes' answers, kept per boot --------------- */
int fs_bwrap_cache_key(int bwrap_fd, char *buf, size_t n);
int fs_bwrap_cache_read(const char *key, int *ret_version, struct fs_bwrap_ns_probe *ret_ns);
void fs_bwrap_cache_write(const char *key, int version, const struct fs_bwrap_ns_probe *ns);

/* ---- fs_bwrap_mounts.c: mount points made on the host, and cleanup --- */

struct fs_bwrap_mount {
        char *path;
        int fd;       /* a mount point: open, flock(LOCK_SH) held; -1 for a parent made for one */
        bool remove;  /* created by this run (or adopted by its mark): remove in fini */
};

struct fs_bwrap_mounts {
        struct fs_bwrap_mount *v;
        size_t n;
        char *private_dir;       /* holds the two below, or NULL */
        char *void_hidden;       /* empty file, 0000 */
        char *void_dir;          /* empty directory, 0555 */
        int *release;            /* fds of removed directories, for release_later */
        size_t n_release;
        char *parent_path;       /* the last parent walked to, or NULL... */
        int parent_fd;           /* ...and its O_PATH fd (only while parent_path is set) */
};

int fs_bwrap_void_create(struct fs_bwrap_mounts *m, const char *base);
/* Take a shared lock on an existing directory another run may have created
 * as a mount point, so that run's cleanup leaves it alone. */
int fs_bwrap_mountpoint_hold(struct fs_bwrap_mounts *m, const char *path);
/* Create the missing `path` (an empty directory, and missing parents). */
int fs_bwrap_mountpoint_create(struct fs_bwrap_mounts *m, const char *path);
void fs_bwrap_mounts_cleanup(struct fs_bwrap_mounts *m);
