/* SPDX-License-Identifier: MIT */
/*
 * guard_top, the supervisor's side: what writes beneath a writable root,
 * without a mount namespace (the Landlock stack).
 *
 * Landlock grants a right to a whole hierarchy and can deny nothing beneath
 * it, so a writable root that holds a read-only island (.git) or a protected
 * name (.vscode, .envrc, ...) gets its rights through its siblings, one by
 * one, as they exist when the rules are made: the root itself gets none, so
 * nothing could be created, removed or renamed at its top level (touch
 * notes.md, sed -i, npm init), and a directory made later would have no
 * rights at all (mkdir -p a/b, git clone).  Here those calls come to the
 * supervisor instead:
 *
 *   - outside the writable roots: answered CONTINUE, and the kernel decides
 *     with Landlock's rules, as without us.  That the command may change its
 *     path meanwhile does not matter: Landlock enforces there.
 *   - beneath a writable root: the entry is checked (not a protected path,
 *     island or hidden path, nor an ancestor of one), the other end of a
 *     rename or link too, and the supervisor makes the change itself
 *     through the directory it opened, on its own copy of the names: no
 *     check-then-use race.  A file opened for writing is opened by the
 *     supervisor (its final path checked first, symlinks followed as the
 *     kernel would) and handed over with SECCOMP_IOCTL_NOTIF_ADDFD, our
 *     copy closed before the answer.  Only regular files, opened
 *     O_NONBLOCK (a lease would block the supervisor), and FIFOs, which
 *     may have to wait for a reader (fs_guard_fifo.c); the kernel decides
 *     for the rest.
 *
 * Landlock's own rules stay as they are, beneath all this: a write the
 * supervisor does not make is still refused by the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "fs_guard_internal.h"
#include "common/stk_path.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

/* An open that may write: the filter notifies these only. */
#define WRITES (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)

bool fg_top_is_guarded(int nr)
{
        switch (nr) {
#ifdef __NR_open
        case __NR_open: case __NR_creat: case __NR_mkdir: case __NR_mknod: case __NR_symlink:
        case __NR_unlink: case __NR_rmdir: case __NR_rename: case __NR_link:
#endif
        case __NR_openat: case __NR_openat2: case __NR_mkdirat: case __NR_mknodat: case __NR_symlinkat:
        case __NR_unlinkat: case __NR_renameat: case __NR_renameat2: case __NR_linkat: case __NR_truncate:
        case __NR_bind:
                return true;
        default:
                return false;
        }
}

static void at(struct end *e, int dirfd, uint64_t addr)
{
        e->dirfd = dirfd;
        e->addr = addr;
        e->base = e->parent = -1;
}

/* openat2: flags and mode from its struct; any resolve flag is left to
 * the kernel (CONTINUE), which honours them. */
static int decode_openat2(const struct seccomp_notif *req, struct top_call *c)
{
        struct open_how how;
        struct iovec local = { &how, sizeof(how) }, remote = { (void *) (uintptr_t) req->data.args[2], sizeof(how) };

        if (req->data.args[3] != sizeof(how))
                return FG_CONTINUE; /* EINVAL, or a larger struct of a newer kernel: its call */
        if (process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != (ssize_t) sizeof(how))
                return -EFAULT;
        if (how.resolve || !(how.flags & WRITES) || how.flags > 0xffffffffULL || how.mode > 07777)
                return FG_CONTINUE;
        c->flags = (int) how.flags;
        c->mode = (mode_t) how.mode;
        return 0;
}

/* bind(2) of a pathname unix socket makes a file: at a writable root's
 * top, or in a directory made since the rules (which has no Landlock right
 * at all), Landlock refuses it (EACCES), so the supervisor binds the
 * command's socket itself.  Abstract and unnamed addresses, other
 * families: the kernel's.  The address is copied once; sun_path need not
 * end in a NUL. */
