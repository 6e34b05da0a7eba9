/* SPDX-License-Identifier: MIT */
/*
 * guard_attr, the supervisor's side: chmod, chown, timestamp changes
 * (utimensat & co.) and user extended attributes (setxattr & co.) of the
 * command arrive here as seccomp user notifications.  Landlock has no right
 * for file metadata, so in the Landlock stack a command could chmod 0666,
 * chmod +x, backdate or tag a file of ours outside every writable root.
 *
 * As for connect (net_seccomp_unix.c), nothing is left to the kernel to
 * redo with memory the command can still change: the path is copied once,
 * opened O_PATH by the supervisor (in the command's root or from its own
 * directory fd), checked on what was opened, and changed through that fd.
 * Allowed: beneath a writable root and not in a read-only island or hidden
 * path; with a mount namespace of its own (bubblewrap) the command's mounts
 * already say what is writable, and the change is made as asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "fs_guard_internal.h"
#include "common/stk_path.h"
#include "common/stk_util.h"

/* The old calls exist on x86 but not on the newer tables (aarch64): a
 * number no notification carries. */
#ifndef __NR_utime
#define __NR_utime -1
#endif
#ifndef __NR_utimes
#define __NR_utimes -1
#endif
#ifndef __NR_futimesat
#define __NR_futimesat -1
#endif



/* May the command change the metadata of what `fd` is open on? */
static bool may_change(pid_t pid, int fd, const struct fg_policy *pol)
{
        char real[PATH_MAX];

        if (!stk_sc_same_ns(pid, "mnt"))
                /* The wrapper's mounts decide (EROFS outside its writable
                 * roots).  Without a wrapper the command made that namespace
                 * itself (allow: [namespaces]): refused. */
                return pol->wrapped;
        if (stk_sc_fd_path(fd, real, sizeof(real)) < 0)
                return false;
        if (real[0] != '/')
                return true; /* a pipe, socket, memfd: not a file of the host's tree */
        return stk_sc_beneath_any(real, pol->write) && !stk_sc_beneath_any(real, pol->read_only) &&
               !stk_sc_beneath_any(real, pol->hide);
}

enum attr_kind { A_CHMOD, A_CHOWN, A_UTIME, A_SETXATTR, A_REMOVEXATTR };

struct attr_call {
        enum attr_kind kind;
        bool by_fd;             /* fchmod, fchown, futimens, f*xattr: args[0] is the fd */
        int dirfd;
        uint64_t path_addr;
        bool follow;
        bool empty_ok;          /* AT_EMPTY_PATH: "" names dirfd itself */
        mode_t mode;
        uid_t uid;
        gid_t gid;
        struct timespec times[2];
        bool times_now;         /* no times given: both now */
        char name[XATTR_NAME_MAX + 1];
        char *value;            /* owned; setxattr's value */
        size_t size;
        int xflags;
};

/* Fixed-size data of the command's (a times array, an xattr value),
 * copied once. */
static int read_bytes(pid_t pid, uint64_t addr, void *buf, size_t size)
{
        struct iovec local = { buf, size }, remote = { (void *) (uintptr_t) addr, size };

        if (size == 0)
                return 0;
        return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t) size ? 0 : -EFAULT;
}

