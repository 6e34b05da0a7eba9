/* SPDX-License-Identifier: MIT */
/*
 * lib/seccomp: what the modules that answer a sandboxed command's system
 * calls in the supervisor share (net_seccomp's connect guard, fs_guard's
 * file guards): a libseccomp filter as BPF, its load, and the supervisor's
 * view of the calling process (its strings, fds, namespaces).  Linux only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "seccomp/stk_seccomp.h"
#include "common/stk_path.h"

/* Ours, looked up once a process: the supervisor never changes its
 * namespaces, and this is on the path of every notification.  A fork
 * (a warm session's worker) has the same ones. */
static bool own_ns(const char *ns, struct stat *ret)
{
        static struct { char name[8]; struct stat st; } seen[4];
        static size_t n_seen;
        char path[64];

        for (size_t i = 0; i < n_seen; i++)
                if (strcmp(seen[i].name, ns) == 0) {
                        *ret = seen[i].st;
                        return true;
                }
        snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
        if (stat(path, ret) < 0)
                return false;
        if (n_seen < sizeof(seen) / sizeof(seen[0]) && strlen(ns) < sizeof(seen[0].name)) {
                strcpy(seen[n_seen].name, ns);
                seen[n_seen++].st = *ret;
        }
        return true;
}

bool stk_sc_same_ns(pid_t pid, const char *ns)
{
        char a[64];
        struct stat sa, sb;

        snprintf(a, sizeof(a), "/proc/%d/ns/%s", (int) pid, ns);
        return stat(a, &sa) == 0 && own_ns(ns, &sb) && sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

bool stk_sc_beneath_any(const char *p, const char *const *roots)
{
        for (size_t i = 0; roots && roots[i]; i++)
                if (stk_path_beneath(p, roots[i]))
                        return true;
        return false;
}

/* The command's open file `fd`, as a descriptor of ours (pidfd_getfd: the
 * same open file); -ESRCH or -EBADF. */
int stk_sc_fd_path(int fd, char *buf, size_t size)
{
        char link[64];
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, buf, size - 1);
        if (n <= 0)
                return -1;
        buf[n] = '\0';
        return 0;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif
int stk_sc_fd_of(pid_t pid, int fd)
{
        /* The notification names the thread; pidfd_open(2) takes a thread
         * that leads no group only with PIDFD_THREAD (a build tool's worker
         * thread making files relative to a directory fd). */
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0), r;

        if (pidfd < 0 && (errno == EINVAL || errno == ENOENT)) /* ENOENT: no such group leader */
                pidfd = (int) syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
        if (pidfd < 0)
                return -ESRCH;
        r = (int) syscall(SYS_pidfd_getfd, pidfd, fd, 0);
        close(pidfd);
        return r < 0 ? -EBADF : r;
}

/* The path argument, copied once: page by page, as a string may end just
 * before an unmapped page. */
int stk_sc_read_path(pid_t pid, uint64_t addr, char *buf, size_t size)
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

int stk_sc_open_base(pid_t pid, int dirfd, bool absolute)
{
        char proc[64];
        int base;

        if (absolute) {
                snprintf(proc, sizeof(proc), "/proc/%d/root", (int) pid);
                base = open(proc, O_PATH | O_CLOEXEC);
        } else if (dirfd == AT_FDCWD) {
                snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int) pid);
                base = open(proc, O_PATH | O_CLOEXEC);
        } else
                return stk_sc_fd_of(pid, dirfd);
        return base < 0 ? -errno : base;
}

int stk_sc_open_from(int base, const char *path, bool follow)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
                                .resolve = RESOLVE_NO_MAGICLINKS };
        int fd;

        if (path[0] == '/') {
                how.resolve |= RESOLVE_IN_ROOT;
                path++;
        }
        if (!*path) /* AT_EMPTY_PATH, or "/" */
                fd = fcntl(base, F_DUPFD_CLOEXEC, 3);
        else
                fd = (int) syscall(SYS_openat2, base, path, &how, sizeof(how));
        return fd < 0 ? -errno : fd;
}