static int decode_bind(const struct seccomp_notif *req, struct top_call *c)
{
        struct sockaddr_un sa = { 0 };
        size_t len = (size_t) req->data.args[2], n;
        struct iovec local = { &sa, len }, remote = { (void *) (uintptr_t) req->data.args[1], len };

        if (len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof(sa))
                return FG_CONTINUE; /* autobind, or the kernel's EINVAL */
        if (process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != (ssize_t) len)
                return -EFAULT;
        if (sa.sun_family != AF_UNIX || sa.sun_path[0] == '\0')
                return FG_CONTINUE;
        n = strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path));
        memcpy(c->a.path, sa.sun_path, n);
        c->a.path[n] = '\0';
        c->op = T_BIND;
        at(&c->a, AT_FDCWD, 0);
        c->a.copied = true;
        return 0;
}

static int decode(const struct seccomp_notif *req, struct top_call *c)
{
        const __u64 *a = req->data.args;

        switch (req->data.nr) {
#ifdef __NR_open
        case __NR_open: c->op = T_OPEN; at(&c->a, AT_FDCWD, a[0]); c->flags = (int) a[1]; c->mode = (mode_t) a[2]; break;
        case __NR_creat: c->op = T_OPEN; at(&c->a, AT_FDCWD, a[0]); c->flags = O_CREAT | O_WRONLY | O_TRUNC; c->mode = (mode_t) a[1]; break;
        case __NR_mkdir: c->op = T_MKDIR; at(&c->a, AT_FDCWD, a[0]); c->mode = (mode_t) a[1]; break;
        case __NR_mknod: c->op = T_MKNOD; at(&c->a, AT_FDCWD, a[0]); c->mode = (mode_t) a[1]; c->dev = (dev_t) a[2]; break;
        case __NR_symlink: c->op = T_SYMLINK; c->target = a[0]; at(&c->a, AT_FDCWD, a[1]); break;
        case __NR_unlink: c->op = T_UNLINK; at(&c->a, AT_FDCWD, a[0]); break;
        case __NR_rmdir: c->op = T_UNLINK; at(&c->a, AT_FDCWD, a[0]); c->flags = AT_REMOVEDIR; break;
        case __NR_rename: c->op = T_RENAME; at(&c->a, AT_FDCWD, a[0]); at(&c->b, AT_FDCWD, a[1]); break;
        case __NR_link: c->op = T_LINK; at(&c->a, AT_FDCWD, a[0]); at(&c->b, AT_FDCWD, a[1]); break;
#endif
        case __NR_truncate: c->op = T_TRUNCATE; at(&c->a, AT_FDCWD, a[0]); c->length = (off_t) a[1]; break;
        case __NR_bind: return decode_bind(req, c);
        case __NR_linkat:
                /* AT_EMPTY_PATH links an fd (O_TMPFILE), AT_SYMLINK_FOLLOW the
                 * file a symlink names, which only the name was checked for:
                 * both the kernel's, with Landlock. */
                if (a[4])
                        return FG_CONTINUE;
                c->op = T_LINK; at(&c->a, (int) a[0], a[1]); at(&c->b, (int) a[2], a[3]); break;
        case __NR_openat: c->op = T_OPEN; at(&c->a, (int) a[0], a[1]); c->flags = (int) a[2]; c->mode = (mode_t) a[3]; break;
        case __NR_openat2: c->op = T_OPEN; at(&c->a, (int) a[0], a[1]); return decode_openat2(req, c);
        case __NR_mkdirat: c->op = T_MKDIR; at(&c->a, (int) a[0], a[1]); c->mode = (mode_t) a[2]; break;
        case __NR_mknodat: c->op = T_MKNOD; at(&c->a, (int) a[0], a[1]); c->mode = (mode_t) a[2]; c->dev = (dev_t) a[3]; break;
        case __NR_symlinkat: c->op = T_SYMLINK; c->target = a[0]; at(&c->a, (int) a[1], a[2]); break;
        case __NR_unlinkat:
                if (a[2] & ~(uint64_t) AT_REMOVEDIR)
                        return -EINVAL;
                c->op = T_UNLINK; at(&c->a, (int) a[0], a[1]); c->flags = (int) a[2]; break;
        case __NR_renameat: c->op = T_RENAME; at(&c->a, (int) a[0], a[1]); at(&c->b, (int) a[2], a[3]); break;
        case __NR_renameat2:
                c->op = T_RENAME; at(&c->a, (int) a[0], a[1]); at(&c->b, (int) a[2], a[3]); c->flags = (int) a[4]; break;
        default:
                return FG_CONTINUE;
        }
        if (c->op == T_OPEN && !(c->flags & WRITES))
                return FG_CONTINUE;
        if (c->op == T_MKNOD && !S_ISREG(c->mode) && !S_ISFIFO(c->mode) && !S_ISSOCK(c->mode) && (c->mode & S_IFMT))
                return FG_CONTINUE; /* a device: the kernel refuses it without capabilities */
        return 0;
}

