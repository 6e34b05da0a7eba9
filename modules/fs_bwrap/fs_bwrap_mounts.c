/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap_mounts.c - what fs_bwrap makes on the host for bwrap, and its
 * removal in fini.
 *
 * bwrap 0.8 can hide or freeze a path only by mounting something on it, and
 * a mount needs an existing mount point.  A protected path that does not
 * exist yet inside a writable root (.vscode, .gitmodules) must still not be
 * creatable by the command, so for the run it becomes an empty directory on
 * the host (missing parents too), with an empty read-only directory bound on
 * it in the sandbox.  fini removes what it made, if still empty.
 *
 * Runs overlap (an agent runs commands in parallel, in one workspace).
 * Removing a directory that is a mount point in another mount namespace
 * detaches that mount there (Linux >= 3.18, d_invalidate), which would make
 * the path creatable again in the other run's sandbox.  So a run holds
 * flock(LOCK_SH) on every such directory it relies on, from before bwrap
 * starts until fini, and removes one only when it gets LOCK_EX: the last run
 * out removes it.  The creator marks it with an xattr, so that a later run
 * finding it adopts it; where user xattrs are not supported a leftover (an
 * empty directory) stays.
 *
 * The masks come from two void entries in a private directory, bound
 * read-only by bwrap: an empty file of mode 0000 (over hidden files) and an
 * empty directory of mode 0555 (over missing paths).  One pair serves every
 * mask, where --ro-bind-data would cost one passed fd per path.
 *
 * Removing a directory is cheap; freeing its inode is not: ext4 frees the
 * directory's block when the last reference goes, about 80 us a directory
 * here, which for the default profile's ~20 mount points was most of the
 * time a run spends after its command ended.  So fini removes them as
 * before (none is left when the run returns), but keeps an fd of each and
 * hands the fds to a child that closes them after we are gone
 * (release_later): the freeing happens beside the caller, not before it
 * gets its exit status.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>

#include "fs_bwrap_internal.h"

static bool recorded(const struct fs_bwrap_mounts *m, const char *path)
{
        for (size_t i = 0; i < m->n; i++)
                if (streq(m->v[i].path, path))
                        return true;
        return false;
}

static int record(struct fs_bwrap_mounts *m, const char *path, int fd, bool remove)
{
        struct fs_bwrap_mount *v = reallocarray(m->v, m->n + 1, sizeof(*v));
        char *p;

        if (!v)
                return -ENOMEM;
        m->v = v;
        p = strdup(path);
        if (!p)
                return -ENOMEM;
        m->v[m->n++] = (struct fs_bwrap_mount) { .path = p, .fd = fd, .remove = remove };
        return 0;
}

/* LOCK_SH, but never waiting forever: another run holds LOCK_EX only while
 * it checks and removes the directory. */
static int lock_shared(int fd)
{
        const struct timespec pause = { .tv_nsec = 5 * 1000 * 1000 };

        for (int i = 0; i < 400; i++) {
                if (flock(fd, LOCK_SH | LOCK_NB) == 0)
                        return 0;
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return -errno;
                (void) nanosleep(&pause, NULL); /* EINTR only shortens one pause */
        }
        return -EBUSY;
}

