/* SPDX-License-Identifier: MIT */
/*
 * guard_attr, the supervisor's side: chmod and chown of the command arrive
 * here as seccomp user notifications.  Landlock has no right for file
 * metadata, so in the Landlock stack a command could chmod 0666 or chmod +x
 * a file of ours outside every writable root.
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
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "net_seccomp_internal.h"
#include "stk_path.h"

/* The path argument, copied once: page by page, as a string may end just
 * before an unmapped page. */
static int read_path(pid_t pid, uint64_t addr, char *buf, size_t size)
{
        size_t have = 0;

        while (have < size) {
                size_t page_left = 4096 - (size_t) ((addr + have) % 4096), want = size - have;
                struct iovec local, remote;
                ssize_t n;

                if (want > page_left)
                        want = page_left;
                local = (struct iovec) { buf + have, want };
                remote = (struct iovec) { (void *) (uintptr_t) (addr + have), want };
                n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
                if (n <= 0)
                        return -EFAULT;
                if (memchr(buf + have, '\0', (size_t) n))
                        return 0;
                have += (size_t) n;
        }
        return -ENAMETOOLONG;
}

/* The file the command named, opened O_PATH by us. */
static int open_target(pid_t pid, int dirfd, const char *path, bool follow)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
                                .resolve = RESOLVE_NO_MAGICLINKS };
        char proc[64];
        int base, fd;

        if (path[0] == '/') {
                snprintf(proc, sizeof(proc), "/proc/%d/root", (int) pid);
                base = open(proc, O_PATH | O_CLOEXEC);
                how.resolve |= RESOLVE_IN_ROOT;
                path++;
        } else if (dirfd == AT_FDCWD) {
                snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int) pid);
                base = open(proc, O_PATH | O_CLOEXEC);
        } else
                base = ns_fd_of(pid, dirfd);
        if (base == -1)
                return -errno; /* open(2) of /proc/PID/... */
        if (base < 0)
                return base;   /* ns_fd_of */
        if (!*path)
                return base;   /* AT_EMPTY_PATH, or "/" */
        fd = (int) syscall(SYS_openat2, base, path, &how, sizeof(how));
        fd = fd < 0 ? -errno : fd;
        close(base);
        return fd;
}

/* May the command change the metadata of what `fd` is open on? */
static bool may_change(pid_t pid, int fd, const struct ns_unix_policy *pol)
{
        char link[64], real[PATH_MAX];
        ssize_t n;

        if (!ns_same_ns(pid, "mnt"))
                return true; /* its own mounts decide (EROFS outside its writable roots) */
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, real, sizeof(real) - 1);
        if (n <= 0)
                return false;
        real[n] = '\0';
        if (real[0] != '/')
                return true; /* a pipe, socket, memfd: not a file of the host's tree */
        return ns_beneath_any(real, pol->write) && !ns_beneath_any(real, pol->read_only) &&
               !ns_beneath_any(real, pol->hide);
}

struct attr_call {
        bool is_chmod;
        bool by_fd;             /* fchmod, fchown: args[0] is the fd */
        int dirfd;
        uint64_t path_addr;
        bool follow;
        mode_t mode;
        uid_t uid;
        gid_t gid;
};

static int decode(const struct seccomp_notif *req, struct attr_call *c)
{
        const __u64 *a = req->data.args;
        int nr = req->data.nr;

        *c = (struct attr_call) { .dirfd = AT_FDCWD, .follow = true };
        if (nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmod) {
                c->is_chmod = true;
                c->by_fd = nr == __NR_fchmod;
                c->dirfd = nr == __NR_fchmodat ? (int) a[0] : AT_FDCWD;
                c->path_addr = nr == __NR_fchmodat ? a[1] : a[0];
                c->mode = (mode_t) (nr == __NR_fchmodat ? a[2] : a[1]);
                return 0;
        }
        if (nr == __NR_chown || nr == __NR_lchown || nr == __NR_fchown) {
                c->by_fd = nr == __NR_fchown;
                c->follow = nr != __NR_lchown;
                c->path_addr = a[0];
                c->uid = (uid_t) a[1];
                c->gid = (gid_t) a[2];
                return 0;
        }
        if (nr == __NR_fchownat) {
                if (a[4] & ~(uint64_t) (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
                        return -EINVAL;
                c->dirfd = (int) a[0];
                c->path_addr = a[1];
                c->uid = (uid_t) a[2];
                c->gid = (gid_t) a[3];
                c->follow = !(a[4] & AT_SYMLINK_NOFOLLOW);
                return 0;
        }
        return -ENOSYS;
}

static int apply(const struct attr_call *c, int fd)
{
        char link[64];
        int r;

        if (c->is_chmod) {
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (S_ISLNK(st.st_mode))
                        return -EOPNOTSUPP; /* as the kernel says for a symlink's mode */
                snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
                r = chmod(link, c->mode);
        } else
                r = fchownat(fd, "", c->uid, c->gid, AT_EMPTY_PATH);
        return r < 0 ? -errno : 0;
}

bool ns_attr_is_guarded(int nr)
{
        return nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmod || nr == __NR_chown ||
               nr == __NR_lchown || nr == __NR_fchown || nr == __NR_fchownat;
}

/* Do the call for the command if it may; 0 or -errno for it.  `still_valid`
 * is asked after the file is open and before it is changed: the pid in the
 * notification may have been reused by then. */
int ns_attr_call(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol)
{
        struct attr_call c;
        char path[PATH_MAX];
        int fd, r = decode(req, &c);

        if (r < 0)
                return r;
        if (c.by_fd)
                fd = ns_fd_of(req->pid, (int) req->data.args[0]);
        else {
                r = read_path(req->pid, c.path_addr, path, sizeof(path));
                if (r < 0)
                        return r;
                fd = open_target(req->pid, c.dirfd, path, c.follow);
        }
        if (fd < 0)
                return fd;
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                r = -ESRCH;
        else
                r = may_change(req->pid, fd, pol) ? apply(&c, fd) : -EPERM;
        close(fd);
        return r;
}
