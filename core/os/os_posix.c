/* SPDX-License-Identifier: MIT */
/*
 * os.h on systems that are not Linux (macOS), and on Linux in a
 * `make PORTABLE=1` build: POSIX calls only, plus what macOS adds where
 * POSIX has nothing (marked __APPLE__).  What each function guarantees, and
 * what it cannot, is said in os.h.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#include <sys/random.h>
#endif

#include "os.h"
#include "common/stk_util.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SIGPIPE is ignored in the supervisor anyway */
#endif

const char os_backend[] = "posix";

int os_child_confine(pid_t supervisor)
{
        /* No parent-death signal to arm; at least a supervisor already gone
         * (we were re-parented) is seen, as on Linux. */
        return getppid() == supervisor ? 0 : -ESRCH;
}

int os_die_with_parent(pid_t parent)
{
        return getppid() == parent ? 0 : -ESRCH; /* no parent-death signal here */
}

int os_drop_capabilities(void)
{
        return geteuid() == 0 || getuid() == 0 ? -EPERM : 0;
}

int os_exec_fd(int fd, char *const argv[], char *const envp[])
{
        (void) fd, (void) argv, (void) envp;
        return -ENOSYS; /* no fexecve on macOS: a pinned wrapper cannot be run here */
}

static void exec_script(const char *path, char *const argv[], char *const envp[])
{
        size_t n = 0;

        while (argv[n])
                n++;
        char **sh = calloc(n + 2, sizeof(char *));
        if (!sh)
                return;
        sh[0] = (char *) "/bin/sh";
        sh[1] = (char *) path;
        for (size_t i = 1; i <= n; i++)
                sh[i + 1] = argv[i];
        execve("/bin/sh", sh, envp);
        free(sh);
}

/* execvpe(3) of glibc: the caller's PATH, EACCES remembered over ENOENT, a
 * file without #! run by /bin/sh. */
int os_execvpe(const char *file, char *const argv[], char *const envp[])
{
        const char *path = getenv("PATH");
        bool denied = false;

        if (!*file)
                return -ENOENT;
        if (strchr(file, '/')) {
                execve(file, argv, envp);
                if (errno == ENOEXEC)
                        exec_script(file, argv, envp);
                return -errno;
        }
        if (!path)
                path = "/usr/bin:/bin";
        for (const char *p = path, *end; ; p = end + 1) {
                char full[PATH_MAX];
                size_t len;

                end = strchr(p, ':');
                len = end ? (size_t) (end - p) : strlen(p);
                if (snprintf(full, sizeof(full), "%.*s%s%s", (int) len, p, len ? "/" : "", file) < (int) sizeof(full)) {
                        execve(full, argv, envp);
                        if (errno == ENOEXEC)
                                exec_script(full, argv, envp);
                        if (errno == EACCES)
                                denied = true;
                        else if (errno != ENOENT && errno != ENOTDIR)
                                return -errno;
                }
                if (!end)
                        break;
        }
        return denied ? -EACCES : -ENOENT;
}

static bool kept(int fd, const int *sorted, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (sorted[i] == fd)
                        return true;
        return false;
}

/* The open fds as /dev/fd lists them (macOS and Linux both have it); not
 * being able to list them is an error, never a partial close. */
int os_close_fds_except(int from, const int *sorted, size_t n_keep)
{
        int fds[4096];
        size_t n = 0;
        struct dirent *e;
        DIR *d = opendir("/dev/fd");

        if (!d)
                return -errno;
        while ((e = readdir(d))) {
                char *end;
                long fd = strtol(e->d_name, &end, 10);
                if (*end || end == e->d_name || fd < from || fd == dirfd(d) || kept((int) fd, sorted, n_keep))
                        continue;
                if (n == ELEMENTSOF(fds)) {
                        closedir(d);
                        return -EMFILE;
                }
                fds[n++] = (int) fd;
        }
        closedir(d);
        for (size_t i = 0; i < n; i++)
                (void) close(fds[i]); /* EBADF: it was the directory's own fd */
        return 0;
}

int os_supervisor_setup(void)
{
        /* No subreaper and no dumpable flag.  macOS lets no process of the
         * same user read another's memory without an entitlement
         * (task_for_pid), which is what PR_SET_DUMPABLE guards on Linux. */
        return 0;
}

int os_wait_stopped(const pid_t *pids, size_t n, int timeout_ms)
{
        (void) pids, (void) n, (void) timeout_ms;
        return 0;
}