static bool same_file(int fd, const char *path)
{
        struct stat a, b;

        return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int fs_bwrap_mountpoint_hold(struct fs_bwrap_mounts *m, const char *path)
{
        _cleanup_close_ int fd = -1;
        struct stat st;
        char mark[16];
        int r;

        /* Only a directory can be a mount point a run made; lstat first so
         * no fifo or device is ever opened. */
        if (recorded(m, path) || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return 0; /* gone, or unreadable to us: then no run of ours made it */
        r = lock_shared(fd);
        if (r < 0)
                return r;
        if (!same_file(fd, path))
                return 0; /* removed while we waited: now missing, and masked as such */
        r = record(m, path, fd, fgetxattr(fd, FS_BWRAP_MARK_XATTR, mark, sizeof(mark)) >= 0);
        if (r >= 0)
                (void) TAKE_FD(fd);
        return r;
}

/* The parent walked to last: most mount points share one (the workspace's
 * protected names), and the walk from / is four opens apiece.  Same as
 * walking again: the fd was reached by the same NOFOLLOW walk, and a change
 * of the path after it is the same race a fresh walk would have with bwrap. */
static int cached_parent(const struct fs_bwrap_mounts *m, const char *path, size_t parent_len, int *ret_dfd)
{
        if (!m->parent_path || strlen(m->parent_path) != parent_len || strncmp(m->parent_path, path, parent_len) != 0)
                return 0;
        *ret_dfd = fcntl(m->parent_fd, F_DUPFD_CLOEXEC, 3);
        return *ret_dfd < 0 ? -errno : 1;
}

static void remember_parent(struct fs_bwrap_mounts *m, const char *path, size_t parent_len, int dfd)
{
        char *p = strndup(path, parent_len);
        int fd = p ? fcntl(dfd, F_DUPFD_CLOEXEC, 3) : -1;

        if (fd < 0) { /* no cache: only slower */
                free(p);
                return;
        }
        if (m->parent_path)
                (void) close(m->parent_fd);
        free(m->parent_path);
        m->parent_path = p;
        m->parent_fd = fd;
}

/* Walk the parent of `path` from / without following symlinks: the path is
 * canonical, so a symlink on the way means something changed it since, and
 * creating through it could put the directory anywhere.  Missing parents
 * are made and recorded. */
static int walk_parent(struct fs_bwrap_mounts *m, const char *path, int *ret_dfd)
{
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        char *comp, *slash;
        int r;

        if (!copy)
                return -ENOMEM;
        if (dfd < 0)
                return -errno;
        for (comp = copy + 1; (slash = strchr(comp, '/')); comp = slash + 1) {
                *slash = '\0';
                int nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (nfd < 0 && errno == ENOENT) {
                        if (mkdirat(dfd, comp, 0755) == 0) {
                                r = record(m, copy, -1, true);
                                if (r < 0)
                                        return r;
                        } else if (errno != EEXIST)
                                return -errno;
                        nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                }
                if (nfd < 0)
                        return -errno; /* ENOTDIR: a symlink or a file is in the way */
                closep(&dfd);
                dfd = nfd;
                *slash = '/';
        }
        *ret_dfd = TAKE_FD(dfd);
        return 0;
}

/* The parent of `path`, from the cache or walked to. */
static int open_parent(struct fs_bwrap_mounts *m, const char *path, int *ret_dfd)
{
        size_t parent_len = (size_t) (strrchr(path, '/') - path);
        int r = cached_parent(m, path, parent_len, ret_dfd);

        if (r != 0)
                return r < 0 ? r : 0;
        r = walk_parent(m, path, ret_dfd);
        if (r >= 0)
                remember_parent(m, path, parent_len, *ret_dfd);
        return r;
}

int fs_bwrap_mountpoint_create(struct fs_bwrap_mounts *m, const char *path)
{
        _cleanup_close_ int dfd = -1, fd = -1;
        const char *leaf = strrchr(path, '/') + 1;
        int r;

        if (path[0] != '/' || !*leaf)
                return -EINVAL;
        if (recorded(m, path))
                return 0;
        r = open_parent(m, path, &dfd);
        if (r < 0)
                return r;
        if (mkdirat(dfd, leaf, 0755) < 0)
                /* EEXIST: appeared meanwhile; bwrap mounts on whatever is there */
                return errno == EEXIST ? fs_bwrap_mountpoint_hold(m, path) : -errno;
        fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                (void) unlinkat(dfd, leaf, AT_REMOVEDIR); /* not recorded: remove it now */
                return r;
        }
        /* The mark is only for adopting a leftover; no xattrs, no adoption. */
        (void) fsetxattr(fd, FS_BWRAP_MARK_XATTR, "fs_bwrap", 8, 0);
        r = record(m, path, fd, true);
        if (r < 0) {
                (void) unlinkat(dfd, leaf, AT_REMOVEDIR);
                return r;
        }
        fd = -1; /* owned by m now */
        return lock_shared(m->v[m->n - 1].fd);
}

/* An fd whose close frees a removed directory's inode: kept for
 * release_later.  Without room, it is closed now (slower, same result). */
static void release_fd(struct fs_bwrap_mounts *m, int fd)
{
        int *v = m->n_release % 16 ? m->release : reallocarray(m->release, m->n_release + 16, sizeof(int));

        if (!v) {
                (void) close(fd);
                return;
        }
        m->release = v;
        m->release[m->n_release++] = fd;
}

/* rmdir, keeping a reference (fd, ours or opened now) for release_later. */
static void remove_dir(struct fs_bwrap_mounts *m, const char *path, int *fd)
{
        if (*fd < 0)
                *fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); /* -1: freed by rmdir then */
        if (rmdir(path) == 0 && *fd >= 0)
                release_fd(m, TAKE_FD(*fd));
}