/* Copy the path, split off its last name (trailing slashes of a directory
 * dropped), open the directory it names as the command would.  1 when the
 * name is not a plain one (".", "..", empty) or anything fails: then the
 * kernel decides, and Landlock with it, which is always safe. */
/* Where `e`'s path starts, as `other` (the first end, or NULL) starts:
 * the same root, cwd or dirfd, opened once for both. */
static int base_like(const struct end *e, const struct end *other)
{
        bool abs = e->path[0] == '/';
        int base;

        if (!other || (other->path[0] == '/') != abs || (!abs && other->dirfd != e->dirfd))
                return -1;
        base = other->base >= 0 ? other->base : other->parent_is_base ? other->parent : -1;
        return base < 0 ? -1 : fcntl(base, F_DUPFD_CLOEXEC, 3);
}

static int open_end(pid_t pid, struct end *e, const struct end *other)
{
        char dir[PATH_MAX], *slash;

        if (!e->copied && stk_sc_read_path(pid, e->addr, e->path, sizeof(e->path)) < 0)
                return 1; /* EFAULT, ENAMETOOLONG: the kernel says so */
        for (size_t len = strlen(e->path); len > 1 && e->path[len - 1] == '/'; len--) {
                e->path[len - 1] = '\0';
                e->slash = true;
        }
        slash = strrchr(e->path, '/');
        e->leaf = slash ? slash + 1 : e->path;
        if (!*e->leaf || strcmp(e->leaf, ".") == 0 || strcmp(e->leaf, "..") == 0)
                return 1;
        if (!slash)
                dir[0] = '\0';
        else if (slash == e->path)
                strcpy(dir, "/");
        else
                snprintf(dir, sizeof(dir), "%.*s", (int) (slash - e->path), e->path);
        if (e->base < 0)
                e->base = base_like(e, other);
        if (e->base < 0)
                e->base = stk_sc_open_base(pid, e->dirfd, e->path[0] == '/');
        if (e->base >= 0 && !dir[0]) { /* a name in the cwd or dirfd: that is the directory */
                e->parent = e->base;
                e->parent_is_base = true;
                e->base = -1;
        } else
                e->parent = e->base < 0 ? e->base : stk_sc_open_from(e->base, dir, true);
        if (e->parent < 0)
                return 1;
        return stk_sc_fd_path(e->parent, e->parent_path, sizeof(e->parent_path)) == 0 && e->parent_path[0] == '/' ? 0 : 1;
}

static bool is_root_of(const char *dir, const char *const *write)
{
        for (size_t i = 0; write && write[i]; i++)
                if (strcmp(dir, write[i]) == 0)
                        return true;
        return false;
}

/* An island, hidden or protected path, or the parent of one (renaming .git
 * away would take its hooks along). */
static bool protected(const char *p, const struct fg_policy *pol)
{
        return fg_beneath_protected(p, pol->read_only, pol->hide) || fg_holds_protected(p, pol->read_only, pol->hide);
}

/* The entry's own path, `dir/leaf`; false when too long. */
static bool entry_path(const struct end *e, char *buf, size_t size)
{
        return snprintf(buf, size, "%s/%s", strcmp(e->parent_path, "/") ? e->parent_path : "", e->leaf) < (int) size;
}