int os_keeper_setup(void)
{
        return -ENOSYS;
}

int os_list_descendants(pid_t root, pid_t *pids, size_t max, size_t *ret_n)
{
        pid_t g = getpgid(root);

        if (g <= 0)
                return -errno;
        if (max == 0)
                return -E2BIG;
        pids[0] = -g;
        *ret_n = 1;
        return 0;
}

size_t os_list_leftovers(pid_t group, pid_t *pids, size_t max)
{
        /* Our own children are reaped by the caller; what is left of the
         * command's process group is killed as one. */
        if (max == 0 || group <= 0 || kill(-group, 0) < 0)
                return 0;
        pids[0] = -group;
        return 1;
}

/* The handler sets a flag per signal and writes one byte to wake the
 * loop; os_signal_next drains the pipe and takes the flags.  The bytes
 * carry no signal numbers: a full pipe (a process flooding us with
 * SIGWINCH) must not lose a SIGCHLD. */
static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t signal_wfd = -1; /* what the handler writes to; -1 once closed */
static volatile sig_atomic_t signal_pending[NSIG];

static void on_signal(int sig)
{
        int saved = errno, fd = signal_wfd;

        if (sig > 0 && sig < NSIG)
                signal_pending[sig] = 1;
        if (fd >= 0)
                (void) !write(fd, "", 1); /* full: it is awake already */
        errno = saved;
}

