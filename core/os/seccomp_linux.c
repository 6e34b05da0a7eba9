/* SPDX-License-Identifier: MIT */
/*
 * One seccomp listener for every in-sandbox line (ABI 1.5,
 * host->seccomp_notify).  The kernel gives a process one listener at most
 * (kernel/seccomp.c, has_duplicate_listener: a second filter with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER is EBUSY), and a SECCOMP_RET_USER_NOTIF
 * goes to the listener of the filter that returned it (ENOSYS without one).
 * So two modules that each send calls to the supervisor (net_seccomp's
 * connect, fs_guard's file calls) cannot each load a filter of their own:
 * their programs become one here.
 *
 * Loaded one after the other, filters P1..Pk all run and the kernel takes
 * the action first by precedence (ACTION_ONLY, signed), the newest filter's
 * on a tie.  The merged program runs each Pi in turn, every RET of Pi
 * turned into a jump to a stub that keeps the value in scratch word M[i]
 * and goes on to P(i+1); after Pk a tail picks the same winner.  Each RET
 * is replaced by one jump, so the program's own relative jumps still land
 * where they did.  Programs that use scratch memory themselves (libseccomp's
 * do not) are refused.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "os.h"

#define M_BEST_KEY 14   /* scratch words of the tail */
#define M_BEST 15
#define MAX_PROGS 14    /* M[0..13]: one word a program */

static bool uses_scratch(const struct sock_filter *f)
{
        uint16_t c = f->code;

        return BPF_CLASS(c) == BPF_ST || BPF_CLASS(c) == BPF_STX ||
               ((BPF_CLASS(c) == BPF_LD || BPF_CLASS(c) == BPF_LDX) && BPF_MODE(c) == BPF_MEM);
}

struct out {
        struct sock_filter *f;
        size_t n, cap;
};

static int emit(struct out *o, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
        if (o->n >= BPF_MAXINSNS)
                return -E2BIG;
        if (o->n == o->cap) {
                size_t cap = o->cap ? o->cap * 2 : 256;
                struct sock_filter *nf = realloc(o->f, cap * sizeof(*nf));
                if (!nf)
                        return -ENOMEM;
                o->f = nf;
                o->cap = cap;
        }
        o->f[o->n++] = (struct sock_filter) { code, jt, jf, k };
        return 0;
}

/* Program `i` at the end of `o`, its RETs jumping to stubs that store the
 * value in M[i] and jump on to what follows them. */
static int emit_program(struct out *o, const struct sock_filter *p, size_t len, unsigned i)
{
        size_t start = o->n, n_ret = 0, stub;
        int r = 0;

        for (size_t j = 0; j < len; j++) {
                if (uses_scratch(&p[j]))
                        return -EINVAL;
                n_ret += BPF_CLASS(p[j].code) == BPF_RET;
        }
        if (len == 0 || BPF_CLASS(p[len - 1].code) != BPF_RET)
                return -EINVAL;
        for (size_t j = 0; r >= 0 && j < len; j++)
                r = emit(o, p[j].code, p[j].jt, p[j].jf, p[j].k);
        /* Stubs, 3 instructions each: the value into A (RET A: A as it
         * is), A into M[i], on to what follows the stubs. */
        stub = o->n;
        for (size_t j = 0, s = 0; r >= 0 && j < len; j++) {
                const struct sock_filter *f = &p[j];
                size_t next = stub + 3 * n_ret, here;

                if (BPF_CLASS(f->code) != BPF_RET)
                        continue;
                here = stub + 3 * s++;
                o->f[start + j] = (struct sock_filter) BPF_STMT(BPF_JMP | BPF_JA, (uint32_t) (here - (start + j) - 1));
                r = BPF_RVAL(f->code) == BPF_A ? emit(o, BPF_ALU | BPF_OR | BPF_K, 0, 0, 0)
                                               : emit(o, BPF_LD | BPF_IMM, 0, 0, f->k);
                if (r >= 0)
                        r = emit(o, BPF_ST, 0, 0, i);
                if (r >= 0)
                        r = emit(o, BPF_JMP | BPF_JA, 0, 0, (uint32_t) (next - o->n - 1));
        }
        return r;
}

/* The tail: M[BEST] = the winner of M[0..k-1] (signed ACTION_ONLY order, a
 * tie to the later), returned. */
