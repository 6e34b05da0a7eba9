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
#include "util.h"

const char os_backend[] = "posix";

int os_child_confine(pid_t supervisor)
{
        /* No parent-death signal to arm; at least a supervisor already gone
         * (we were re-parented) is seen, as on Linux. */
        return getppid() == supervisor ? 0 : -ESRCH;
}

int os_drop_capabilities(void)
{
        return geteuid() == 0 ? -EPERM : 0;
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

size_t os_list_leftovers(pid_t group, pid_t *pids, size_t max)
{
        /* Our own children are reaped by the caller; what is left of the
         * command's process group is killed as one. */
        if (max == 0 || group <= 0 || kill(-group, 0) < 0)
                return 0;
        pids[0] = -group;
        return 1;
}

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t signal_wfd = -1; /* what the handler writes to; -1 once closed */

static void on_signal(int sig)
{
        unsigned char b = (unsigned char) sig;
        int saved = errno, fd = signal_wfd;

        if (fd >= 0)
                (void) !write(fd, &b, 1); /* full: signals are merged, as with signalfd */
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
        sigset_t none;

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
        for (size_t i = 0; i <= n; i++)
                if (sigaction(i < n ? sigs[i] : SIGCHLD, &sa, NULL) < 0)
                        return -errno;
        if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) /* a module's socket write must not kill the supervisor */
                return -errno;
        *ret_fd = signal_pipe[0];
        return 0;
}

int os_signal_next(int fd)
{
        unsigned char b;

        return read(fd, &b, 1) == 1 ? (int) b : 0;
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

void os_signals_reset(const sigset_t *old)
{
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL); /* EINVAL for the signals that cannot be caught */
        (void) sigprocmask(SIG_SETMASK, old, NULL);
}

int os_status_socketpair(int sp[2])
{
        int r;

        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
                return -errno;
        r = set_flags(sp[0], false);
        if (r >= 0)
                r = set_flags(sp[1], false);
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

int os_text_fd(const char *name, const char *text, int *ret_fd)
{
        char path[PATH_MAX];
        _cleanup_close_ int w = temp_file(name, path, sizeof(path)), rd = -1;
        size_t len = strlen(text), off = 0;

        if (w < 0)
                return w;
        /* The reader's fd is read-only; once the name is gone and the writer
         * closed, no fd that could change the text exists. */
        rd = open(path, O_RDONLY | O_CLOEXEC);
        if (unlink(path) < 0 || rd < 0)
                return -errno;
        while (off < len) {
                ssize_t n = write(w, text + off, len - off);
                if (n < 0)
                        return -errno;
                off += (size_t) n;
        }
        *ret_fd = TAKE_FD(rd);
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
