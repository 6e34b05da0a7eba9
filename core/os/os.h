/* SPDX-License-Identifier: MIT */
/*
 * The operating-system seam: every call the core makes that POSIX does not
 * define is behind one of these, so the rest of core/ is the same on every
 * system.  os_linux.c implements them on Linux; os_posix.c everywhere else
 * (macOS), and also on Linux in a `make PORTABLE=1` build, which is how the
 * portable code is compiled and tested on machines that are not Macs
 * (t/integration/portable.sh, run by `make check`); os_common.c holds the
 * few that are plain POSIX either way.
 *
 * Each function says what it guarantees on Linux and what the portable
 * version can only approximate; where the portable one cannot give a
 * guarantee the sandbox relies on, it fails (fail closed) rather than
 * pretending.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 1 where os_linux.c is built: for the few places whose code, not only
 * the call, differs (the status channel's message framing). */
#if defined(__linux__) && !defined(STK_PORTABLE)
#define OS_LINUX 1
#else
#define OS_LINUX 0
#endif

/* "linux" or "posix": which implementation this binary was built with
 * (`stockade --version -v`, doctor, and the tests). */
extern const char os_backend[];

/* ---- the child, between fork and exec (core/run/child.c) -------------------- */

/* After setsid(): whatever keeps the command from reaching back out of the
 * session it was given.  Linux: a fresh session keyring, SIGKILL when the
 * supervisor dies (then a check that it has not died already), and
 * no_new_privs.  Portable: nothing of these exists; the wrapper's own
 * confinement (Seatbelt) is inherited across exec, setuid binaries
 * included, which is what no_new_privs protects on Linux. */
int os_child_confine(pid_t supervisor);

/* A worker forked by a server (`stockade mcp`, `serve`: each command's
 * supervisor): SIGKILL when the server dies, then a check it has not died
 * already, so that a killed server leaves no supervisor behind (whose
 * keeper then ends the command).  Portable: the check alone. */
int os_die_with_parent(pid_t parent);

/* The keeper (docs/ARCHITECTURE.md, Processes): make this process, the
 * supervisor's child, the reaper of everything the command starts, so that
 * however the supervisor dies, nothing outlives it.  Linux:
 * PR_SET_CHILD_SUBREAPER.  Portable: -ENOSYS (no subreaper exists; the
 * command's process group is killed at the end instead). */
int os_keeper_setup(void);

/* Linux: empty the bounding, ambient, effective, permitted and inheritable
 * capability sets (root keeps none).  Portable: there are no capabilities
 * to drop; a command run as root stays root, so this refuses (-EPERM)
 * when the effective uid is 0 rather than hand it a root shell. */
int os_drop_capabilities(void);

/* execve of an open file (fexecve), for a wrapper pinned by digest.
 * Returns only on failure, -errno; -ENOSYS where it does not exist. */
int os_exec_fd(int fd, char *const argv[], char *const envp[]);

/* execvp with an environment (PATH searched in envp's caller's PATH, as
 * execvpe does).  Returns only on failure, -errno. */
int os_execvpe(const char *file, char *const argv[], char *const envp[]);

/* Close every fd >= from but the sorted keep[] (n of them). */
int os_close_fds_except(int from, const int *sorted_keep, size_t n);

/* ---- the supervisor (core/run/supervisor.c) --------------------------------- */

/* Make orphans of the command our children, and our memory and environment
 * unreadable to the command (it runs as our user).  Linux:
 * PR_SET_CHILD_SUBREAPER and PR_SET_DUMPABLE 0.  Portable: neither exists;
 * what the command leaves behind is found by its process group instead
 * (os_list_children), and a process that left the group (setsid) escapes
 * that sweep: stockade(1) PLATFORMS says so. */
int os_supervisor_setup(void);

/* Who is left to kill when the command has ended: up to max pids.  Linux:
 * our children (every orphan is one, we are a subreaper).  Portable: the
 * children we still have, plus -pgid entries for the command's process
 * group (`group`), which the caller passes to kill() as they are. */
size_t os_list_leftovers(pid_t group, pid_t *pids, size_t max);

/* Every descendant of `root` (not root itself) into pids[], *ret_n of
 * them: whom to stop while a question is on the user's terminal.  -E2BIG
 * when there were more than max (or than /proc could be read for), other
 * -errno: the caller cannot know it has them all.  Linux: from the parent
 * links of /proc.  Portable: -pgid of root's process group, as one entry
 * the caller passes to kill() as it is. */
int os_list_descendants(pid_t root, pid_t *pids, size_t max, size_t *ret_n);