static int emit_tail(struct out *o, size_t k)
{
        const uint32_t act = SECCOMP_RET_ACTION_FULL, sign = 0x80000000u;
        int r = 0;

#define E(code, jt, jf, kk) do { if (r >= 0) r = emit(o, (code), (jt), (jf), (kk)); } while (0)
        E(BPF_LD | BPF_MEM, 0, 0, 0);
        E(BPF_ST, 0, 0, M_BEST);
        E(BPF_ALU | BPF_AND | BPF_K, 0, 0, act);
        E(BPF_ALU | BPF_XOR | BPF_K, 0, 0, sign);
        E(BPF_ST, 0, 0, M_BEST_KEY);
        for (size_t i = 1; i < k; i++) {
                E(BPF_LDX | BPF_MEM, 0, 0, M_BEST_KEY);
                E(BPF_LD | BPF_MEM, 0, 0, (uint32_t) i);
                E(BPF_ALU | BPF_AND | BPF_K, 0, 0, act);
                E(BPF_ALU | BPF_XOR | BPF_K, 0, 0, sign);
                E(BPF_JMP | BPF_JGT | BPF_X, 3, 0, 0);   /* weaker than the best so far: keep it */
                E(BPF_ST, 0, 0, M_BEST_KEY);
                E(BPF_LD | BPF_MEM, 0, 0, (uint32_t) i);
                E(BPF_ST, 0, 0, M_BEST);
        }
        E(BPF_LD | BPF_MEM, 0, 0, M_BEST);
        E(BPF_RET | BPF_A, 0, 0, 0);
#undef E
        return r;
}

int os_seccomp_merge(const struct os_bpf *progs, size_t n, void **ret_insns, size_t *ret_n)
{
        struct out o = { 0 };
        int r = 0;

        if (n == 0 || n > MAX_PROGS)
                return -EINVAL;
        if (n == 1) {
                /* Nothing to merge: the program as it is. */
                for (size_t i = 0; r >= 0 && i < progs[0].n; i++) {
                        const struct sock_filter *f = (const struct sock_filter *) progs[0].insns + i;
                        r = emit(&o, f->code, f->jt, f->jf, f->k);
                }
        } else {
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = emit_program(&o, progs[i].insns, progs[i].n, (unsigned) i);
                if (r >= 0)
                        r = emit_tail(&o, n);
        }
        if (r < 0) {
                free(o.f);
                return r;
        }
        *ret_insns = o.f;
        *ret_n = o.n;
        return 0;
}

int os_seccomp_load_merged(const struct os_bpf *progs, size_t n)
{
        struct sock_fprog prog;
        unsigned flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
        void *insns = NULL;
        size_t len = 0;
        long fd;
        int r;

        for (size_t i = 0; i < n; i++)
                flags |= progs[i].flags & ~(unsigned) SECCOMP_FILTER_FLAG_TSYNC;
        r = os_seccomp_merge(progs, n, &insns, &len);
        if (r < 0)
                return r;
        prog = (struct sock_fprog) { .len = (unsigned short) len, .filter = insns };
        /* seccomp(2) needs no_new_privs (or CAP_SYS_ADMIN, not relied on). */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0 || prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) != 1) {
                free(insns);
                return -EPERM;
        }
        fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
        r = fd < 0 ? -errno : (int) fd;
        free(insns);
        return r;
}

int os_notify_sizes(size_t *ret_req, size_t *ret_resp)
{
        struct seccomp_notif_sizes sz = { 0 };

        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
                return -errno;
        /* Never less than the structs this file was built with. */
        *ret_req = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif : sizeof(struct seccomp_notif);
        *ret_resp = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sz.seccomp_notif_resp
                                                                               : sizeof(struct seccomp_notif_resp);
        return 0;
}

int os_notify_recv(int listener, void *req, size_t req_size)
{
        struct pollfd pfd = { .fd = listener, .events = POLLIN };

        /* RECV blocks until a call arrives, and none will once every
         * filtered process is gone (POLLHUP): look before receiving. */
        if (poll(&pfd, 1, 0) < 0)
                return errno == EINTR ? 0 : -errno;
        if (!(pfd.revents & POLLIN))
                return pfd.revents & (POLLHUP | POLLERR) ? -ESHUTDOWN : 0;
        memset(req, 0, req_size);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
                return errno == ENOENT || errno == EINTR ? 0 : -errno; /* ENOENT: the caller died first */
        return 1;
}

int os_notify_send(int listener, void *resp)
{
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

/* Linux 6.6: the supervisor woken where the command stopped (a round trip
 * of guard_top's, on every file made, is otherwise mostly cross-CPU
 * wake-ups); older kernels say EINVAL: only slower. */
void os_notify_sync_wake(int listener)
{
        (void) ioctl(listener, _IOW('!', 4, __u64), 1UL); /* SECCOMP_IOCTL_NOTIF_SET_FLAGS, SYNC_WAKE_UP */
}