static void remove_mountpoint(struct fs_bwrap_mounts *m, struct fs_bwrap_mount *e)
{
        if (flock(e->fd, LOCK_EX | LOCK_NB) < 0)
                return; /* another run still mounts on it; it removes it */
        if (!same_file(e->fd, e->path))
                return; /* replaced on the host meanwhile: not ours */
        remove_dir(m, e->path, &e->fd); /* fails unless empty: the host put something there, keep it */
}

static int cmp_int(const void *a, const void *b)
{
        return *(const int *) a - *(const int *) b;
}

/* The child keeps nothing but the fds to release (no pipe of our caller's
 * stays open for it to wait on), closes them and exits.  It is not waited
 * for: our process is ending, and init reaps it.  Where fork fails the fds
 * are closed here, which is only slower. */
static void release_later(struct fs_bwrap_mounts *m)
{
        pid_t pid;

        if (!m->n_release)
                return;
        qsort(m->release, m->n_release, sizeof(int), cmp_int);
        pid = fork();
        if (pid == 0) {
                unsigned lo = 0;
                for (size_t i = 0; i <= m->n_release; i++) {
                        unsigned hi = i < m->n_release ? (unsigned) m->release[i] - 1 : ~0u;
                        if (lo <= hi)
                                (void) syscall(SYS_close_range, lo, hi, 0);
                        if (i < m->n_release)
                                lo = (unsigned) m->release[i] + 1;
                }
                for (size_t i = 0; i < m->n_release; i++)
                        (void) close(m->release[i]);
                _exit(0);
        }
        for (size_t i = 0; i < m->n_release; i++)
                (void) close(m->release[i]); /* cheap where the child holds them too */
        free(m->release);
        m->release = NULL;
        m->n_release = 0;
}

static int make_void(int dfd, const char *dir, const char *name, bool is_dir, char **ret)
{
        _cleanup_close_ int fd = -1;
        char *p;

        if (is_dir) {
                if (mkdirat(dfd, name, 0700) < 0)
                        return -errno;
                fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        } else
                fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        if (fchmod(fd, is_dir ? 0555 : 0000) < 0) /* exactly, whatever the umask */
                return -errno;
        if (asprintf(&p, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int fs_bwrap_void_create(struct fs_bwrap_mounts *m, const char *base)
{
        _cleanup_close_ int dfd = -1;
        int r;

        if (m->private_dir) /* made by an earlier line; half-made is an earlier failure */
                return m->void_dir ? 0 : -EIO;
        if (asprintf(&m->private_dir, "%s/stockade-fs_bwrap.XXXXXX", base) < 0) {
                m->private_dir = NULL;
                return -ENOMEM;
        }
        if (!mkdtemp(m->private_dir)) {
                r = -errno;
                m->private_dir = (free(m->private_dir), NULL);
                return r;
        }
        dfd = open(m->private_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        r = make_void(dfd, m->private_dir, "hidden", false, &m->void_hidden);
        if (r >= 0)
                r = make_void(dfd, m->private_dir, "empty", true, &m->void_dir);
        return r;
}

void fs_bwrap_mounts_cleanup(struct fs_bwrap_mounts *m)
{
        /* Reverse order: a mount point goes before the parents made for it. */
        for (size_t i = m->n; i-- > 0;) {
                struct fs_bwrap_mount *e = &m->v[i];
                if (e->remove && e->fd >= 0)
                        remove_mountpoint(m, e);
                else if (e->remove)
                        remove_dir(m, e->path, &e->fd); /* not empty: the command put something there; keep it */
                closep(&e->fd);
                free(e->path);
        }
        free(m->v);
        m->v = NULL;
        m->n = 0;
        /* Our private directory; failing, it leaves two empty entries behind. */
        if (m->void_hidden)
                (void) unlink(m->void_hidden);
        if (m->void_dir)
                remove_dir(m, m->void_dir, &(int) { -1 });
        if (m->private_dir)
                remove_dir(m, m->private_dir, &(int) { -1 });
        release_later(m);
        if (m->parent_path)
                (void) close(m->parent_fd);
        m->parent_path = (free(m->parent_path), NULL);
        free(m->void_hidden);
        free(m->void_dir);
        free(m->private_dir);
        m->void_hidden = m->void_dir = m->private_dir = NULL;
}
