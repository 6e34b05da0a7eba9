/* SPDX-License-Identifier: MIT */
/* os.h on Linux: what each function guarantees is said there. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/capability.h>
#include <linux/keyctl.h>

#include "os.h"
#include "common/stk_util.h"

const char os_backend[] = "linux";

/* A fresh, empty session keyring: the one inherited from the supervisor is
 * possessed by the command otherwise, and whatever keys the user's login put
 * there (Kerberos tickets, ecryptfs, tokens) would be readable. */
static int new_session_keyring(void)
{
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
                return errno == ENOSYS ? 0 : -errno; /* no key support: nothing to hide */
        return 0;
}

int os_child_confine(pid_t supervisor)
{
        int r = new_session_keyring();

        if (r < 0)
                return r;
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return -errno;
        /* The supervisor may have died before PDEATHSIG was armed. */
        if (getppid() != supervisor)
                return -ESRCH;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        return 0;
}

int os_die_with_parent(pid_t parent)
{
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return -errno;
        return getppid() == parent ? 0 : -ESRCH;
}

static int last_cap(void)
{
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        int n = -1;

        if (f) {
                if (fscanf(f, "%d", &n) != 1)
                        n = -1;
                fclose(f);
        }
        return n >= 0 && n < 64 ? n : 63;
}

/* With no wrapper there is no user namespace to take root's capabilities
 * away: a root command would keep CAP_SYS_PTRACE, CAP_DAC_OVERRIDE & co.
 * (the escape suite read the supervisor's environment that way).  Empty the
 * bounding set, so exec grants nothing back, then every set. */
int os_drop_capabilities(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2] = { { 0 } };
        int last = geteuid() == 0 ? last_cap() : -1; /* read once, not per capability */

        for (int c = 0; c <= last; c++)
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                        return -errno;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        if (syscall(SYS_capset, &h, none) < 0)
                return -errno;
        return 0;
}

int os_exec_fd(int fd, char *const argv[], char *const envp[])
{
        fexecve(fd, argv, envp);
        return -errno;
}

int os_execvpe(const char *file, char *const argv[], char *const envp[])
{
        execvpe(file, argv, envp);
        return -errno;
}

/* close_range(2) closes the gaps between the kept fds in O(1) calls. */
int os_close_fds_except(int from, const int *sorted, size_t n_keep)
{
        for (size_t i = 0; i <= n_keep; i++) {
                unsigned lo = (unsigned) from, hi = i < n_keep ? (unsigned) sorted[i] - 1 : ~0u;
                if (i > 0)
                        lo = (unsigned) sorted[i - 1] + 1;
                if (i < n_keep && sorted[i] < from)
                        continue;
                if (lo < (unsigned) from)
                        lo = (unsigned) from;
                if (lo > hi)
                        continue;
                if (syscall(SYS_close_range, lo, hi, 0) < 0)
                        return -errno;
        }
        return 0;
}

/* The command runs as our user: without PR_SET_DUMPABLE 0 it could read
 * our /proc/PID/environ (the agent's tokens) and memory wherever no pid
 * namespace hides us (the Landlock stack).  LeakSanitizer stops the world
 * with ptrace from a child, which a non-dumpable process refuses: the
 * sanitizer build keeps the default. */
int os_supervisor_setup(void)
{
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                return -errno;
#if !defined(__SANITIZE_ADDRESS__)
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
#endif
        return 0;
}

int os_keeper_setup(void)
{
        return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

/* The state letter of /proc/PID/stat, or 0 when the process is gone. */
static char proc_state(pid_t pid)
{
        char path[64], buf[512];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd); /* read-only */
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : 0;
}

int os_wait_stopped(const pid_t *pids, size_t n, int timeout_ms)
{
        const struct timespec tick = { 0, 1000000 };

        for (int waited = 0;; waited++) {
                size_t running = 0;
                for (size_t i = 0; i < n; i++) {
                        char s = proc_state(pids[i]);
                        running += s && s != 'T' && s != 't' && s != 'Z' && s != 'X';
                }
                if (running == 0)
                        return 0;
                if (waited >= timeout_ms)
                        return -ETIMEDOUT;
                (void) nanosleep(&tick, NULL); /* EINTR only shortens it */
        }
}

/* pid and parent of /proc/PID/stat ("PID (COMM) S PPID ..."; COMM may
 * hold anything, so the last ')' ends it). */
static bool stat_parent(const char *pid, pid_t *ret_ppid)
{
        char path[300], buf[512];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%s/stat", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd); /* read-only */
        if (n <= 0)
                return false;
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        long ppid;
        if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
                return false;
        *ret_ppid = (pid_t) ppid;
        return true;
}