/* The entry `dir/leaf` may be made, removed or renamed by the supervisor:
 * beneath a writable root (not one itself) and not protected(). */
static bool may_touch(const struct end *e, const struct fg_policy *pol)
{
        char full[PATH_MAX];

        if (!entry_path(e, full, sizeof(full)))
                return false;
        return stk_sc_beneath_any(full, pol->write) && !is_root_of(full, pol->write) && !protected(full, pol);
}

/* An entry outside the writable roots, in the host's /tmp that private_tmp
 * means to replace: Landlock refuses it (EACCES), and the user is told
 * once why and where to write instead. */
static void tell_host_tmp(const struct end *e, const struct fg_policy *pol)
{
        char full[PATH_MAX];

        if (!pol->host_tmp || !pol->host_tmp_refused || !stk_path_beneath(e->parent_path, pol->host_tmp))
                return;
        if (snprintf(full, sizeof(full), "%s/%s", e->parent_path, e->leaf) < (int) sizeof(full))
                pol->host_tmp_refused(pol->userdata, full);
}

/* The command's umask applies, ours does not (perform() clears it).  Not
 * known (its status unreadable): 077, the tightest, never a looser mode
 * than the command asked for. */
static mode_t umask_of(pid_t pid)
{
        char path[64], buf[256], *line;
        unsigned m = 077;
        ssize_t n = -1;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                n = read(fd, buf, sizeof(buf) - 1); /* "Name:" and "Umask:" come first */
                close(fd);
        }
        if (n > 0) {
                buf[n] = '\0';
                line = strstr(buf, "\nUmask:");
                if (!line || sscanf(line + 1, "Umask: %o", &m) != 1)
                        m = 077;
        }
        return (mode_t) (m & 0777);
}

/* No set-user-ID or set-group-ID file is made for the command: we may be
 * root, and such a file in a workspace runs as its owner for anyone. */
mode_t file_mode(pid_t pid, mode_t mode)
{
        return mode & 01777 & ~umask_of(pid);
}

/* Put `fd` into the command; its open() returns the number (*ret_val).
 * Not with SECCOMP_ADDFD_FLAG_SEND: that answers at once, and the command
 * would run while our copy still holds the file open for writing (exec of
 * a script it just wrote: ETXTBSY; a lease: EAGAIN).  Ours is closed
 * first, then the answer goes. */
int fg_hand_over(int listener, const struct seccomp_notif *req, int fd, int flags, long *ret_val)
{
        struct seccomp_notif_addfd add = { .id = req->id, .srcfd = (__u32) fd,
                                           .newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0 };
        int r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);

        if (r < 0)
                r = -errno;
        close(fd);
        if (r >= 0)
                *ret_val = r;
        return r < 0 ? r : 0;
}


/* Open `path` (ours) for the command.  O_NONBLOCK: a lease on the file
 * (the command's, of a host process) would otherwise stall the supervisor
 * until it broke; the kernel answers EWOULDBLOCK instead, and the flag is
 * taken off again unless the command asked for it. */
