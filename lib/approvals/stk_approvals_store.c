/* SPDX-License-Identifier: MIT */
/* The remembered approvals: where the file is, its trust, the writer lock and
 * the atomic replace (stk_approvals.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/stk_trust.h"
#include "stk_approvals.h"

/* ---- paths ----------------------------------------------------------------- */

static const char *home_dir(const char *home)
{
        const struct passwd *pw;

        if (home && home[0] == '/')
                return home;
        home = getenv("HOME");
        if (home && home[0] == '/')
                return home;
        pw = getpwuid(geteuid());
        return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

int stk_appr_default_path(const char *home, char **ret)
{
        const char *xdg = getenv("XDG_STATE_HOME");
        int n;

        /* The XDG spec: a relative value is invalid and must be ignored. */
        if (xdg && xdg[0] == '/')
                n = asprintf(ret, "%s/stockade/approvals", xdg);
        else if ((home = home_dir(home)))
                n = asprintf(ret, "%s/.local/state/stockade/approvals", home);
        else
                return -ENOENT;
        return n < 0 ? -ENOMEM : 0;
}

int stk_appr_canonical(const char *path, char **ret)
{
        char *copy = strdup(path), *cut = NULL, *real = NULL;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        if (path[0] != '/') {
                free(copy);
                return -EINVAL;
        }
        /* Walk up until a prefix exists; the part that does not is kept as
         * written (it will be created beneath the real prefix). */
        for (;;) {
                real = realpath(copy[0] ? copy : "/", NULL);
                if (real || errno != ENOENT || !(cut = strrchr(copy, '/')))
                        break;
                *cut = '\0';
        }
        if (!real)
                r = -errno;
        else if (asprintf(ret, "%s%s", strcmp(real, "/") == 0 ? "" : real, path + strlen(copy)) < 0)
                r = -ENOMEM;
        free(real);
        free(copy);
        return r;
}

/* mkdir -p, new directories 0700 (XDG: the state directory is private). */
static int make_dirs(const char *dir)
{
        char *p = strdup(dir);
        int r = 0;

        if (!p)
                return -ENOMEM;
        for (char *c = strchr(p + 1, '/'); r >= 0; c = strchr(c + 1, '/')) {
                if (c)
                        *c = '\0';
                if (mkdir(p, 0700) < 0 && errno != EEXIST)
                        r = -errno;
                if (!c)
                        break;
                *c = '/';
        }
        free(p);
        return r;
}

/* ---- trust ------------------------------------------------------------------ */

/* Ours and writable by nobody else: anyone else who could write it could
 * pre-answer a question. */
static bool private_to_us(const struct stat *st, const char *what, const char *path, char *why, size_t why_size)
{
        const char *reason;

        if (stk_trust_stat(st, geteuid(), STK_TRUST_OWNER_ONLY, &reason) >= 0)
                return true;
        if (st->st_uid != geteuid())
                snprintf(why, why_size, "%s %s belongs to uid %u, not to us (uid %u)", what, path,
                         (unsigned) st->st_uid, (unsigned) geteuid());
        else
                snprintf(why, why_size, "%s %s is %s (mode %03o)", what, path, reason, (unsigned) (st->st_mode & 0777));
        return false;
}

int stk_appr_open(const char *path, bool create, struct stk_appr_store *ret)
{
        const char *slash = path ? strrchr(path, '/') : NULL;
        char *dir;
        struct stat st;
        int r = 0;

        if (!slash || path[0] != '/' || !slash[1] || strcmp(slash, "/.") == 0 || strcmp(slash, "/..") == 0)
                return -EINVAL;
        *ret = (struct stk_appr_store) { .dirfd = -1, .lockfd = -1 };
        dir = slash == path ? strdup("/") : strndup(path, (size_t) (slash - path));
        ret->name = strdup(slash + 1);
        ret->path = strdup(path);
        if (!dir || !ret->name || !ret->path)
                r = -ENOMEM;
        if (r >= 0 && create)
                r = make_dirs(dir);
        if (r >= 0 && (ret->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = -errno;
        if (r >= 0 && fstat(ret->dirfd, &st) < 0)
                r = -errno;
        if (r >= 0)
                ret->trusted = private_to_us(&st, "directory", dir, ret->why, sizeof(ret->why));
        free(dir);
        if (r < 0)
                stk_appr_close(ret);
        return r;
}

void stk_appr_close(struct stk_appr_store *s)
{
        /* Closing a read-only or lock fd has nothing to report: the lock goes
         * with it, and writes were checked (fsync) before. */
        if (s->lockfd >= 0)
                (void) close(s->lockfd);
        if (s->dirfd >= 0)
                (void) close(s->dirfd);
        free(s->name);
        free(s->path);
        *s = (struct stk_appr_store) { .dirfd = -1, .lockfd = -1 };
}

/* ---- the lock ---------------------------------------------------------------- */

static void sleep_ms(long ms)
{
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        (void) nanosleep(&ts, NULL); /* EINTR only shortens one retry interval */
}

int stk_appr_lock(struct stk_appr_store *s, int timeout_ms)
{
        char *name;
        struct stat st;
        int fd, r = 0, waited = 0;

        if (s->lockfd >= 0)
                return 0;
        if (asprintf(&name, "%s.lock", s->name) < 0)
                return -ENOMEM;
        fd = openat(s->dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        free(name);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (!S_ISREG(st.st_mode))
                r = -EINVAL;
        if (r < 0) {
                (void) close(fd);
                return r;
        }
        /* Never wait for ever: a run that cannot get the lock in time goes
         * on without remembering (approval_tty says so). */
        while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;
                if ((e != EWOULDBLOCK && e != EINTR) || waited >= timeout_ms) {
                        (void) close(fd);
                        return e == EWOULDBLOCK ? -ETIMEDOUT : -e;
                }
                sleep_ms(20);
                waited += 20;
        }
        s->lockfd = fd;
        return 0;
}

/* ---- read and write ---------------------------------------------------------- */

static int read_all(int fd, size_t size, char **ret, size_t *ret_len)
{
        char *buf = malloc(size + 1);
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        /* Read to the end, not just st_size: a short file must not pass for
         * a complete one, nor a grown one for a small one. */
        for (;;) {
                ssize_t k = read(fd, buf + n, size + 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = -errno;
                        free(buf);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > size) {
                        free(buf);
                        return -EFBIG;
                }
        }
        buf[n] = '\0';
        *ret = buf;
        *ret_len = n;
        return 0;
}

int stk_appr_read(struct stk_appr_store *s, struct stk_appr_list *ret, unsigned *ret_bad_line)
{
        char *text = NULL;
        size_t len = 0;
        struct stat st;
        int fd, r;

        /* O_NOFOLLOW: a symlink here is refused (ELOOP), not followed to a
         * file somebody else chose.  O_NONBLOCK: a FIFO cannot hang us. */
        fd = openat(s->dirfd, s->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT) {
                *ret = (struct stk_appr_list) { 0 };
                return 0;
        }
        if (fd < 0)
                return -errno;
        r = fstat(fd, &st) < 0 ? -errno : 0;
        if (r >= 0 && !S_ISREG(st.st_mode))
                r = -EINVAL;
        if (r >= 0 && st.st_size > STK_APPR_MAX_FILE)
                r = -EFBIG;
        if (r >= 0 && s->trusted)
                s->trusted = private_to_us(&st, "file", s->path, s->why, sizeof(s->why));
        if (r >= 0)
                r = read_all(fd, STK_APPR_MAX_FILE, &text, &len);
        (void) close(fd); /* read-only */
        if (r >= 0)
                r = stk_appr_parse(text, len, ret, ret_bad_line);
        free(text);
        return r;
}

static int write_all(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* A fresh temp file beside the state file (same filesystem: rename is atomic). */
static int open_temp(struct stk_appr_store *s, char **ret_name)
{
        static unsigned counter;

        for (int tries = 0; tries < 100; tries++) {
                char *name;
                int fd;

                if (asprintf(&name, ".%s.%ld.%u.tmp", s->name, (long) getpid(), counter++) < 0)
                        return -ENOMEM;
                fd = openat(s->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd >= 0) {
                        *ret_name = name;
                        return fd;
                }
                free(name);
                if (errno != EEXIST)
                        return -errno;
        }
        return -EEXIST;
}

static int write_temp(int fd, const char *text)
{
        int r = write_all(fd, text, strlen(text));

        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r >= 0)
                r = -errno;
        return r;
}

int stk_appr_write(struct stk_appr_store *s, const struct stk_appr_list *l)
{
        char *text = NULL, *tmp = NULL;
        int fd, r;

        if (s->lockfd < 0)
                return -ENOLCK;
        if (!s->trusted)
                return -EPERM;
        r = stk_appr_format(l, &text);
        if (r < 0)
                return r;
        fd = open_temp(s, &tmp);
        r = fd < 0 ? fd : write_temp(fd, text);
        if (r >= 0 && renameat(s->dirfd, tmp, s->dirfd, s->name) < 0)
                r = -errno;
        /* The rename itself is durable only once the directory is synced. */
        if (r >= 0 && fsync(s->dirfd) < 0)
                r = -errno;
        if (r < 0 && tmp)
                (void) unlinkat(s->dirfd, tmp, 0); /* best effort: a dot file left behind is harmless */
        free(tmp);
        free(text);
        return r;
}

/* ---- what approval_tty does ----------------------------------------------------- */

static void say_bad_line(const struct stk_appr_store *s, int r, unsigned bad_line, char *why, size_t why_size)
{
        if (r == -EBADMSG)
                snprintf(why, why_size, "%s:%u: not a decision line", s->path, bad_line);
        else
                snprintf(why, why_size, "%s: %s", s->path, strerror(-r));
}

int stk_appr_recall(const char *path, enum stk_appr_kind kind, const char *key, enum stk_appr_decision *ret,
                    bool *ret_ignored_allow, char *why, size_t why_size)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        unsigned bad_line = 0;
        int r = stk_appr_open(path, false, &s);

        why[0] = '\0';
        *ret = STK_APPR_NONE;
        *ret_ignored_allow = false;
        if (r == -ENOENT)
                return 0; /* nothing remembered yet */
        if (r < 0) {
                snprintf(why, why_size, "%s: %s", path, strerror(-r));
                return r;
        }
        r = stk_appr_read(&s, &l, &bad_line);
        if (r < 0)
                say_bad_line(&s, r, bad_line, why, why_size);
        else {
                *ret = stk_appr_decide(&l, kind, key, s.trusted);
                *ret_ignored_allow = !s.trusted && stk_appr_decide(&l, kind, key, true) == STK_APPR_ALLOW;
                if (!s.trusted)
                        snprintf(why, why_size, "%s", s.why);
        }
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        return r;
}

int stk_appr_remember(const char *path, enum stk_appr_kind kind, const char *key, bool allow, char *why,
                      size_t why_size)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        unsigned bad_line = 0;
        int r = stk_appr_open(path, true, &s);

        why[0] = '\0';
        if (r < 0) {
                snprintf(why, why_size, "%s: %s", path, strerror(-r));
                return r;
        }
        r = stk_appr_lock(&s, 5000);
        if (r >= 0)
                r = stk_appr_read(&s, &l, &bad_line);
        if (r < 0)
                say_bad_line(&s, r, bad_line, why, why_size);
        else if (!s.trusted) {
                snprintf(why, why_size, "%s", s.why);
                r = -EPERM;
        }
        if (r >= 0)
                r = stk_appr_list_set(&l, kind, key, allow);
        if (r >= 0)
                r = stk_appr_write(&s, &l);
        if (r < 0 && !why[0])
                snprintf(why, why_size, "%s: %s", path, strerror(-r));
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        return r;
}
