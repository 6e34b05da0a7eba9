/* SPDX-License-Identifier: MIT */
/*
 * The shell entry's workspace, pinned for the agent's session
 * (stockade-sh(1), WORKSPACE): $STOCKADE_WORKSPACE, else the git toplevel
 * of the first call's working directory, else that directory.  Every call
 * is a process of its own, so the pin is a file named after the session,
 * the calling process (its pid and start time: a reused pid is another
 * session), in a directory only we can write.  A later `cd` of the agent
 * into another repository does not move the workspace there.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/stk_trust.h"
#include "util/util.h"

#define PIN_MAX 4096

/* The nearest directory from cwd up that holds .git (a directory, or the
 * file of a worktree or submodule), or NULL. */
static char *git_toplevel(const char *cwd)
{
        _cleanup_free_ char *dir = strdup(cwd);
        struct stat st;

        while (dir && dir[1]) {
                _cleanup_free_ char *dotgit = NULL;
                if (asprintf(&dotgit, "%s/.git", dir) < 0)
                        return NULL;
                if (lstat(dotgit, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
                        return TAKE_PTR(dir);
                char *slash = strrchr(dir, '/');
                slash[slash == dir ? 1 : 0] = '\0';
        }
        return NULL;
}

/* "sh-PID-STARTTIME" of the parent; without /proc, "sh-PID". */
static int session_name(char *buf, size_t size)
{
        char path[64], stat_text[1024];
        pid_t ppid = getppid();
        unsigned long long start = 0;
        _cleanup_close_ int fd = -1;
        ssize_t n;

        (void) snprintf(path, sizeof(path), "/proc/%d/stat", (int) ppid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        n = fd < 0 ? -1 : read(fd, stat_text, sizeof(stat_text) - 1);
        if (n > 0) {
                stat_text[n] = '\0';
                const char *p = strrchr(stat_text, ')'); /* comm may hold spaces and parentheses */
                /* after ")": state is field 3, starttime field 22 */
                if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                                        "%*d %*d %llu", &start) != 1)
                        return -EIO;
        }
        if (snprintf(buf, size, start ? "sh-%d-%llu" : "sh-%d", (int) ppid, start) >= (int) size)
                return -ENAMETOOLONG;
        return 0;
}

/* Our private directory for pins, opened and checked. */
static int pin_dir(int *ret_fd)
{
        const char *rt = getenv("XDG_RUNTIME_DIR"), *why = NULL;
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (rt && rt[0] == '/' ? asprintf(&dir, "%s/stockade", rt) < 0
                               : asprintf(&dir, "/tmp/stockade-%u", (unsigned) getuid()) < 0)
                return -ENOMEM;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
                core_log(STK_LOG_ERROR, "the session directory %s: mkdir: %s", dir, strerror(errno));
                return -errno;
        }
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        r = fd < 0 ? -errno : stk_trust_fd(fd, getuid(), STK_TRUST_DIRECTORY | STK_TRUST_OWNER_ONLY, &why);
        if (r < 0) {
                core_log(STK_LOG_ERROR, "the session directory %s: %s", dir, why ? why : strerror(-r));
                return r;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* 1 and *ret: the session's pinned workspace; 0: none yet. */
static int pin_read(int dirfd, const char *name, char **ret)
{
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        char buf[PIN_MAX + 1];
        const char *why = NULL;
        ssize_t n;
        int r;

        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        r = stk_trust_fd(fd, getuid(), STK_TRUST_REGULAR | STK_TRUST_OWNER_ONLY, &why);
        if (r < 0) {
                core_log(STK_LOG_ERROR, "the session pin %s: %s", name, why);
                return r;
        }
        n = read(fd, buf, PIN_MAX);
        if (n <= 0 || buf[0] != '/' || memchr(buf, '\0', (size_t) n)) {
                core_log(STK_LOG_ERROR, "the session pin %s: not an absolute path", name);
                return -EINVAL;
        }
        buf[n] = '\0';
        *ret = strdup(buf);
        return *ret ? 1 : -ENOMEM;
}

/* 0 written, or -EEXIST: another call of the session was first. */
static int pin_write(int dirfd, const char *name, const char *workspace)
{
        _cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        size_t len = strlen(workspace);

        if (fd < 0)
                return -errno;
        if (write(fd, workspace, len) != (ssize_t) len) {
                (void) unlinkat(dirfd, name, 0); /* a half pin must not pin the session */
                return -EIO;
        }
        return 0;
}

static int first_workspace(char **ret)
{
        _cleanup_free_ char *cwd = getcwd(NULL, 0), *top = NULL;

        if (!cwd)
                return -errno;
        top = git_toplevel(cwd);
        *ret = top ? TAKE_PTR(top) : TAKE_PTR(cwd);
        return 0;
}

int cli_sh_workspace(char **ret)
{
        const char *env = getenv("STOCKADE_WORKSPACE");
        _cleanup_close_ int dirfd = -1;
        char name[96];
        int r;

        if (env && *env)
                return (*ret = strdup(env)) ? 0 : -ENOMEM;
        r = session_name(name, sizeof(name));
        if (r >= 0)
                r = pin_dir(&dirfd);
        if (r >= 0)
                r = pin_read(dirfd, name, ret);
        if (r != 0)
                return r < 0 ? r : 0;
        r = first_workspace(ret);
        if (r >= 0)
                r = pin_write(dirfd, name, *ret);
        if (r == -EEXIST) {
                free(*ret);
                *ret = NULL;
                r = pin_read(dirfd, name, ret) == 1 ? 0 : -EIO;
        }
        if (r < 0) {
                core_log(STK_LOG_ERROR, "pinning the session's workspace: %s", strerror(-r));
                free(*ret);
                *ret = NULL;
        }
        return r;
}
