/* SPDX-License-Identifier: MIT */
/*
 * probe-helper: call one syscall the way a filter test wants it, with bad
 * fds or pointers so that it can do no harm when it is allowed (bubblewrap
 * tests/try-syscall.c does the same).
 *
 *   probe-helper NAME...   one line per probe: "NAME: allowed (ERRNO)",
 *                          "NAME: denied (EPERM)" or "NAME: unsupported (WHY)"
 *   probe-helper --list    the probe names
 *
 * Exit status: 0 allowed, 1 denied, 77 unsupported here, when every NAME
 * gave that answer; 2 when they differ.
 *
 * "Allowed" means the kernel ran the syscall and it failed on our bad
 * argument (EBADF, EFAULT, EINVAL, ESRCH...) or succeeded harmlessly.
 * "Denied" is EPERM, or ENOSYS for clone3 (net_seccomp returns ENOSYS there
 * on purpose) and x32 (which the kernel may lack).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

enum { ALLOWED = 0, DENIED = 1, UNEXPECTED = 2, UNSUPPORTED = 77 };

#define SC(...) ((long)syscall(__VA_ARGS__))

/* Each probe returns the syscall's result with errno set. */
static long p_ptrace(void) { return SC(SYS_ptrace, 2 /* PEEKDATA */, -1, NULL, NULL); }
static long p_pvm_readv(void) { return SC(SYS_process_vm_readv, getpid(), NULL, 1, NULL, 1, 0); }
static long p_pvm_writev(void) { return SC(SYS_process_vm_writev, getpid(), NULL, 1, NULL, 1, 0); }
static long p_uring_setup(void) { return SC(SYS_io_uring_setup, 1, NULL); }
static long p_uring_enter(void) { return SC(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0); }
static long p_uring_register(void) { return SC(SYS_io_uring_register, -1, 0, NULL, 0); }
static long p_tiocsti(void) { return SC(SYS_ioctl, -1, TIOCSTI, NULL); }
/* The kernel reads cmd as unsigned int: upper bits must not dodge the filter. */
static long p_tiocsti_hi(void) { return SC(SYS_ioctl, -1, 0x100000000UL | TIOCSTI, NULL); }
static long p_tioclinux(void) { return SC(SYS_ioctl, -1, TIOCLINUX, NULL); }
static long p_ioctl_other(void) { return SC(SYS_ioctl, -1, FIONREAD, NULL); }
static long p_keyctl(void) { return SC(SYS_keyctl, -1L, 0, 0, 0, 0); }
static long p_add_key(void) { return SC(SYS_add_key, NULL, NULL, NULL, 0, 0); }
static long p_request_key(void) { return SC(SYS_request_key, NULL, NULL, NULL, 0); }
static long p_bpf(void) { return SC(SYS_bpf, -1, NULL, 0); }
static long p_perf(void) { return SC(SYS_perf_event_open, NULL, 0, -1, -1, 0); }
static long p_userfaultfd(void) { return SC(SYS_userfaultfd, ~0U); }
/* CLONE_IO is not an unshare flag: EINVAL after the filter, never a namespace. */
static long p_unshare_user(void) { return SC(SYS_unshare, CLONE_NEWUSER | CLONE_IO); }
static long p_unshare_files(void) { return SC(SYS_unshare, CLONE_FILES); }
/* CLONE_NEWUSER with CLONE_FS is always EINVAL: never a child. */
static long p_clone_user(void) { return SC(SYS_clone, CLONE_NEWUSER | CLONE_FS, NULL, NULL, NULL, 0); }
static long p_clone3(void) { return SC(SYS_clone3, NULL, 0); }
static long p_setns(void) { return SC(SYS_setns, -1, 0); }
static long p_mount(void) { return SC(SYS_mount, NULL, NULL, NULL, 0, NULL); }
static long p_umount2(void) { return SC(SYS_umount2, NULL, 0); }
static long p_pivot_root(void) { return SC(SYS_pivot_root, NULL, NULL); }
static long p_move_mount(void) { return SC(SYS_move_mount, -1, NULL, -1, NULL, 0); }
static long p_open_tree(void) { return SC(SYS_open_tree, -1, NULL, 0); }
static long p_fsopen(void) { return SC(SYS_fsopen, NULL, 0); }
static long p_kexec_load(void) { return SC(SYS_kexec_load, 0, 0, NULL, ~0UL); }
static long p_init_module(void) { return SC(SYS_init_module, NULL, 0, NULL); }
static long p_finit_module(void) { return SC(SYS_finit_module, -1, NULL, 0); }
static long p_delete_module(void) { return SC(SYS_delete_module, NULL, 0); }
static long p_persona_query(void) { return SC(SYS_personality, 0xffffffffUL); }
static long p_persona_rie(void) { return SC(SYS_personality, 0x0400000UL /* READ_IMPLIES_EXEC */); }
static long p_open_by_handle(void) { return SC(SYS_open_by_handle_at, -1, NULL, 0); }
static long sock(int domain, int type, int proto)
{
        long fd = SC(SYS_socket, domain, type, proto);

        if (fd >= 0)
                close((int)fd);
        return fd;
}
static long p_sock_unix(void) { return sock(AF_UNIX, SOCK_STREAM, 0); }
static long p_sock_unix_dgram(void) { return sock(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); }
static long p_sock_unix_seqpacket(void) { return sock(AF_UNIX, SOCK_SEQPACKET, 0); }
static long p_sock_unix_raw(void) { return sock(AF_UNIX, SOCK_RAW, 0); }
static long pair(int type)
{
        int sv[2];
        long r = SC(SYS_socketpair, AF_UNIX, type, 0, sv);

        if (r == 0) {
                close(sv[0]);
                close(sv[1]);
        }
        return r;
}
static long p_pair_unix_dgram(void) { return pair(SOCK_DGRAM); }
static long p_pair_unix_stream(void) { return pair(SOCK_STREAM); }
static long p_sock_tcp(void) { return sock(AF_INET, SOCK_STREAM, 0); }
/* Bad ids and names: an allowed call fails with EINVAL or ENOENT. */
static long p_shmat(void) { return SC(SYS_shmat, -1, NULL, 0); }
static long p_shmget(void) { return SC(SYS_shmget, 0x5afe5afe, 4096, 0); }
static long p_msgget(void) { return SC(SYS_msgget, 0x5afe5afe, 0); }
static long p_semget(void) { return SC(SYS_semget, 0x5afe5afe, 1, 0); }
static long p_mq_open(void) { return SC(SYS_mq_open, "stockade-probe-missing", 0, 0, NULL); }
static long p_sock_tcp6(void) { return sock(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP); }
static long p_sock_udp(void) { return sock(AF_INET, SOCK_DGRAM, 0); }
static long p_sock_udp6(void) { return sock(AF_INET6, SOCK_DGRAM, 0); }
static long p_sock_raw(void) { return sock(AF_INET, SOCK_RAW, IPPROTO_ICMP); }
static long p_sock_sctp(void) { return sock(AF_INET, SOCK_STREAM, IPPROTO_SCTP); }
static long p_sock_netlink(void) { return sock(AF_NETLINK, SOCK_RAW, 0); }
static long p_sock_packet(void) { return sock(AF_PACKET, SOCK_RAW, 0); }
static long p_sock_vsock(void) { return sock(40 /* AF_VSOCK */, SOCK_STREAM, 0); }
/* AF_PACKET with garbage in the upper half the kernel ignores (int). */
static long p_sock_packet_hi(void)
{
        long fd = SC(SYS_socket, 0x100000000UL | AF_PACKET, SOCK_RAW, 0);

        if (fd >= 0)
                close((int)fd);
        return fd;
}
static long p_sendto_fastopen(void) { return SC(SYS_sendto, -1, NULL, 0, MSG_FASTOPEN, NULL, 0); }
static long p_sendto(void) { return SC(SYS_sendto, -1, NULL, 0, 0, NULL, 0); }
static long p_x32_getpid(void) { return SC(0x40000000 | SYS_getpid); }