static int decode_mode(const struct seccomp_notif *req, struct attr_call *c)
{
        const __u64 *a = req->data.args;
        int nr = req->data.nr;

        if (nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmod) {
                c->kind = A_CHMOD;
                c->by_fd = nr == __NR_fchmod;
                c->dirfd = nr == __NR_fchmodat ? (int) a[0] : AT_FDCWD;
                c->path_addr = nr == __NR_fchmodat ? a[1] : a[0];
                c->mode = (mode_t) (nr == __NR_fchmodat ? a[2] : a[1]);
                return 0;
        }
        c->kind = A_CHOWN;
        if (nr == __NR_chown || nr == __NR_lchown || nr == __NR_fchown) {
                c->by_fd = nr == __NR_fchown;
                c->follow = nr != __NR_lchown;
                c->path_addr = a[0];
                c->uid = (uid_t) a[1];
                c->gid = (gid_t) a[2];
                return 0;
        }
        if (a[4] & ~(uint64_t) (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
                return -EINVAL;
        c->dirfd = (int) a[0];
        c->path_addr = a[1];
        c->uid = (uid_t) a[2];
        c->gid = (gid_t) a[3];
        c->follow = !(a[4] & AT_SYMLINK_NOFOLLOW);
        c->empty_ok = a[4] & AT_EMPTY_PATH;
        return 0;
}

/* utimes(2) and utime(2) take microseconds and seconds: as timespecs. */
static int read_old_times(pid_t pid, int nr, uint64_t addr, struct timespec ret[2])
{
        if (nr == __NR_utime) {
                struct utimbuf u = { 0 };
                int r = read_bytes(pid, addr, &u, sizeof(u));
                ret[0] = (struct timespec) { u.actime, 0 };
                ret[1] = (struct timespec) { u.modtime, 0 };
                return r;
        }
        struct timeval tv[2] = { { 0 } };
        int r = read_bytes(pid, addr, tv, sizeof(tv));
        for (int i = 0; r >= 0 && i < 2; i++) {
                if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
                        return -EINVAL;
                ret[i] = (struct timespec) { tv[i].tv_sec, tv[i].tv_usec * 1000 };
        }
        return r;
}

static int decode_utime(const struct seccomp_notif *req, struct attr_call *c)
{
        const __u64 *a = req->data.args;
        int nr = req->data.nr;
        uint64_t times;

        c->kind = A_UTIME;
        if (nr == __NR_utimensat) {
                if (a[3] & ~(uint64_t) (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
                        return -EINVAL;
                c->follow = !(a[3] & AT_SYMLINK_NOFOLLOW);
                c->empty_ok = a[3] & AT_EMPTY_PATH;
                if (a[1] == 0 && (a[3] & AT_SYMLINK_NOFOLLOW))
                        return -EINVAL; /* as the kernel says for futimens with a flag */
        }
        if (nr == __NR_utimensat || nr == __NR_futimesat) {
                c->dirfd = (int) a[0];
                c->path_addr = a[1];
                times = a[2];
        } else {
                c->path_addr = a[0];
                times = a[1];
        }
        /* utimensat(fd, NULL, ...) is futimens(fd): the fd is the file. */
        c->by_fd = c->path_addr == 0 && nr != __NR_utime && nr != __NR_utimes;
        c->times_now = times == 0;
        if (c->times_now)
                return 0;
        if (nr == __NR_utimensat)
                return read_bytes(req->pid, times, c->times, sizeof(c->times));
        return read_old_times(req->pid, nr, times, c->times);
}

static int decode_xattr(const struct seccomp_notif *req, struct attr_call *c)
{
        const __u64 *a = req->data.args;
        int nr = req->data.nr, r;

        c->kind = nr == __NR_setxattr || nr == __NR_lsetxattr || nr == __NR_fsetxattr ? A_SETXATTR : A_REMOVEXATTR;
        c->by_fd = nr == __NR_fsetxattr || nr == __NR_fremovexattr;
        c->follow = nr != __NR_lsetxattr && nr != __NR_lremovexattr;
        c->path_addr = a[0];
        r = stk_sc_read_path(req->pid, a[1], c->name, sizeof(c->name));
        if (r < 0)
                return r == -ENAMETOOLONG ? -ERANGE : r;
        if (c->kind == A_REMOVEXATTR)
                return 0;
        c->size = (size_t) a[3];
        c->xflags = (int) a[4];
        if (c->size > XATTR_SIZE_MAX)
                return -E2BIG;
        c->value = malloc(c->size ? c->size : 1);
        if (!c->value)
                return -ENOMEM;
        return read_bytes(req->pid, a[2], c->value, c->size);
}

static bool is_utime(int nr)
{
        return nr == __NR_utimensat || nr == __NR_utime || nr == __NR_utimes || nr == __NR_futimesat;
}

static bool is_xattr(int nr)
{
        return nr == __NR_setxattr || nr == __NR_lsetxattr || nr == __NR_fsetxattr || nr == __NR_removexattr ||
               nr == __NR_lremovexattr || nr == __NR_fremovexattr;
}

static bool is_mode(int nr)
{
        return nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmod || nr == __NR_chown ||
               nr == __NR_lchown || nr == __NR_fchown || nr == __NR_fchownat;
}

static int decode(const struct seccomp_notif *req, struct attr_call *c)
{
        int nr = req->data.nr;

        *c = (struct attr_call) { .dirfd = AT_FDCWD, .follow = true };
        if (is_mode(nr))
                return decode_mode(req, c);
        if (is_utime(nr))
                return decode_utime(req, c);
        if (is_xattr(nr))
                return decode_xattr(req, c);
        return -ENOSYS;
}

/* Which attributes are made for the command: user.* (the kernel allows
 * them on files and directories only) and the POSIX ACLs, which are the
 * mode by other means (cp -a and cp -p copy the mode as
 * system.posix_acl_access) and get chmod's rule: the caller holds no
 * capability while we act (stk_sc_caps_off), so the kernel asks the same
 * ownership as for chmod, and refuses a default ACL on a non-directory.
 * Nothing else: the supervisor may hold privileges the command was denied
 * (root's CAP_SETFCAP), and security.capability on a workspace binary
 * would hand them out to whoever runs it later; trusted.* and security.*
 * are the LSMs' and root's. */
static bool xattr_allowed(const char *name, const struct stat *st)
{
        if (strncmp(name, "user.", 5) == 0)
                return S_ISREG(st->st_mode) || S_ISDIR(st->st_mode);
        if (streq(name, "system.posix_acl_access") || streq(name, "system.posix_acl_default"))
                return !S_ISLNK(st->st_mode);
        return false;
}

static int xattr_apply(const struct attr_call *c, const char *link, const struct stat *st)
{
        int r;

        if (S_ISLNK(st->st_mode) && strncmp(c->name, "system.posix_acl_", 17) == 0)
                return -EOPNOTSUPP; /* as the kernel says for a symlink's ACL */
        if (!xattr_allowed(c->name, st))
                return -EPERM;
        if (c->kind == A_SETXATTR)
                r = setxattr(link, c->name, c->value, c->size, c->xflags);
        else
                r = removexattr(link, c->name);
        return r < 0 ? -errno : 0;
}

static int apply(const struct attr_call *c, int fd)
{
        char link[64];
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        switch (c->kind) {
        case A_CHMOD:
                if (S_ISLNK(st.st_mode))
                        return -EOPNOTSUPP; /* as the kernel says for a symlink's mode */
                r = chmod(link, c->mode);
                break;
        case A_CHOWN:
                r = fchownat(fd, "", c->uid, c->gid, AT_EMPTY_PATH);
                break;
        case A_UTIME:
                r = utimensat(fd, "", c->times_now ? NULL : c->times, AT_EMPTY_PATH);
                break;
        default:
                return xattr_apply(c, link, &st);
        }
        return r < 0 ? -errno : 0;
}



bool fg_attr_is_guarded(int nr)
{
        return is_mode(nr) || is_utime(nr) || is_xattr(nr);
}

/* chmod /proc/self/fd/N (gnulib's fchmodat fallback, install(1), some
 * build tools) names the command's own fd N.  Resolved by us, "self" would
 * be the supervisor, and the magic link is refused anyway
 * (RESOLVE_NO_MAGICLINKS: ELOOP), so the name is read as the kernel would
 * read it for the command: its fd N, which it could change with fchmod(2)
 * as well.  may_change then judges the file that fd is open on.  Only the
 * absolute spellings: the command's /proc is read-only to it, so they
 * mean what they say.  -ENOENT: not such a name. */
static int own_fd_path(pid_t pid, const char *path)
{
        static const char *const prefixes[] = { "/proc/self/fd/", "/proc/thread-self/fd/" };

        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
                size_t n = strlen(prefixes[i]);
                char *end;
                long fd;

                if (strncmp(path, prefixes[i], n) != 0 || path[n] < '0' || path[n] > '9')
                        continue;
                errno = 0;
                fd = strtol(path + n, &end, 10);
                if (errno || *end || fd > INT_MAX)
                        return -EBADF;
                return stk_sc_fd_of(pid, (int) fd);
        }
        return -ENOENT;
}

static int open_named(const struct seccomp_notif *req, const struct attr_call *c, const char *path)
{
        int fd = c->follow ? own_fd_path(req->pid, path) : -ENOENT;

        return fd != -ENOENT ? fd : stk_sc_open_target(req->pid, c->dirfd, path, c->follow);
}

/* Do the call for the command if it may; 0 or -errno for it.  `still_valid`
 * is asked after the file is open and before it is changed: the pid in the
 * notification may have been reused by then. */
int fg_attr_call(int listener, const struct seccomp_notif *req, const struct fg_policy *pol)
{
        struct attr_call c;
        char path[PATH_MAX];
        int fd, r = decode(req, &c);

        if (r < 0) {
                free(c.value);
                return r;
        }
        if (c.by_fd)
                fd = stk_sc_fd_of(req->pid, (int) req->data.args[0]);
        else {
                r = stk_sc_read_path(req->pid, c.path_addr, path, sizeof(path));
                if (r >= 0 && !path[0] && !c.empty_ok)
                        r = -ENOENT; /* "" is no name, unless AT_EMPTY_PATH */
                fd = r < 0 ? r : open_named(req, &c, path);
        }
        if (fd < 0) {
                free(c.value);
                return fd;
        }
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                r = -ESRCH;
        else
                r = may_change(req->pid, fd, pol) ? apply(&c, fd) : -EPERM;
        close(fd);
        free(c.value);
        return r;
}