/* The file the command named, opened O_PATH by us. */
int stk_sc_open_target(pid_t pid, int dirfd, const char *path, bool follow)
{
        int base = stk_sc_open_base(pid, dirfd, path[0] == '/'), fd;

        if (base < 0)
                return base;
        fd = stk_sc_open_from(base, path, follow);
        close(base);
        return fd;
}

/* The command holds no capability (the core or bwrap dropped them all, and
 * no_new_privs keeps it so), and runs as our uid: while the supervisor
 * acts for it, it holds none either, so the kernel grants the change
 * exactly as it would the command (root's CAP_FOWNER, CAP_CHOWN or
 * CAP_DAC_OVERRIDE would let it chmod another user's file in the
 * workspace, or chown and setuid a binary there).  Per thread (Linux
 * capabilities are): net_proxy's resolver keeps its own. */
int stk_sc_caps_off(struct stk_sc_caps *saved)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2];

        saved->dropped = false;
        if (syscall(SYS_capget, &h, saved->data) < 0)
                return -errno;
        if (!saved->data[0].effective && !saved->data[1].effective)
                return 0;
        memcpy(none, saved->data, sizeof(none));
        none[0].effective = none[1].effective = 0;
        if (syscall(SYS_capset, &h, none) < 0)
                return -errno;
        saved->dropped = true;
        return 0;
}

void stk_sc_caps_on(const struct stk_sc_caps *saved)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2];

        memcpy(data, saved->data, sizeof(data));
        if (saved->dropped)
                (void) syscall(SYS_capset, &h, data); /* raising back what the permitted set holds cannot fail */
}

/* libseccomp 2.5 exports BPF only to an fd: a memfd, read back. */
int stk_sc_export(scmp_filter_ctx f, struct stk_sc_prog *ret)
{
        struct stat st;
        int r = 0, fd = memfd_create("stockade-bpf", MFD_CLOEXEC);

        if (fd < 0)
                return -errno;
        r = seccomp_export_bpf(f, fd);
        if (r >= 0 && fstat(fd, &st) < 0)
                r = -errno;
        if (r >= 0 && (st.st_size == 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
                       st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS))
                r = -E2BIG;
        if (r >= 0) {
                ret->insns = malloc((size_t)st.st_size);
                if (!ret->insns)
                        r = -ENOMEM;
        }
        if (r >= 0 && pread(fd, ret->insns, (size_t)st.st_size, 0) != st.st_size)
                r = errno ? -errno : -EIO;
        if (r >= 0)
                ret->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
        close(fd);
        return r;
}

/* seccomp(2) needs no_new_privs (or CAP_SYS_ADMIN, not to be relied on):
 * set it and read it back, as libseccomp does with SCMP_FLTATR_CTL_NNP. */
int stk_sc_load(const struct stk_sc_prog *p)
{
        struct sock_fprog prog = { .len = p->len, .filter = p->insns };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0)
                return -errno;
        if (prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) != 1)
                return -EPERM;
        long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, p->flags, &prog);
        if (r < 0)
                return -errno;
        return (p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) ? (int) r : 0;
}

void stk_sc_prog_done(struct stk_sc_prog *p)
{
        free(p->insns);
        *p = (struct stk_sc_prog){ 0 };
}

int stk_sc_compile(scmp_filter_ctx f, unsigned flags, struct stk_sc_prog *ret)
{
        struct stk_sc_prog p = { 0 };
        int r = stk_sc_export(f, &p);

        if (r < 0) {
                stk_sc_prog_done(&p);
                return r;
        }
        p.flags = flags;
        *ret = p;
        return 0;
}

/* What the command may write without a mount namespace of its own: the
 * writable roots, and what a module planned as a writable bind at the same
 * path (fs_landlock's per-run TMPDIR: its sockets and files are the
 * command's own).  With a mount namespace its mounts decide, and these are
 * not asked. */