/* i386 getpid through int 0x80, in a child: where the kernel runs no ia32
 * code (ia32_emulation=0) the instruction faults. */
static long p_int80(void)
{
        int st;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
#if defined(__x86_64__)
                long ret;
                /* int 0x80 from 64-bit code clobbers r8-r11 (entry_64_compat.S). */
                __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L /* i386 getpid */)
                                 : "memory", "r8", "r9", "r10", "r11");
                _exit(ret == -EPERM ? DENIED : ret > 0 ? ALLOWED : UNEXPECTED);
#else
                _exit(UNSUPPORTED);
#endif
        }
        if (waitpid(pid, &st, 0) != pid)
                return -1;
        if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == UNSUPPORTED)) {
                errno = ENOEXEC;  /* no ia32 here */
                return -1;
        }
        errno = WEXITSTATUS(st) == DENIED ? EPERM : WEXITSTATUS(st) == ALLOWED ? 0 : EIO;
        return errno ? -1 : 0;
}

static const struct probe {
        const char *name;
        long (*fn)(void);
        int denied_errno; /* errno that means "filtered" */
} probes[] = {
        { "ptrace", p_ptrace, EPERM },
        { "process_vm_readv", p_pvm_readv, EPERM },
        { "process_vm_writev", p_pvm_writev, EPERM },
        { "io_uring_setup", p_uring_setup, EPERM },
        { "io_uring_enter", p_uring_enter, EPERM },
        { "io_uring_register", p_uring_register, EPERM },
        { "ioctl_tiocsti", p_tiocsti, EPERM },
        { "ioctl_tiocsti_hibits", p_tiocsti_hi, EPERM },
        { "ioctl_tioclinux", p_tioclinux, EPERM },
        { "ioctl_fionread", p_ioctl_other, EPERM },
        { "keyctl", p_keyctl, EPERM },
        { "add_key", p_add_key, EPERM },
        { "request_key", p_request_key, EPERM },
        { "bpf", p_bpf, EPERM },
        { "perf_event_open", p_perf, EPERM },
        { "userfaultfd", p_userfaultfd, EPERM },
        { "unshare_user", p_unshare_user, EPERM },
        { "unshare_files", p_unshare_files, EPERM },
        { "clone_newuser", p_clone_user, EPERM },
        { "clone3", p_clone3, ENOSYS },
        { "setns", p_setns, EPERM },
        { "mount", p_mount, EPERM },
        { "umount2", p_umount2, EPERM },
        { "pivot_root", p_pivot_root, EPERM },
        { "move_mount", p_move_mount, EPERM },
        { "open_tree", p_open_tree, EPERM },
        { "fsopen", p_fsopen, EPERM },
        { "kexec_load", p_kexec_load, EPERM },
        { "init_module", p_init_module, EPERM },
        { "finit_module", p_finit_module, EPERM },
        { "delete_module", p_delete_module, EPERM },
        { "personality_query", p_persona_query, EPERM },
        { "personality_read_implies_exec", p_persona_rie, EPERM },
        { "open_by_handle_at", p_open_by_handle, EPERM },
        { "socket_unix", p_sock_unix, EPERM },
        { "socket_unix_dgram", p_sock_unix_dgram, EACCES },
        { "socket_unix_seqpacket", p_sock_unix_seqpacket, EPERM },
        { "socket_unix_raw", p_sock_unix_raw, EACCES },
        { "socketpair_unix_dgram", p_pair_unix_dgram, EACCES },
        { "socketpair_unix_stream", p_pair_unix_stream, EPERM },
        { "socket_tcp", p_sock_tcp, EPERM },
        { "shmat", p_shmat, EPERM },
        { "shmget", p_shmget, EPERM },
        { "msgget", p_msgget, EPERM },
        { "semget", p_semget, EPERM },
        { "mq_open", p_mq_open, EPERM },
        { "socket_tcp6", p_sock_tcp6, EPERM },
        { "socket_udp", p_sock_udp, EPERM },
        { "socket_udp6", p_sock_udp6, EPERM },
        { "socket_raw", p_sock_raw, EPERM },
        { "socket_sctp", p_sock_sctp, EPERM },
        { "socket_netlink", p_sock_netlink, EPERM },
        { "socket_packet", p_sock_packet, EPERM },
        { "socket_packet_hibits", p_sock_packet_hi, EPERM },
        { "socket_vsock", p_sock_vsock, EPERM },
        { "sendto_fastopen", p_sendto_fastopen, EPERM },
        { "sendto", p_sendto, EPERM },
        { "x32_getpid", p_x32_getpid, EPERM },
        { "i386_int80", p_int80, EPERM },
};