/* Wait until each of pids[] is stopped (or gone), at most timeout_ms:
 * a SIGSTOP takes effect when the process next enters the kernel.
 * -ETIMEDOUT when one still runs.  Portable: 0 (it cannot be seen). */
int os_wait_stopped(const pid_t *pids, size_t n, int timeout_ms);

/* The forwarded signals (and SIGCHLD) as readable events: an fd that polls
 * readable while signals are pending, and os_signal_next() to take one (0
 * when none is left).  SIGPIPE is ignored.  *ret_old receives the mask to
 * restore in the child.  Linux: signalfd with the signals blocked.
 * Portable: the self-pipe trick, handlers that write the number to a
 * non-blocking pipe. */
int os_signals_open(const int *sigs, size_t n, sigset_t *ret_old, int *ret_fd);
/* SIGCHLD back to its default action: an ignored one (SIG_IGN or
 * SA_NOCLDWAIT, kept across exec) means no child to wait for, ever.
 * os_signals_open does it; a helper that waits for a child of its own
 * does too. */
int os_sigchld_default(void);
int os_signal_next(int fd);
/* The supervisor is done with them: fd closed, handlers back to default. */
void os_signals_close(int fd);
/* In the child right after fork: the signal state a command expects. */
void os_signals_reset(const sigset_t *old);

/* The status channel's socketpair.  Linux: SOCK_SEQPACKET with SO_PASSCRED
 * on the supervisor's end, so READY carries the command's pid as our pid
 * namespace sees it.  Portable: SOCK_STREAM (macOS has no AF_UNIX
 * SOCK_SEQPACKET) of fixed-size messages, no credentials: with no pid
 * namespace the command is the child itself. */
int os_status_socketpair(int sp[2]);

/* ---- everything else ----------------------------------------------------- */

/* n random bytes; false if the system would not give them. */
bool os_random(void *buf, size_t n);

/* The path of this very binary (for the build-tree check and for exec'ing
 * the inner helper).  0 or -errno. */
int os_self_path(char *buf, size_t size);

/* How the wrapper runs our inner helper: *ret_fd an fd to keep open across
 * exec (-1 if none) and path what to put in argv[0].  Linux: an fd of
 * /proc/self/exe and "/proc/self/fd/N" (the binary that is running, even if
 * the file was replaced since).  Portable: no fd, our own path. */
int os_self_exec(int *ret_fd, char *path, size_t size);

/* An fd holding text, read to its end, that nothing can change
 * afterwards.  Linux: a sealed memfd.  Portable: a stream socket pair whose
 * writing end is closed (no file anyone could open).  0 or -errno. */
int os_text_fd(const char *name, const char *text, int *ret_fd);

/* An anonymous read-write file (doctor's stderr capture).  -errno. */
int os_anon_fd(const char *name);

/* dlopen of the module file open at fd, which the loader checked.  Linux:
 * through /proc/self/fd, so the very file checked is the file mapped.
 * Portable: by its path, then the mapped file's identity is compared with
 * the checked fd's (a swap in a directory only its owner can write is the
 * remaining, owner-only window). */
void *os_dlopen_fd(int fd, const char *path);

/* Seccomp user notification shared by the in-sandbox lines (ABI 1.5,
 * host->seccomp_notify; seccomp_linux.c).  A process holds one listener at
 * most, so the programs are loaded as one filter that gives each call what
 * they would have given as filters loaded one after the other, `progs[0]`
 * first: the action first by precedence, on a tie the later program's.
 * Returns the listener, or -errno (-EOPNOTSUPP elsewhere than Linux). */
struct os_bpf {
        const void *insns;      /* struct sock_filter[] */
        size_t n;
        unsigned flags;         /* SECCOMP_FILTER_FLAG_* beside NEW_LISTENER */
};
int os_seccomp_load_merged(const struct os_bpf *progs, size_t n);
/* The merged program itself (malloc()ed), for the load and its tests. */
int os_seccomp_merge(const struct os_bpf *progs, size_t n, void **ret_insns, size_t *ret_n);
/* The sizes of the kernel's struct seccomp_notif and seccomp_notif_resp. */
int os_notify_sizes(size_t *ret_req, size_t *ret_resp);
/* One pending notification into `req` (zeroed first): 1, or 0 when none is
 * pending (or its caller died meanwhile), -ESHUTDOWN once no filtered
 * process is left, other -errno when the listener failed. */
int os_notify_recv(int listener, void *req, size_t req_size);
/* The answer; a caller gone meanwhile (ENOENT) is not an error. */
int os_notify_send(int listener, void *resp);
/* Wake-ups on the same CPU (Linux 6.6; a no-op before and elsewhere). */
void os_notify_sync_wake(int listener);
