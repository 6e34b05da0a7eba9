/* SPDX-License-Identifier: MIT */
/*
 * THE deny list of net_seccomp: every syscall the filter refuses, when, with
 * which errno, and why.  stockade-net_seccomp(8) shows this table; a unit
 * test checks that every entry appears there.
 *
 * The filter allows by default: the command is an arbitrary shell command,
 * and an allow-list would break whatever it runs that we did not foresee.
 * What is listed is kernel attack surface and sandbox escapes, after
 * Docker's default profile and systemd's SystemCallFilter= groups
 * (src/shared/seccomp-util.c).
 *
 * Arguments the kernel reads as 32-bit (int, unsigned int) are compared on
 * their low 32 bits only, with a mask: a 64-bit comparison could be dodged
 * by setting the upper bits the kernel then ignores (bubblewrap
 * CVE-2017-5226 / flatpak GHSA-67h7-w3jq-vh4q, TIOCSTI with high bits).
 */
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "net_seccomp_internal.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* clone(2)'s flags are its first argument but on s390 and CRIS. */
#if defined(__s390__) || defined(__s390x__) || defined(__CRIS__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* CLONE_NEWTIME shares its bit with clone(2)'s exit signal (CSIGNAL), so
 * it is only a namespace flag for unshare(2). */
#define NS_CLONE_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
                        CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
#define NS_UNSHARE_FLAGS (NS_CLONE_FLAGS | CLONE_NEWTIME)

#define HARDEN(g, name, why) \
        { .group = (g), .syscall = (name), .modes = NS_ALL_MODES, .kind = NS_ALL, .err = EPERM, .reason = (why) }
#define OFF NS_MODE(STK_NET_OFF)
#define PROXY NS_MODE(STK_NET_PROXY)

#define WHY_PTRACE "reads and writes other processes' memory and registers"
#define WHY_IPC "System V IPC of the host (no IPC namespace): attach and write another process's shared memory, semaphores, queues"
#define WHY_MQ "POSIX message queues of the host (no IPC namespace)"
#define WHY_PVM "cross-process memory access without ptrace"
#define WHY_URING "io_uring requests run without passing through this filter (a ring can open, connect, send), and the subsystem is a steady source of kernel bugs"
#define WHY_KEYS "kernel keyrings are not namespaced: the user's session keyring may hold credentials"
#define WHY_NS "a new user namespace hands the command every capability inside it, and with them mount and far more kernel surface"
#define WHY_MOUNT "rearranging mounts can hide or replace what the sandbox protects"
#define WHY_KEXEC "replaces the running kernel"
#define WHY_MODULES "loads code into the kernel"
#define WHY_TFO "TCP Fast Open connects inside sendmsg, where the LSM connect hook (Landlock's port rule) never runs"
#define WHY_SCTP "a stream socket with IPPROTO_SCTP or IPPROTO_MPTCP is not TCP to Landlock's port rules"