static int run(const struct probe *p)
{
        long r;
        int err;

        errno = 0;
        r = p->fn();
        err = errno;
        if (r >= 0) {
                printf("%s: allowed (ok)\n", p->name);
                return ALLOWED;
        }
        if (err == p->denied_errno) {
                printf("%s: denied (%s)\n", p->name, strerrorname_np(err));
                return DENIED;
        }
        if (err == ENOSYS || err == ENOEXEC || err == EAFNOSUPPORT) {
                printf("%s: unsupported (%s)\n", p->name, strerrorname_np(err));
                return UNSUPPORTED;
        }
        printf("%s: allowed (%s)\n", p->name, strerrorname_np(err));
        return ALLOWED;
}

int main(int argc, char **argv)
{
        int verdict = -1;

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc == 2 && strcmp(argv[1], "--list") == 0) {
                for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
                        printf("%s\n", probes[i].name);
                return 0;
        }
        for (int a = 1; a < argc; a++) {
                size_t i = 0;
                while (i < sizeof(probes) / sizeof(probes[0]) && strcmp(probes[i].name, argv[a]) != 0)
                        i++;
                if (i == sizeof(probes) / sizeof(probes[0])) {
                        fprintf(stderr, "probe-helper: unknown probe %s (--list)\n", argv[a]);
                        return 64;
                }
                int v = run(&probes[i]);
                verdict = verdict < 0 || verdict == v ? v : UNEXPECTED;
        }
        return verdict < 0 ? 64 : verdict;
}