static int set_flags(int fd, bool nonblock)
{
        int fl = fcntl(fd, F_GETFL);

        if (fl < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
        if (nonblock && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
                return -errno;
        return 0;
}

int os_signals_open(const int *sigs, size_t n, sigset_t *ret_old, int *ret_fd)
{
        struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
        sigset_t none, ours;

        if (signal_pipe[0] < 0) {
                if (pipe(signal_pipe) < 0)
                        return -errno;
                if (set_flags(signal_pipe[0], true) < 0 || set_flags(signal_pipe[1], true) < 0)
                        return -errno;
                signal_wfd = signal_pipe[1];
        }
        sigemptyset(&none);
        if (sigprocmask(SIG_BLOCK, &none, ret_old) < 0) /* only reads the mask */
                return -errno;
        sigemptyset(&sa.sa_mask);
        sigemptyset(&ours);
        for (size_t i = 0; i <= n; i++) {
                int sig = i < n ? sigs[i] : SIGCHLD;
                if (sigaction(sig, &sa, NULL) < 0 || sigaddset(&ours, sig) < 0)
                        return -errno;
        }
        if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) /* a module's socket write must not kill the supervisor */
                return -errno;
        /* Blocked when we started (exec keeps a mask): the handlers would
         * never run.  The child gets *ret_old back. */
        if (sigprocmask(SIG_UNBLOCK, &ours, NULL) < 0)
                return -errno;
        *ret_fd = signal_pipe[0];
        return 0;
}

int os_signal_next(int fd)
{
        char buf[256];

        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        for (int sig = 1; sig < NSIG; sig++)
                if (signal_pending[sig]) {
                        signal_pending[sig] = 0;
                        return sig;
                }
        return 0;
}

void os_signals_close(int fd)
{
        /* The handlers stay: a forwarded signal arriving now is only a
         * byte in a pipe nobody reads, as it is a pending signal on Linux. */
        if (fd >= 0 && fd == signal_pipe[0]) {
                signal_wfd = -1; /* first: a handler never writes to a reused number */
                (void) close(signal_pipe[0]);
                (void) close(signal_pipe[1]);
                signal_pipe[0] = signal_pipe[1] = -1;
        }
}

int os_status_socketpair(int sp[2])
{
        int r;

        int size = 256 * 1024; /* macOS's default is 8 KiB: the handoffs (handoff.c) must fit at once */

        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
                return -errno;
        r = set_flags(sp[0], false);
        if (r >= 0)
                r = set_flags(sp[1], false);
        for (int i = 0; r >= 0 && i < 2; i++)
                if (setsockopt(sp[i], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) < 0 ||
                    setsockopt(sp[i], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
                        r = -errno;
        if (r < 0) {
                close(sp[0]);
                close(sp[1]);
        }
        return r;
}

bool os_random(void *buf, size_t n)
{
        return n <= 256 && getentropy(buf, n) == 0;
}

int os_self_path(char *buf, size_t size)
{
#ifdef __APPLE__
        char raw[PATH_MAX];
        uint32_t len = sizeof(raw);

        if (_NSGetExecutablePath(raw, &len) != 0)
                return -ENAMETOOLONG;
        if (size < PATH_MAX)
                return -ENAMETOOLONG;
        return realpath(raw, buf) ? 0 : -errno;
#else
        ssize_t n = readlink("/proc/self/exe", buf, size - 1);

        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
#endif
}

int os_self_exec(int *ret_fd, char *path, size_t size)
{
        *ret_fd = -1;
        return os_self_path(path, size);
}

/* An unlinked temporary file; *ret_path is its name until the caller
 * unlinks it. */
static int temp_file(const char *name, char *path, size_t size)
{
        const char *dir = getenv("TMPDIR");
        int fd;

        if (!dir || dir[0] != '/')
                dir = "/tmp";
        if (snprintf(path, size, "%s/stockade-%s.XXXXXX", dir, name) >= (int) size)
                return -ENAMETOOLONG;
        fd = mkstemp(path);
        if (fd < 0)
                return -errno;
        if (set_flags(fd, false) < 0) {
                int r = -errno;
                (void) unlink(path);
                close(fd);
                return r;
        }
        return fd;
}

/* A stream socket pair holds the text, not a file: a temporary file, even
 * unlinked at once, could be opened for writing between mkstemp and
 * unlink by another process of ours (found by review).  Nothing but our
 * two ends exists; the write end is closed before the reader gets the
 * other, which reads to EOF.  The buffers are raised so the text fits
 * without a reader (a write that would wait is an error, not a hang). */
int os_text_fd(const char *name, const char *text, int *ret_fd)
{
        size_t len = strlen(text), off = 0;
        int sp[2], size = (int) (len + 4096 > 1 << 20 ? len + 4096 : 1 << 20);
        int r = 0;

        (void) name;
        if (len > (size_t) 16 << 20)
                return -E2BIG;
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
                return -errno;
        if (setsockopt(sp[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) < 0 ||
            setsockopt(sp[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0 ||
            set_flags(sp[0], false) < 0 || set_flags(sp[1], true) < 0)
                r = -errno;
        while (r >= 0 && off < len) {
                ssize_t n = send(sp[1], text + off, len - off, MSG_NOSIGNAL);
                if (n < 0)
                        r = errno == EAGAIN ? -E2BIG : -errno;
                else
                        off += (size_t) n;
        }
        close(sp[1]);
        if (r >= 0 && shutdown(sp[0], SHUT_WR) < 0)
                r = -errno;
        if (r < 0) {
                close(sp[0]);
                return r;
        }
        *ret_fd = sp[0];
        return 0;
}

int os_anon_fd(const char *name)
{
        char path[PATH_MAX];
        int fd = temp_file(name, path, sizeof(path));

        if (fd >= 0 && unlink(path) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

void *os_dlopen_fd(int fd, const char *path)
{
        struct stat checked, mapped;
        void *dl;

        if (!path || fstat(fd, &checked) < 0) {
                errno = path ? errno : EINVAL;
                return NULL;
        }
        /* Before too: dlopen runs the file's constructors. */
        if (stat(path, &mapped) < 0 || mapped.st_dev != checked.st_dev || mapped.st_ino != checked.st_ino) {
                errno = ESTALE;
                return NULL;
        }
        dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!dl)
                return NULL;
        if (stat(path, &mapped) < 0 || mapped.st_dev != checked.st_dev || mapped.st_ino != checked.st_ino) {
                (void) dlclose(dl);
                errno = ESTALE; /* replaced between the check and the load */
                return NULL;
        }
        return dl;
}

/* No seccomp: host->seccomp_notify says so, and nothing is ever loaded. */
int os_seccomp_load_merged(const struct os_bpf *progs, size_t n)
{
        return -EOPNOTSUPP;
}

int os_seccomp_merge(const struct os_bpf *progs, size_t n, void **ret_insns, size_t *ret_n)
{
        return -EOPNOTSUPP;
}

int os_notify_sizes(size_t *ret_req, size_t *ret_resp)
{
        return -EOPNOTSUPP;
}

int os_notify_recv(int listener, void *req, size_t req_size)
{
        return -EOPNOTSUPP;
}

int os_notify_send(int listener, void *resp)
{
        return -EOPNOTSUPP;
}

void os_notify_sync_wake(int listener)
{
}
