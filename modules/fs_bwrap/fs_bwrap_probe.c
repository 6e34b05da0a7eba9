/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap_probe.c - the bwrap binary (open, hash, version) and what this
 * machine lets it do (user, mount and pid namespaces, a fresh procfs).
 * Every check is done by trying, in a throw-away child, the very steps bwrap
 * will take, so a refusal is known before the command is started and the
 * log can name the cause.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/stk_trust.h"
#include "fs_bwrap_internal.h"

int fs_bwrap_open_binary(const char *path, int *ret_fd, const char **ret_why)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        int r;

        if (fd < 0) {
                *ret_why = "cannot open it";
                return -errno;
        }
        /* Whoever can rewrite it runs code outside the sandbox, with our
         * privileges, on the next run. */
        r = stk_trust_fd(fd, geteuid(), STK_TRUST_EXECUTABLE, ret_why);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int wait_child(pid_t pid, int *ret_status)
{
        while (waitpid(pid, ret_status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return 0;
}

static ssize_t read_all(int fd, void *buf, size_t size)
{
        size_t got = 0;

        while (got < size) {
                ssize_t n = read(fd, (char *) buf + got, size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        return (ssize_t) got;
}

/* Run child(wfd, arg) in a fork whose stdout-or-pipe is `wfd`; read what
 * it writes (at most size bytes) and reap it.  *ret_n: bytes read. */
static int run_child(void (*child)(int wfd, void *arg), void *arg, void *buf, size_t size,
                     ssize_t *ret_n, int *ret_status)
{
        int p[2], r;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                closep(&p[0]);
                closep(&p[1]);
                return r;
        }
        if (pid == 0) {
                child(p[1], arg);
                _exit(127);
        }
        closep(&p[1]);
        *ret_n = read_all(p[0], buf, size);
        closep(&p[0]);
        return wait_child(pid, ret_status);
}

static void version_child(int wfd, void *arg)
{
        static char *const argv[] = { "bwrap", "--version", NULL };
        static char *const envp[] = { NULL };

        if (dup2(wfd, STDOUT_FILENO) >= 0) /* dup2 clears FD_CLOEXEC on the copy */
                fexecve(*(int *) arg, argv, envp);
}

/* `bwrap --version` through the fd (fexecve: no PATH, no second lookup). */
int fs_bwrap_version(int fd, int *ret_version)
{
        char out[128] = "";
        unsigned a, b, c;
        int status, r;
        ssize_t n = 0;

        r = run_child(version_child, &fd, out, sizeof(out) - 1, &n, &status);
        if (r < 0)
                return r;
        if (n < 0)
                return (int) n;
        out[n] = '\0';
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
            sscanf(out, "bubblewrap %u.%u.%u", &a, &b, &c) != 3 || b > 99 || c > 99)
                return -ENOEXEC;
        *ret_version = (int) (a * 10000 + b * 100 + c);
        return 0;
}

static void report(int fd, int stage, int err)
{
        struct fs_bwrap_ns_probe p = { .stage = stage, .err = err };

        /* A short or failed write reads as "no answer" in the parent (-EIO). */
        (void) !write(fd, &p, sizeof(p));
}

/* Pid 1 of the new pid namespace, as bwrap's setup process will be. */
static void __attribute__((noreturn)) try_proc(int fd)
{
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                report(fd, FS_BWRAP_NS_CAPS, errno);
        else if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                report(fd, FS_BWRAP_NS_PROC, errno);
        else
                report(fd, FS_BWRAP_NS_OK, 0);
        _exit(0);
}

static void __attribute__((noreturn)) probe_child(int fd)
{
        int status;
        pid_t pid;

        if (unshare(CLONE_NEWUSER) < 0) {
                report(fd, FS_BWRAP_NS_USER, errno);
                _exit(0);
        }
        /* AppArmor's userns restriction lets unshare(CLONE_NEWUSER) succeed
         * and denies the capabilities inside: this is where it shows. */
        if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0) {
                report(fd, FS_BWRAP_NS_CAPS, errno);
                _exit(0);
        }
        pid = fork();
        if (pid < 0) {
                report(fd, FS_BWRAP_NS_CAPS, errno);
                _exit(0);
        }
        if (pid == 0)
                try_proc(fd);
        (void) wait_child(pid, &status); /* the answer is in the pipe */
        _exit(0);
}

static void ns_child(int wfd, void *arg)
{
        probe_child(wfd);
}

int fs_bwrap_probe_ns(struct fs_bwrap_ns_probe *ret)
{
        struct fs_bwrap_ns_probe got;
        int status, r;
        ssize_t n = 0;

        r = run_child(ns_child, NULL, &got, sizeof(got), &n, &status);
        if (r < 0)
                return r;
        if (n != (ssize_t) sizeof(got))
                return n < 0 ? (int) n : -EIO; /* the child died before it could say */
        *ret = got;
        return 0;
}

/* The integer in a sysctl file, or -1 when it is absent or unreadable. */
static int read_sysctl(const char *path)
{
        FILE *f = fopen(path, "re");
        int v = -1;

        if (!f)
                return -1;
        if (fscanf(f, "%d", &v) != 1)
                v = -1;
        (void) fclose(f); /* read-only */
        return v;
}

static const char *userns_hint(const struct fs_bwrap_ns_probe *p, char *buf, size_t n)
{
        if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
                return "user.max_user_namespaces=0 allows none; raise it";
        if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0 && geteuid() != 0)
                return "kernel.unprivileged_userns_clone=0 forbids them to unprivileged users";
        if (p->err == EPERM)
                return "unshare(CLONE_NEWUSER) fails with EPERM: a seccomp filter (Docker's default "
                       "profile) or a container runtime forbids it";
        if (p->err == ENOSPC)
                return "the limit user.max_user_namespaces is reached";
        (void) snprintf(buf, n, "unshare(CLONE_NEWUSER): %s", strerror(p->err));
        return buf;
}

const char *fs_bwrap_ns_hint(const struct fs_bwrap_ns_probe *p, char *buf, size_t n)
{
        switch (p->stage) {
        case FS_BWRAP_NS_USER:
                return userns_hint(p, buf, n);
        case FS_BWRAP_NS_CAPS:
                if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
                        return "kernel.apparmor_restrict_unprivileged_userns=1 leaves a new user "
                               "namespace without capabilities; an AppArmor profile for bwrap is the narrow fix";
                (void) snprintf(buf, n, "a new user namespace cannot make mount and pid namespaces (%s): "
                                "a security module restricts it", strerror(p->err));
                return buf;
        case FS_BWRAP_NS_PROC:
                (void) snprintf(buf, n, "mounting a fresh /proc is refused (%s): this /proc has paths "
                                "masked by an outer container runtime", strerror(p->err));
                return buf;
        default:
                return "user namespaces work";
        }
}