const struct ns_entry ns_table[] = {
        HARDEN(NS_G_PTRACE, "ptrace", WHY_PTRACE),
        HARDEN(NS_G_PROCESS_VM, "process_vm_readv", WHY_PVM),
        HARDEN(NS_G_PROCESS_VM, "process_vm_writev", WHY_PVM),
        HARDEN(NS_G_IO_URING, "io_uring_setup", WHY_URING),
        HARDEN(NS_G_IO_URING, "io_uring_enter", WHY_URING),
        HARDEN(NS_G_IO_URING, "io_uring_register", WHY_URING),
        { .group = NS_G_TTY_INJECT, .syscall = "ioctl", .modes = NS_ALL_MODES, .kind = NS_EQ32, .arg = 1,
          .values = { TIOCSTI }, .n_values = 1, .err = EPERM,
          .reason = "TIOCSTI pushes characters into a terminal's input: they run in the user's shell after the command ends" },
        { .group = NS_G_TTY_INJECT, .syscall = "ioctl", .modes = NS_ALL_MODES, .kind = NS_EQ32, .arg = 1,
          .values = { TIOCLINUX }, .n_values = 1, .err = EPERM,
          .reason = "TIOCLINUX can paste the console selection: the same injection on a virtual console" },
        HARDEN(NS_G_KEYRING, "keyctl", WHY_KEYS),
        HARDEN(NS_G_KEYRING, "add_key", WHY_KEYS),
        HARDEN(NS_G_KEYRING, "request_key", WHY_KEYS),
        HARDEN(NS_G_BPF, "bpf", "loads programs into the kernel: a large attack surface"),
        HARDEN(NS_G_PERF, "perf_event_open", "kernel attack surface and side channels on other processes"),
        HARDEN(NS_G_USERFAULTFD, "userfaultfd", "stalls kernel page-fault handling at will, the classic tool to win kernel races"),
        { .group = NS_G_NAMESPACES, .syscall = "unshare", .modes = NS_ALL_MODES, .kind = NS_ANY_BIT, .arg = 0,
          .mask = NS_UNSHARE_FLAGS, .err = EPERM, .reason = WHY_NS },
        { .group = NS_G_NAMESPACES, .syscall = "clone", .modes = NS_ALL_MODES, .kind = NS_ANY_BIT,
          .arg = CLONE_FLAGS_ARG, .mask = NS_CLONE_FLAGS, .err = EPERM, .reason = WHY_NS },
        /* clone3 takes its flags in a struct in memory, which seccomp cannot
         * read.  ENOSYS makes glibc (and Go, Rust's std) fall back to clone(2),
         * whose flags the entry above checks; systemd, Docker and Flatpak do
         * the same.  EPERM would make those callers fail instead. */
        { .group = NS_G_NAMESPACES, .syscall = "clone3", .modes = NS_ALL_MODES, .kind = NS_ALL, .err = ENOSYS,
          .reason = "its flags are in memory, out of seccomp's reach: ENOSYS makes libc fall back to clone(2)" },
        HARDEN(NS_G_NAMESPACES, "setns", "joins another namespace"),
        HARDEN(NS_G_MOUNT, "mount", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "umount2", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "pivot_root", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "move_mount", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "open_tree", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "fsopen", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "fsconfig", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "fsmount", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "fspick", WHY_MOUNT),
        HARDEN(NS_G_MOUNT, "mount_setattr", WHY_MOUNT),
        HARDEN(NS_G_KEXEC, "kexec_load", WHY_KEXEC),
        HARDEN(NS_G_KEXEC, "kexec_file_load", WHY_KEXEC),
        HARDEN(NS_G_KERNEL_MODULES, "init_module", WHY_MODULES),
        HARDEN(NS_G_KERNEL_MODULES, "finit_module", WHY_MODULES),
        HARDEN(NS_G_KERNEL_MODULES, "delete_module", WHY_MODULES),
        { .group = NS_G_PERSONALITY, .syscall = "personality", .modes = NS_ALL_MODES, .kind = NS_PERSONA, .arg = 0,
          .err = EPERM,
          .reason = "READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE and friends weaken what the command runs next; only the query (0xffffffff) and PER_LINUX (0) pass" },
        HARDEN(NS_G_OPEN_BY_HANDLE, "open_by_handle_at",
               "opens a file by handle, around every path-based check (the \"shocker\" container escape)"),

        /* Without an IPC namespace of its own (the Landlock stack) the
         * command shares the host's System V IPC and POSIX message queues:
         * shmat(2) takes a plain id, so it could write into a same-user
         * process's shared memory (X11 MIT-SHM, a database).  Left out of
         * the filter when a wrapper made an IPC namespace (fs_bwrap). */
        HARDEN(NS_G_IPC, "shmget", WHY_IPC),
        HARDEN(NS_G_IPC, "shmat", WHY_IPC),
        HARDEN(NS_G_IPC, "shmctl", WHY_IPC),
        HARDEN(NS_G_IPC, "semget", WHY_IPC),
        HARDEN(NS_G_IPC, "semop", WHY_IPC),
        HARDEN(NS_G_IPC, "semtimedop", WHY_IPC),
        HARDEN(NS_G_IPC, "semctl", WHY_IPC),
        HARDEN(NS_G_IPC, "msgget", WHY_IPC),
        HARDEN(NS_G_IPC, "msgsnd", WHY_IPC),
        HARDEN(NS_G_IPC, "msgrcv", WHY_IPC),
        HARDEN(NS_G_IPC, "msgctl", WHY_IPC),
        HARDEN(NS_G_IPC, "mq_open", WHY_MQ),
        HARDEN(NS_G_IPC, "mq_unlink", WHY_MQ),
        HARDEN(NS_G_IPC, "mq_timedsend", WHY_MQ),
        HARDEN(NS_G_IPC, "mq_timedreceive", WHY_MQ),
        HARDEN(NS_G_IPC, "mq_notify", WHY_MQ),
        HARDEN(NS_G_IPC, "mq_getsetattr", WHY_MQ),

        /* Network: not `allow:`-able, they follow settings.network. */
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = OFF, .kind = NS_NOT_IN, .arg = 0, .mask = 0xffffffff,
          .values = { AF_UNIX }, .n_values = 1, .err = EPERM, .notify = 1,
          .reason = "network off: unix sockets only (no IP, netlink, packet, vsock, ...); without a network "
                    "namespace of the command's own (the Landlock stack) loopback is the host's, so even a "
                    "local server is refused" },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = NS_MODE_OFF_CONTAINED, .kind = NS_NOT_IN, .arg = 0,
          .mask = 0xffffffff, .values = { AF_UNIX, AF_INET, AF_INET6 }, .n_values = 3, .err = EPERM, .notify = 1,
          .reason = "network off in a network namespace of the command's own (only loopback): unix and IP "
                    "sockets, which reach nothing but that loopback (no netlink, packet, vsock, ...)" },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = PROXY, .kind = NS_NOT_IN, .arg = 0, .mask = 0xffffffff,
          .values = { AF_UNIX, AF_INET, AF_INET6 }, .n_values = 3, .err = EPERM,
          .reason = "network proxy: unix and IP sockets only; no netlink (getaddrinfo does without it), packet, vsock, ..." },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = PROXY, .kind = NS_NOT_IN, .arg = 1, .mask = 0xf,
          .values = { SOCK_STREAM }, .n_values = 1, .pre = 1, .pre_arg = 0, .pre_value = AF_INET, .err = EPERM,
          .reason = "network proxy: IPv4 is stream only: no UDP (names are resolved by the proxy), no raw sockets" },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = PROXY, .kind = NS_NOT_IN, .arg = 1, .mask = 0xf,
          .values = { SOCK_STREAM }, .n_values = 1, .pre = 1, .pre_arg = 0, .pre_value = AF_INET6, .err = EPERM,
          .reason = "network proxy: IPv6 is stream only, likewise" },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = PROXY, .kind = NS_NOT_IN, .arg = 2, .mask = 0xffffffff,
          .values = { 0, IPPROTO_TCP }, .n_values = 2, .pre = 1, .pre_arg = 0, .pre_value = AF_INET, .err = EPERM,
          .reason = WHY_SCTP },
        { .group = NS_G_NETWORK, .syscall = "socket", .modes = PROXY, .kind = NS_NOT_IN, .arg = 2, .mask = 0xffffffff,
          .values = { 0, IPPROTO_TCP }, .n_values = 2, .pre = 1, .pre_arg = 0, .pre_value = AF_INET6, .err = EPERM,
          .reason = WHY_SCTP },
        { .group = NS_G_NETWORK, .syscall = "sendto", .modes = PROXY, .kind = NS_ANY_BIT, .arg = 3,
          .mask = MSG_FASTOPEN, .err = EPERM, .reason = WHY_TFO },
        { .group = NS_G_NETWORK, .syscall = "sendmsg", .modes = PROXY, .kind = NS_ANY_BIT, .arg = 2,
          .mask = MSG_FASTOPEN, .err = EPERM, .reason = WHY_TFO },
        { .group = NS_G_NETWORK, .syscall = "sendmmsg", .modes = PROXY, .kind = NS_ANY_BIT, .arg = 3,
          .mask = MSG_FASTOPEN, .err = EPERM, .reason = WHY_TFO },
};
const size_t ns_table_len = sizeof(ns_table) / sizeof(ns_table[0]);