int open_for_command(int dirfd, const char *path, int flags, mode_t mode)
{
        /* A file we make (O_EXCL) is nobody's yet: no lease can hold it. */
        bool fresh = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
        int fd = openat(dirfd, path, (flags & ~O_CLOEXEC) | O_CLOEXEC | O_NOCTTY | (fresh ? 0 : O_NONBLOCK), mode);

        if (fd < 0)
                return -errno;
        if (!fresh && !(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~(O_NONBLOCK | O_CREAT | O_EXCL | O_TRUNC)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* The existing file we hold as `target` (checked), opened again for the
 * command with its flags and handed over; truncate(2) through an fd of
 * ours. */
int fg_reopen(int listener, const struct seccomp_notif *req, const struct top_call *c, int target, long *ret_val)
{
        char link[64];
        int fd, r;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", target);
        if (c->op == T_TRUNCATE) {
                fd = open_for_command(AT_FDCWD, link, O_WRONLY, 0);
                if (fd < 0)
                        return fd;
                r = ftruncate(fd, c->length) < 0 ? -errno : 0;
                close(fd);
                return r;
        }
        fd = open_for_command(AT_FDCWD, link, c->flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), 0);
        return fd < 0 ? fd : fg_hand_over(listener, req, fd, c->flags, ret_val);
}

/* An existing file, as the kernel would find it (symlinks followed unless
 * O_NOFOLLOW): beneath a writable root and not protected, a regular file
 * is opened again by us with the command's flags, a FIFO as
 * fs_guard_fifo.c says; anything else is the kernel's.  truncate(2) the same way, through an fd of ours. */
static int open_existing(int listener, const struct seccomp_notif *req, const struct top_call *c, int target,
                         const struct fg_policy *pol, long *ret_val)
{
        char real[PATH_MAX];
        struct stat st;

        if (fstat(target, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) ||
            stk_sc_fd_path(target, real, sizeof(real)) < 0 || real[0] != '/' || !stk_sc_beneath_any(real, pol->write))
                return FG_CONTINUE;
        if (protected(real, pol))
                return -EACCES;
        if (c->op == T_OPEN && (c->flags & O_CREAT) && (c->flags & O_EXCL))
                return -EEXIST;
        if (fg_grants_cover(pol->grants, real))
                return FG_CONTINUE; /* Landlock grants it: the kernel's open, a FIFO's wait too */
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        if (S_ISFIFO(st.st_mode)) /* truncate: the kernel's EINVAL */
                return c->op == T_OPEN ? fg_fifo_open(listener, req, target, c->flags, pol, ret_val) : FG_CONTINUE;
        return fg_reopen(listener, req, c, target, ret_val);
}

/* A new file: made in the directory the command named, exclusively and
 * without following a symlink that may have appeared there meanwhile. */
static int open_new(int listener, const struct seccomp_notif *req, struct top_call *c, const struct fg_policy *pol,
                    long *ret_val)
{
        mode_t mode, old;
        int fd, r;

        if (open_end(req->pid, &c->a, NULL) != 0)
                return FG_CONTINUE;
        if (!stk_sc_beneath_any(c->a.parent_path, pol->write)) {
                r = fg_shm_open_new(listener, req, c, pol, ret_val); /* the run's own name in /dev/shm */
                if (r == FG_CONTINUE)
                        tell_host_tmp(&c->a, pol);
                return r;
        }
        if (c->a.slash)
                return -EISDIR; /* "name/" with O_CREAT: the kernel's answer */
        if (!may_touch(&c->a, pol))
                return -EACCES;
        if (fg_grants_cover(pol->grants, c->a.parent_path))
                return FG_CONTINUE; /* Landlock grants making it there */
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        mode = file_mode(req->pid, c->mode);
        old = umask(0);
        fd = open_for_command(c->a.parent, c->a.leaf, c->flags | O_EXCL | O_NOFOLLOW, mode);
        (void) umask(old);
        return fd < 0 ? fd : fg_hand_over(listener, req, fd, c->flags, ret_val);
}

static int open_decide(int listener, const struct seccomp_notif *req, struct top_call *c, const struct fg_policy *pol,
                       long *ret_val)
{
        bool follow = c->op == T_TRUNCATE || !(c->flags & O_NOFOLLOW);
        int target, r;

        if (stk_sc_read_path(req->pid, c->a.addr, c->a.path, sizeof(c->a.path)) < 0 || !c->a.path[0])
                return FG_CONTINUE; /* EFAULT; "" is ENOENT */
        c->a.copied = true; /* one copy of the path, one start for both lookups */
        c->a.base = stk_sc_open_base(req->pid, c->a.dirfd, c->a.path[0] == '/');
        if (c->a.base < 0)
                return FG_CONTINUE; /* the caller is gone, or its dirfd is not a file: the kernel says so */
        target = stk_sc_open_from(c->a.base, c->a.path, follow);
        if (target >= 0) {
                r = fg_shm_open_existing(listener, req, c, target, pol, ret_val);
                if (r == FG_CONTINUE)
                        r = open_existing(listener, req, c, target, pol, ret_val);
                close(target);
                return r;
        }
        if (target != -ENOENT || c->op != T_OPEN || !(c->flags & O_CREAT))
                return FG_CONTINUE;
        r = open_new(listener, req, c, pol, ret_val);
        /* EEXIST: made since we looked (by the command itself): once more,
         * as the existing file it now is. */
        if (r == -EEXIST && !(c->flags & O_EXCL)) {
                target = stk_sc_open_from(c->a.base, c->a.path, follow);
                if (target < 0)
                        return FG_CONTINUE;
                r = fg_shm_open_existing(listener, req, c, target, pol, ret_val);
                if (r == FG_CONTINUE)
                        r = open_existing(listener, req, c, target, pol, ret_val);
                close(target);
        }
        return r;
}

/* Bind the command's socket at leaf in the directory we hold: from there
 * (fchdir to our O_PATH fd of it), so no name is looked up again, and the
 * socket's name is the last one of what the command gave (its own for a
 * name at the top).  Its umask applies.  Our working directory is put
 * back; we never use it otherwise. */
static int bind_for(const struct seccomp_notif *req, const struct top_call *c)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int sock, here, r = 0, domain = 0;
        socklen_t dl = sizeof(domain);
        mode_t old;

        if (strlen(c->a.leaf) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, c->a.leaf);
        sock = stk_sc_fd_of(req->pid, (int) req->data.args[0]);
        if (sock < 0)
                return sock;
        if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dl) < 0 || domain != AF_UNIX) {
                close(sock);
                return domain ? -EINVAL : -ENOTSOCK; /* what bind says for a wrong family */
        }
        here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (here < 0 || fchdir(c->a.parent) < 0)
                r = -errno;
        old = umask(umask_of(req->pid));
        if (r >= 0 && bind(sock, (const struct sockaddr *) &sa, sizeof(sa)) < 0)
                r = -errno;
        (void) umask(old);
        if (here >= 0 && fchdir(here) < 0 && r >= 0)
                r = -EIO;
        if (here >= 0)
                close(here);
        close(sock);
        return r;
}