static bool marked(const pid_t *all, const bool *mark, size_t n, pid_t pid)
{
        for (size_t i = 0; i < n; i++)
                if (all[i] == pid)
                        return mark[i];
        return false;
}

#define MAX_PROCS 16384

struct procs {
        pid_t pid[MAX_PROCS], parent[MAX_PROCS];
        bool mark[MAX_PROCS];
        size_t n;
};

static int read_procs(struct procs *p)
{
        struct dirent *de;
        DIR *d = opendir("/proc");

        if (!d)
                return -errno;
        p->n = 0;
        while ((de = readdir(d)))
                if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && p->n < MAX_PROCS &&
                    stat_parent(de->d_name, &p->parent[p->n])) {
                        p->pid[p->n] = (pid_t) atol(de->d_name);
                        p->mark[p->n++] = false;
                }
        closedir(d);
        return p->n < MAX_PROCS ? 0 : -E2BIG; /* more than we can look at: not all found */
}

int os_list_descendants(pid_t root, pid_t *pids, size_t max, size_t *ret_n)
{
        _cleanup_free_ struct procs *p = malloc(sizeof(*p)); /* only while a question is asked */
        size_t n = 0;
        bool grew = true;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_procs(p);
        if (r < 0)
                return r;
        /* Until nothing is added: /proc lists a parent after its child as
         * often as before it. */
        while (grew && n < max) {
                grew = false;
                for (size_t i = 0; i < p->n && n < max; i++)
                        if (!p->mark[i] && (p->parent[i] == root || marked(p->pid, p->mark, p->n, p->parent[i]))) {
                                p->mark[i] = grew = true;
                                pids[n++] = p->pid[i];
                        }
        }
        *ret_n = n;
        return grew ? -E2BIG : 0; /* stopped by max with more to add */
}

/* Our children now, as /proc lists them; 0 when there are none.  The
 * process group is not needed: as a subreaper we inherit every orphan. */
size_t os_list_leftovers(pid_t group, pid_t *pids, size_t max)
{
        char path[64], buf[4096];
        size_t n = 0, len;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int) syscall(SYS_gettid));
        f = fopen(path, "re");
        if (!f)
                return 0;
        len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        for (char *p = buf, *end; *p && n < max; p = end) {
                long pid = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (pid > 0)
                        pids[n++] = (pid_t) pid;
        }
        return n;
}

int os_signals_open(const int *sigs, size_t n, sigset_t *ret_old, int *ret_fd)
{
        sigset_t set;
        int r = os_sigchld_default();

        if (r < 0)
                return r;
        sigemptyset(&set);
        for (size_t i = 0; i < n; i++)
                sigaddset(&set, sigs[i]);
        sigaddset(&set, SIGCHLD);
        sigaddset(&set, SIGPIPE); /* a module's socket write must not kill the supervisor */
        if (sigprocmask(SIG_BLOCK, &set, ret_old) < 0)
                return -errno;
        sigdelset(&set, SIGPIPE);
        *ret_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        return *ret_fd < 0 ? -errno : 0;
}

int os_signal_next(int fd)
{
        struct signalfd_siginfo si;

        return read(fd, &si, sizeof(si)) == (ssize_t) sizeof(si) ? (int) si.ssi_signo : 0;
}

void os_signals_close(int fd)
{
        if (fd >= 0)
                (void) close(fd); /* the signals stay blocked: delivered, they would end us now */
}

int os_status_socketpair(int sp[2])
{
        int one = 1;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
                return -errno;
        if (setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
                int r = -errno;
                close(sp[0]);
                close(sp[1]);
                return r;
        }
        return 0;
}

bool os_random(void *buf, size_t n)
{
        return getrandom(buf, n, GRND_NONBLOCK) == (ssize_t) n;
}

int os_self_path(char *buf, size_t size)
{
        ssize_t n = readlink("/proc/self/exe", buf, size - 1);

        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

int os_self_exec(int *ret_fd, char *path, size_t size)
{
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        snprintf(path, size, "/proc/self/fd/%d", fd);
        *ret_fd = fd;
        return 0;
}

int os_text_fd(const char *name, const char *text, int *ret_fd)
{
        _cleanup_close_ int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        size_t len = strlen(text), off = 0;

        if (fd < 0)
                return -errno;
        while (off < len) {
                ssize_t n = write(fd, text + off, len - off);
                if (n < 0)
                        return -errno;
                off += (size_t) n;
        }
        /* Sealed: nothing between here and the reader can change it. */
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
            lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int os_anon_fd(const char *name)
{
        int fd = memfd_create(name, MFD_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

void *os_dlopen_fd(int fd, const char *path)
{
        char proc[64];

        (void) path;
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        return dlopen(proc, RTLD_NOW | RTLD_LOCAL);
}