int stk_sc_writable(const struct stk_host *host, struct stk_ctx *ctx, const char ***ret)
{
        const struct stk_settings *s = host->settings(ctx);
        size_t n_binds = 0, n = 0, k = 0;
        const struct stk_bind *binds = host->plan_binds(ctx, &n_binds);
        const char **w;

        while (s->write[n])
                n++;
        w = calloc(n + n_binds + 1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                w[k++] = s->write[i];
        for (size_t i = 0; binds && i < n_binds; i++)
                if ((binds[i].flags & STK_BIND_RW) && strcmp(binds[i].source, binds[i].dest) == 0)
                        w[k++] = binds[i].dest;
        *ret = w;
        return 0;
}

/* Linux 6.6: wake the supervisor with a synchronous wake-up, so that it
 * runs where the command stopped and the command where the supervisor
 * answered: a notification's round trip, which fs_guard's guard_top pays
 * on every file it makes, is otherwise mostly cross-CPU wake-ups (IPIs,
 * dear on a virtual machine).  An older kernel says EINVAL: only slower. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
int stk_sc_sync_wake_up(int listener)
{
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0 && errno != EINVAL)
                return -errno;
        return 0;
}

/* The handoff: a header, the options the program was compiled for, then the
 * instructions.  Copied in and out with memcpy, so nothing in it needs to
 * be aligned. */
struct sc_handoff_head {
        uint32_t opts_size, flags, len;
};

bool stk_sc_handoff_available(const struct stk_host *host)
{
        return host && STK_HAS(host, stk_host, handoff_take) && host->handoff && host->handoff_take;
}

int stk_sc_handoff_give(const struct stk_host *host, struct stk_ctx *ctx, const void *opts, size_t opts_size,
                        struct stk_sc_prog *prog)
{
        struct sc_handoff_head head = { (uint32_t) opts_size, prog->flags, prog->len };
        size_t insns = (size_t) prog->len * sizeof(struct sock_filter);
        size_t size = sizeof(head) + opts_size + insns;
        unsigned char *h = malloc(size);
        int r;

        if (!h) {
                stk_sc_prog_done(prog);
                return -ENOMEM;
        }
        memcpy(h, &head, sizeof(head));
        memcpy(h + sizeof(head), opts, opts_size);
        memcpy(h + sizeof(head) + opts_size, prog->insns, insns);
        stk_sc_prog_done(prog);
        r = host->handoff(ctx, h, size);
        free(h);
        return r;
}

int stk_sc_handoff_take(const struct stk_host *host, struct stk_ctx *ctx, const void *opts, size_t opts_size,
                        bool (*same_opts)(const void *given, const void *ours), struct stk_sc_prog *ret)
{
        struct sc_handoff_head head;
        const unsigned char *data = NULL;
        size_t len = 0, insns;
        void *given;
        bool same;
        int r;

        if (!stk_sc_handoff_available(host))
                return 0;
        r = host->handoff_take(ctx, (const void **) &data, &len);
        if (r < 0 || !data)
                return r;
        if (len < sizeof(head))
                return -EBADMSG;
        memcpy(&head, data, sizeof(head));
        insns = (size_t) head.len * sizeof(struct sock_filter);
        if (head.opts_size != opts_size || head.len == 0 || head.len > BPF_MAXINSNS ||
            len != sizeof(head) + opts_size + insns)
                return -EBADMSG;
        given = malloc(opts_size ? opts_size : 1);
        if (!given)
                return -ENOMEM;
        memcpy(given, data + sizeof(head), opts_size);
        same = same_opts(given, opts);
        free(given);
        if (!same)
                return 0;
        ret->insns = malloc(insns);
        if (!ret->insns)
                return -ENOMEM;
        memcpy(ret->insns, data + sizeof(head) + opts_size, insns);
        ret->len = (unsigned short) head.len;
        ret->flags = head.flags;
        return 1;
}
