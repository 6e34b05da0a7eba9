/* SPDX-License-Identifier: MIT */
/*
 * The one-listener merge of seccomp programs (core/os/seccomp_linux.c,
 * ABI 1.5 host->seccomp_notify): the merged filter must give every call
 * the action the kernel gives when the same programs are loaded one after
 * the other.  Checked differentially: each case runs a set of syscalls in
 * a child under the programs loaded separately and in another child under
 * the merged program, and compares the errno (or the fatal signal) of each.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "os/os.h"
#include "unit.h"

#if defined(__linux__) && !defined(STK_PORTABLE)

#define NR_OFF offsetof(struct seccomp_data, nr)
/* "nr == N ? RET(action) : next": two instructions */
#define ON(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static const long probes[] = { SYS_getppid, SYS_getuid, SYS_getgid, SYS_geteuid, SYS_getegid };
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

/* In a child: load each program (one filter each, or merged as one), run
 * the probes, write each result (errno, or 0) down the pipe. */
static void child(const struct os_bpf *progs, size_t n, bool merged, int fd)
{
        int res[N_PROBES];

        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0)
                _exit(100);
        if (merged) {
                void *insns;
                size_t len;
                if (os_seccomp_merge(progs, n, &insns, &len) < 0)
                        _exit(101);
                struct sock_fprog p = { .len = (unsigned short) len, .filter = insns };
                if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) < 0)
                        _exit(102);
        } else
                for (size_t i = 0; i < n; i++) {
                        struct sock_fprog p = { .len = (unsigned short) progs[i].n, .filter = (void *) progs[i].insns };
                        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) < 0)
                                _exit(103);
                }
        for (size_t i = 0; i < N_PROBES; i++) {
                errno = 0;
                res[i] = syscall(probes[i]) < 0 ? errno : 0;
                if (write(fd, &res[i], sizeof(res[i])) != sizeof(res[i]))
                        _exit(104);
        }
        _exit(0);
}

/* The results of one way, in out[]; -1 past a fatal signal; the wait status. */
static int run_way(const struct os_bpf *progs, size_t n, bool merged, int out[N_PROBES])
{
        int p[2], status = 0;
        pid_t pid;
        size_t got = 0;

        for (size_t i = 0; i < N_PROBES; i++)
                out[i] = -1;
        if (pipe(p) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                close(p[0]);
                child(progs, n, merged, p[1]);
        }
        close(p[1]);
        while (got < N_PROBES && read(p[0], &out[got], sizeof(out[0])) == sizeof(out[0]))
                got++;
        close(p[0]);
        waitpid(pid, &status, 0);
        return status;
}

static void same_as_separate(const struct os_bpf *progs, size_t n)
{
        int a[N_PROBES], b[N_PROBES];
        int sa = run_way(progs, n, false, a), sb = run_way(progs, n, true, b);

        CU_ASSERT_EQUAL(sa, sb);
        for (size_t i = 0; i < N_PROBES; i++) {
                CU_ASSERT_EQUAL(a[i], b[i]);
                if (a[i] != b[i])
                        fprintf(stderr, "probe %zu: separate %d, merged %d\n", i, a[i], b[i]);
        }
}

#define P(arr) { arr, sizeof(arr) / sizeof(arr[0]), 0 }

static void test_errno_ties_go_to_the_later(void)
{
        static const struct sock_filter p1[] = { LOAD_NR, ON(SYS_getppid, SECCOMP_RET_ERRNO | 11), ALLOW };
        static const struct sock_filter p2[] = { LOAD_NR, ON(SYS_getppid, SECCOMP_RET_ERRNO | 22),
                                                 ON(SYS_getuid, SECCOMP_RET_ERRNO | 33), ALLOW };
        const struct os_bpf progs[] = { P(p1), P(p2) };
        int b[N_PROBES];

        same_as_separate(progs, 2);
        (void) run_way(progs, 2, true, b);
        CU_ASSERT_EQUAL(b[0], 22); /* both errno: the later program's */
        CU_ASSERT_EQUAL(b[1], 33); /* errno over allow */
        CU_ASSERT_EQUAL(b[2], 0);
}

static void test_precedence_across_actions(void)
{
        /* trap > errno > trace/log > allow; kill_process above all */
        static const struct sock_filter p1[] = { LOAD_NR, ON(SYS_getgid, SECCOMP_RET_ERRNO | 5),
                                                 ON(SYS_geteuid, SECCOMP_RET_LOG), ALLOW };
        static const struct sock_filter p2[] = { LOAD_NR, ON(SYS_getgid, SECCOMP_RET_LOG),
                                                 ON(SYS_geteuid, SECCOMP_RET_ERRNO | 6),
                                                 ON(SYS_getegid, SECCOMP_RET_KILL_PROCESS), ALLOW };
        static const struct sock_filter p3[] = { LOAD_NR, ON(SYS_getegid, SECCOMP_RET_ERRNO | 7), ALLOW };
        const struct os_bpf progs[] = { P(p1), P(p2), P(p3) };
        int b[N_PROBES];
        int st = run_way(progs, 3, true, b);

        same_as_separate(progs, 3);
        CU_ASSERT_EQUAL(b[2], 5);
        CU_ASSERT_EQUAL(b[3], 6);
        CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS); /* getegid: killed, whatever p3 said */
}

static void test_ret_a_and_arch(void)
{
        /* RET A (the value computed in A), and an arch check that kills on a mismatch */
        static const struct sock_filter p1[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
                LOAD_NR,
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getuid, 0, 2),
                BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_ERRNO | 9),
                BPF_STMT(BPF_RET | BPF_A, 0),
                ALLOW,
        };
        static const struct sock_filter p2[] = { LOAD_NR, ON(SYS_getppid, SECCOMP_RET_ERRNO | 3), ALLOW };
        const struct os_bpf progs[] = { P(p1), P(p2) };

#if defined(__x86_64__)
        same_as_separate(progs, 2);
#else
        (void) progs;
#endif
}

static void test_refused_programs(void)
{
        static const struct sock_filter scratch[] = { BPF_STMT(BPF_ST, 0), ALLOW };
        static const struct sock_filter no_ret[] = { LOAD_NR };
        static const struct sock_filter ok[] = { ALLOW };
        const struct os_bpf a[] = { P(scratch), P(ok) }, b[] = { P(ok), P(no_ret) };
        void *insns = NULL;
        size_t n = 0;

        CU_ASSERT_EQUAL(os_seccomp_merge(a, 2, &insns, &n), -EINVAL); /* the merge needs the scratch words */
        CU_ASSERT_EQUAL(os_seccomp_merge(b, 2, &insns, &n), -EINVAL); /* a program must end in RET */
        CU_ASSERT_EQUAL(os_seccomp_merge(a, 0, &insns, &n), -EINVAL);
}

UNIT_SUITE(seccomp_merge, UNIT_TEST(test_errno_ties_go_to_the_later), UNIT_TEST(test_precedence_across_actions),
           UNIT_TEST(test_ret_a_and_arch), UNIT_TEST(test_refused_programs))
#endif
