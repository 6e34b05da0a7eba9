/* SPDX-License-Identifier: MIT */
/*
 * fs_landlock internals, shared by the module's files and its CUnit tests.
 * Nothing here is exported from the .so (mk/module.map keeps only
 * stockade_module).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "landlock_compat.h"
#include "stockade/module.h"

/* ---- access masks ----------------------------------------------------------
 * The planner works with these abstract masks; fs_landlock_sys.c intersects
 * every rule with what the running ABI handles before adding it. */
#define LL_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
                 LANDLOCK_ACCESS_FS_READ_DIR)
/* Write beneath a writable root.  Never MAKE_CHAR / MAKE_BLOCK: a command
 * running as root could otherwise mknod the host's disk into the workspace
 * and open it; never IOCTL_DEV (only the devices below get it). */
#define LL_WRITE (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
                  LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | \
                  LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
                  LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | \
                  LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
#define LL_RW (LL_READ | LL_WRITE)
/* /dev/null and friends: open for writing (and O_TRUNC, which shells use for
 * `>/dev/null`); terminals also need ioctls (tcsetattr, TIOCGWINSZ). */
#define LL_DEV_W (LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)
#define LL_DEV_TTY (LL_DEV_W | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* A hidden path keeps READ_DIR by default: Landlock rights are inherited,
 * so READ_DIR on "/" (needed to list "/" and $HOME at all) also reaches the
 * hidden directory.  Its file names are listable, its contents are not.
 * `strict_hide: true` drops READ_DIR instead (see stockade-fs_landlock(8)). */
#define LL_HIDE LANDLOCK_ACCESS_FS_READ_DIR
#define LL_HIDE_STRICT 0ULL
/* The only rights a rule on a non-directory may carry (the kernel returns
 * EINVAL for directory rights on a file, security/landlock/fs.c). */
#define LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
                        LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* ---- planning (pure: no syscalls but the listing callback) ---------------- */

/* A path with the access it and everything beneath it should have, unless a
 * deeper point says otherwise.  Several points on one path: the most
 * restrictive (intersection) wins. */
struct ll_point {
        const char *path; /* absolute, canonical, no trailing slash */
        uint64_t access;
};

struct ll_rule {
        char *path;
        uint64_t access;
};

struct ll_rules {
        struct ll_rule *v;
        size_t n, cap;
};

enum ll_ent_type {
        LL_ENT_DIR = 1,
        LL_ENT_FILE,  /* anything that is neither a directory nor a symlink */
        LL_ENT_LINK,
};

struct ll_dirent {
        char *name;
        enum ll_ent_type type;
};

/* List `dir` (no "." or ".."): 0 and a malloc'd array the caller frees with
 * ll_dirents_free(), or -errno.  A missing directory is an empty one. */
typedef int (*ll_list_fn)(void *userdata, const char *dir, struct ll_dirent **ret, size_t *ret_n);

void ll_dirents_free(struct ll_dirent *v, size_t n);
int ll_list_dir(void *userdata, const char *dir, struct ll_dirent **ret, size_t *ret_n);

/* Turn `base` (given `base_access`) and the points beneath it into Landlock
 * rules whose union grants each path exactly the access of its deepest point.
 * On failure *ret is left empty. */
int ll_plan(const char *base, uint64_t base_access, const struct ll_point *pts, size_t n_pts,
            ll_list_fn list, void *list_userdata, struct ll_rules *ret);
void ll_rules_free(struct ll_rules *r);

/* `stockade doctor` (fs_landlock_doctor.c, ABI 1.5). */
int ll_doctor(struct stk_ctx *ctx, const struct stk_host *host);

/* ---- kernel side (fs_landlock_sys.c) --------------------------------------- */

/* Highest ABI the kernel offers (>= 1), or -errno (EOPNOTSUPP: disabled at
 * boot; ENOSYS: not built). */
int ll_kernel_abi(void);
uint64_t ll_abi_fs_rights(int abi);
uint64_t ll_abi_net_rights(int abi);
uint64_t ll_abi_scopes(int abi);
/* stk_cover bits Landlock can enforce at `abi` (without private_tmp). */
uint32_t ll_abi_covers(int abi);
/* Lowest ABI that enforces one cover bit, or 0 if Landlock never does. */
int ll_cover_min_abi(uint32_t bit);
const char *ll_cover_name(uint32_t bit);

struct ll_net {
        int handle;        /* handle TCP bind/connect at all */
        int proxy_port;    /* > 0: allow connect to this port */
};

typedef void (*ll_log_fn)(void *userdata, enum stk_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

struct ll_enforce {
        int abi;
        const struct ll_rules *rules;
        struct ll_net net;
        uint64_t scopes;
        int log_new_exec;  /* ABI 7 audit logging of the command's denials */
        ll_log_fn log;
        void *log_userdata;
};

/* Build the ruleset, set no_new_privs and restrict the calling thread. */
int ll_enforce(const struct ll_enforce *e);

/* ---- private /tmp (fs_landlock_tmp.c) ------------------------------------ */
/* mkdtemp /tmp/stockade-ll.XXXXXX, or exactly `want` if it is such a name
 * and does not exist yet. */
int ll_tmp_create(const char *want, char **ret_path);
int ll_tmp_remove(const char *path);