static int make(const struct seccomp_notif *req, const struct top_call *c)
{
        char target[PATH_MAX];
        int r = 0;

        switch (c->op) {
        case T_OPEN:
                return -EINVAL; /* made by open_decide */
        case T_MKDIR:
                r = mkdirat(c->a.parent, c->a.leaf, c->mode & 07777 & ~umask_of(req->pid));
                break;
        case T_MKNOD:
                r = mknodat(c->a.parent, c->a.leaf, (c->mode & S_IFMT) | file_mode(req->pid, c->mode), c->dev);
                break;
        case T_SYMLINK:
                r = stk_sc_read_path(req->pid, c->target, target, sizeof(target));
                if (r < 0)
                        return r;
                r = symlinkat(target, c->a.parent, c->a.leaf);
                break;
        case T_UNLINK:
                r = unlinkat(c->a.parent, c->a.leaf, c->flags & AT_REMOVEDIR);
                break;
        case T_RENAME:
                if (c->flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
                        return -EPERM; /* RENAME_WHITEOUT: a device, for overlayfs */
                r = (int) syscall(SYS_renameat2, c->a.parent, c->a.leaf, c->b.parent, c->b.leaf, c->flags);
                break;
        case T_LINK: /* the entry itself: a symlink stays a symlink */
                r = linkat(c->a.parent, c->a.leaf, c->b.parent, c->b.leaf, 0);
                break;
        case T_TRUNCATE:
                return -EINVAL; /* made by open_decide */
        case T_BIND:
                return bind_for(req, c);
        }
        return r < 0 ? -errno : 0;
}

/* Our umask off for the call: the modes are the command's, its umask
 * applied.  The supervisor's other thread (net_proxy's resolver) makes no
 * files.  (Our capabilities are off already: fg_notify.) */
static int perform(const struct seccomp_notif *req, const struct top_call *c)
{
        mode_t old = umask(0);
        int r = make(req, c);

        (void) umask(old);
        return r;
}

/* A call that makes a name which is there already. */
static bool creates_existing(const struct top_call *c)
{
        const struct end *e = c->op == T_LINK ? &c->b : &c->a;
        struct stat st;

        if (c->op != T_MKDIR && c->op != T_MKNOD && c->op != T_SYMLINK && c->op != T_LINK && c->op != T_BIND)
                return false;
        return fstatat(e->parent, e->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* What a rename or removal takes away from its path: the rule Landlock
 * put on the entry there (it goes with the inode), whether we or the
 * kernel make the change, and even if it then fails. */
static void forget_moved(const struct top_call *c, const struct fg_policy *pol)
{
        char full[PATH_MAX];

        if (c->op != T_UNLINK && c->op != T_RENAME)
                return;
        if (entry_path(&c->a, full, sizeof(full)))
                fg_grants_forget(pol->grants, full);
        if (c->op == T_RENAME && entry_path(&c->b, full, sizeof(full)))
                fg_grants_forget(pol->grants, full);
}

/* Landlock grants the call: its directory is beneath a write rule (a
 * rename or link within that one directory: across two, Landlock's REFER
 * rules are the kernel's to weigh, and the supervisor makes those). */
static bool granted_here(const struct top_call *c, const struct fg_policy *pol)
{
        if ((c->op == T_RENAME || c->op == T_LINK) && strcmp(c->a.parent_path, c->b.parent_path) != 0)
                return false;
        return fg_grants_cover(pol->grants, c->a.parent_path);
}

/* Beneath a writable root, either end: ours to do, if both ends may be
 * touched; elsewhere the kernel's, with Landlock. */
static int decide(int listener, const struct seccomp_notif *req, struct top_call *c, const struct fg_policy *pol,
                  long *ret_val)
{
        bool two = c->op == T_RENAME || c->op == T_LINK;
        int r;

        if (c->op == T_OPEN || c->op == T_TRUNCATE)
                return open_decide(listener, req, c, pol, ret_val);
        r = open_end(req->pid, &c->a, NULL);
        if (r == 0 && two)
                r = open_end(req->pid, &c->b, &c->a);
        if (r != 0)
                return FG_CONTINUE;
        forget_moved(c, pol);
        /* "name/" says a directory: only mkdir and rmdir take one here. */
        if ((c->a.slash || c->b.slash) && c->op != T_MKDIR && !(c->op == T_UNLINK && (c->flags & AT_REMOVEDIR)))
                return FG_CONTINUE;
        if (!stk_sc_beneath_any(c->a.parent_path, pol->write) && !(two && stk_sc_beneath_any(c->b.parent_path, pol->write))) {
                r = fg_shm_decide(listener, req, c, pol); /* the run's own names in /dev/shm */
                if (r == FG_CONTINUE)
                        tell_host_tmp(two ? &c->b : &c->a, pol);
                return r;
        }
        /* Refused, unless the name is there: then EEXIST, as the kernel
         * says before anything else (mkdir of a protected name that
         * exists).  Allowed, the call itself says EEXIST. */
        if (!may_touch(&c->a, pol) || (two && !may_touch(&c->b, pol)))
                return !creates_existing(c) ? -EACCES : c->op == T_BIND ? -EADDRINUSE : -EEXIST;
        if (granted_here(c, pol))
                return FG_CONTINUE;
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        return perform(req, c);
}

int fg_top_call(int listener, const struct seccomp_notif *req, const struct fg_policy *pol, long *ret_val)
{
        struct top_call *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return -ENOMEM;
        if (!stk_sc_same_ns(req->pid, "mnt")) {
                free(c);
                return FG_CONTINUE; /* its own mounts decide */
        }
        c->a.parent = c->b.parent = c->a.base = c->b.base = -1;
        r = decode(req, c);
        if (r == 0)
                r = decide(listener, req, c, pol, ret_val);
        for (struct end *e = &c->a; e <= &c->b; e++) {
                if (e->parent >= 0)
                        close(e->parent);
                if (e->base >= 0)
                        close(e->base);
        }
        free(c);
        return r;
}
