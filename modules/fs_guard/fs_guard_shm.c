/* SPDX-License-Identifier: MIT */
/*
 * host_shm: the command's scratch entries in the host's /dev/shm, without a
 * mount namespace (the Landlock stack).
 *
 * fs_landlock hides the host's /dev/shm (other processes' POSIX shared
 * memory), and without a mount namespace there is no private one, so
 * sem_open and shm_open fail, and with them Python's multiprocessing.
 * glibc's sem_open creates "/dev/shm/sem.XXXXXX" (O_CREAT|O_EXCL), writes
 * and maps it, links it to "sem.NAME" and unlinks the temporary name;
 * shm_open is an open of "/dev/shm/NAME".  guard_top already receives
 * those calls; here the supervisor makes them, for names the run made only:
 *
 *   - an open with O_CREAT of a plain name directly in /dev/shm that does
 *     not exist: made by us (O_EXCL|O_NOFOLLOW through our fd of the
 *     directory, the command's umask, no set-id bits) and recorded with
 *     its inode;
 *   - an open for writing, a truncate, unlink, link or rename of a name
 *     we recorded, whose inode is still the one we made (checked on our
 *     own fd of what the command named, not by name alone): made by us;
 *     a link's or rename's new name must not exist (checked by the kernel:
 *     RENAME_NOREPLACE, linkat), or be ours too;
 *   - everything else there, the host's entries above all, is the
 *     kernel's: FG_CONTINUE, and Landlock refuses it, as without us;
 *   - at the end of the run (fg_fini, in the supervisor, after the
 *     command and everything it left are gone) each name still recorded
 *     and still its inode is unlinked.
 *
 * Reads (O_RDONLY) are never notified (they are the common case and must
 * stay cheap), so the command cannot read its own entry by name with
 * O_RDONLY: Landlock refuses it.  While the command runs, its names are
 * visible in the host's /dev/shm.
 *
 * The command cannot change /dev/shm but through us (Landlock gives it no
 * right there) and we answer one call at a time, so between our check and
 * our change only a host process of the same user could swap a name: that
 * is the host's own doing, on its own entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "fs_guard_internal.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

#define SHM_DIR "/dev/shm"

void fg_shm_init(struct fg_shm *set)
{
        *set = (struct fg_shm) { .dir = -1 };
}

/* The end names a plain entry directly in /dev/shm (open_end gave its
 * directory canonical), one the policy does not protect. */
static bool in_shm(const struct end *e, const struct fg_policy *pol)
{
        char full[PATH_MAX];

        if (!pol->shm || e->parent < 0 || strcmp(e->parent_path, SHM_DIR) != 0 || e->slash)
                return false;
        if (snprintf(full, sizeof(full), SHM_DIR "/%s", e->leaf) >= (int) sizeof(full))
                return false;
        return !fg_beneath_protected(full, pol->read_only, pol->hide);
}

static struct fg_shm_entry *find(struct fg_shm *set, const char *name)
{
        for (size_t i = 0; i < set->n; i++)
                if (strcmp(set->v[i].name, name) == 0)
                        return &set->v[i];
        return NULL;
}

/* The recorded entry `name` is, with the inode it was made for; NULL when
 * it is not ours (never recorded, or another inode is there now). */
static struct fg_shm_entry *ours(struct fg_shm *set, const char *name, const struct stat *st)
{
        struct fg_shm_entry *e = find(set, name);

        return e && S_ISREG(st->st_mode) && e->dev == st->st_dev && e->ino == st->st_ino ? e : NULL;
}