const char *const ns_group_names[NS_G_MAX] = {
        [NS_G_NETWORK] = "network",
        [NS_G_PTRACE] = "ptrace",
        [NS_G_PROCESS_VM] = "process_vm",
        [NS_G_IO_URING] = "io_uring",
        [NS_G_TTY_INJECT] = "tty_inject",
        [NS_G_KEYRING] = "keyring",
        [NS_G_BPF] = "bpf",
        [NS_G_PERF] = "perf",
        [NS_G_USERFAULTFD] = "userfaultfd",
        [NS_G_NAMESPACES] = "namespaces",
        [NS_G_MOUNT] = "mount",
        [NS_G_KEXEC] = "kexec",
        [NS_G_KERNEL_MODULES] = "kernel_modules",
        [NS_G_PERSONALITY] = "personality",
        [NS_G_OPEN_BY_HANDLE] = "open_by_handle",
        [NS_G_IPC] = "ipc",
};

int ns_parse_allow(const char *const *names, uint32_t *ret_groups, const char **ret_bad)
{
        uint32_t m = 0;

        for (size_t i = 0; names && names[i]; i++) {
                int found = 0;
                /* Group 0 (network) is not allowable: the network setting says. */
                for (int g = 1; g < NS_G_MAX && !found; g++)
                        if (strcmp(names[i], ns_group_names[g]) == 0) {
                                m |= 1u << g;
                                found = 1;
                        }
                if (!found) {
                        *ret_bad = names[i];
                        return -EINVAL;
                }
        }
        *ret_groups = m;
        return 0;
}