/* What is at `leaf` in the directory we hold, not followed; -errno. */
static int stat_at(int dir, const char *leaf, struct stat *st)
{
        return fstatat(dir, leaf, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* Room for one more name, and (the first time) a copy of our fd of the
 * directory, for the cleanup: taken before a name is made, so that no name
 * is made that could not be recorded (and so would stay on the host). */
static int reserve(struct fg_shm *set, int dir, const char *name)
{
        if (strlen(name) > NAME_MAX)
                return -ENAMETOOLONG;
        if (set->dir < 0 && (set->dir = fcntl(dir, F_DUPFD_CLOEXEC, 3)) < 0) {
                set->dir = -1;
                return -errno;
        }
        if (set->n == set->cap) {
                size_t cap = set->cap ? set->cap * 2 : 8;
                struct fg_shm_entry *v = realloc(set->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                set->v = v;
                set->cap = cap;
        }
        return 0;
}

/* `name` is the inode `st` now (room taken by reserve()). */
static void record(struct fg_shm *set, const char *name, const struct stat *st)
{
        struct fg_shm_entry *e = find(set, name);

        if (!e)
                e = &set->v[set->n++];
        snprintf(e->name, sizeof(e->name), "%s", name);
        e->dev = st->st_dev;
        e->ino = st->st_ino;
}

static void forget(struct fg_shm *set, const char *name)
{
        struct fg_shm_entry *e = find(set, name);

        if (e)
                *e = set->v[--set->n];
}

/* A new name: made by us, exclusively, and recorded before the command
 * gets it.  fstat failing: removed again, the command told. */
int fg_shm_open_new(int listener, const struct seccomp_notif *req, const struct top_call *c,
                    const struct fg_policy *pol, long *ret_val)
{
        struct stat st;
        mode_t old;
        int fd, r;

        if (!in_shm(&c->a, pol))
                return FG_CONTINUE;
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        r = reserve(pol->shm, c->a.parent, c->a.leaf);
        if (r < 0)
                return r;
        old = umask(0);
        fd = open_for_command(c->a.parent, c->a.leaf, c->flags | O_EXCL | O_NOFOLLOW, file_mode(req->pid, c->mode));
        (void) umask(old);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0) {
                r = -errno;
                (void) unlinkat(c->a.parent, c->a.leaf, 0); /* ours, made a moment ago */
                close(fd);
                return r;
        }
        record(pol->shm, c->a.leaf, &st);
        return fg_hand_over(listener, req, fd, c->flags, ret_val);
}

/* Our entry, found by the kernel's lookup as the command made it (`target`,
 * symlinks followed as it would): reopened for writing, or truncated, by
 * us.  Anything else: the kernel's. */
int fg_shm_open_existing(int listener, const struct seccomp_notif *req, const struct top_call *c, int target,
                         const struct fg_policy *pol, long *ret_val)
{
        char real[PATH_MAX];
        const char *name = real + sizeof(SHM_DIR);
        struct stat st;

        if (!pol->shm || fstat(target, &st) < 0 || stk_sc_fd_path(target, real, sizeof(real)) < 0 ||
            strncmp(real, SHM_DIR "/", sizeof(SHM_DIR)) != 0 || strchr(name, '/') || !ours(pol->shm, name, &st))
                return FG_CONTINUE;
        if (c->op == T_OPEN && (c->flags & O_CREAT) && (c->flags & O_EXCL))
                return -EEXIST;
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        return fg_reopen(listener, req, c, target, ret_val);
}

static int unlink_ours(struct fg_shm *set, const struct end *a)
{
        struct stat st;
        int r = stat_at(a->parent, a->leaf, &st);

        if (r < 0 || !ours(set, a->leaf, &st))
                return FG_CONTINUE;
        if (unlinkat(a->parent, a->leaf, 0) < 0)
                return -errno;
        forget(set, a->leaf);
        return 0;
}

/* A new name for our inode `st`: the new name must not exist, or be ours
 * (a rename over it, an exchange).  The kernel checks "does not exist"
 * itself, at the change: linkat never replaces, and a plain rename is made
 * RENAME_NOREPLACE, so a host entry that appears meanwhile is left alone. */
static int rename_or_link(struct fg_shm *set, const struct top_call *c, const struct stat *st)
{
        struct stat dst;
        struct fg_shm_entry *other;
        int r = stat_at(c->b.parent, c->b.leaf, &dst), flags = c->flags, room;

        if (r < 0 && r != -ENOENT)
                return FG_CONTINUE;
        other = r == 0 ? ours(set, c->b.leaf, &dst) : NULL;
        if (r == 0 && !other)
                return FG_CONTINUE; /* the host's, or no file: Landlock refuses */
        room = reserve(set, c->b.parent, c->b.leaf);
        if (room < 0)
                return room;
        if (c->op == T_LINK)
                r = linkat(c->a.parent, c->a.leaf, c->b.parent, c->b.leaf, 0);
        else if (r == -ENOENT && (flags & RENAME_EXCHANGE))
                return -ENOENT;
        else
                r = (int) syscall(SYS_renameat2, c->a.parent, c->a.leaf, c->b.parent, c->b.leaf,
                                  r == -ENOENT ? flags | RENAME_NOREPLACE : flags);
        if (r < 0)
                return -errno;
        if (c->op == T_RENAME && (flags & RENAME_EXCHANGE)) { /* both names ours: no room needed */
                record(set, c->b.leaf, st);
                record(set, c->a.leaf, &dst);
                return 0;
        }
        /* Two links of one inode: rename(2) leaves both names. */
        if (c->op == T_RENAME && !(other && dst.st_dev == st->st_dev && dst.st_ino == st->st_ino))
                forget(set, c->a.leaf);
        record(set, c->b.leaf, st);
        return 0;
}

int fg_shm_decide(int listener, const struct seccomp_notif *req, const struct top_call *c,
                  const struct fg_policy *pol)
{
        bool two = c->op == T_RENAME || c->op == T_LINK;
        struct stat st;

        if (!in_shm(&c->a, pol) || (two && !in_shm(&c->b, pol)))
                return FG_CONTINUE;
        if (c->op == T_UNLINK && c->flags == 0) {
                if (seccomp_notify_id_valid(listener, req->id) < 0)
                        return -ESRCH;
                return unlink_ours(pol->shm, &c->a);
        }
        if (!two || (c->op == T_RENAME && (c->flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))))
                return FG_CONTINUE; /* rmdir, mkdir, mknod, symlink, bind, a whiteout: never ours */
        if (stat_at(c->a.parent, c->a.leaf, &st) < 0 || !ours(pol->shm, c->a.leaf, &st))
                return FG_CONTINUE;
        if (seccomp_notify_id_valid(listener, req->id) < 0)
                return -ESRCH;
        if (strcmp(c->a.leaf, c->b.leaf) == 0) /* the same name: what the kernel answers */
                return c->op == T_LINK ? -EEXIST : 0;
        return rename_or_link(pol->shm, c, &st);
}

/* Nothing the command made stays on the host: each name that is still the
 * inode we made is removed.  A name another process has since replaced is
 * the host's now, and stays. */
void fg_shm_remove_all(struct fg_shm *set)
{
        struct stat st;

        for (size_t i = 0; set->dir >= 0 && i < set->n; i++)
                if (stat_at(set->dir, set->v[i].name, &st) == 0 && ours(set, set->v[i].name, &st))
                        (void) unlinkat(set->dir, set->v[i].name, 0); /* ENOENT: gone meanwhile */
        if (set->dir >= 0)
                close(set->dir);
        free(set->v);
        fg_shm_init(set);
}
