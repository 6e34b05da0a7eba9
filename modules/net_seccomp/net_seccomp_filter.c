/* SPDX-License-Identifier: MIT */
/*
 * ns_table -> a libseccomp filter (not loaded: the unit tests build and
 * export it without confining themselves).
 *
 * libseccomp refuses two comparisons on one argument in a rule (EINVAL), so
 * "not one of these values" becomes one rule per forbidden value below the
 * largest allowed one, plus "greater than it".  Rules of one syscall are
 * ORed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "net_seccomp_internal.h"

#define LOW32 0xffffffffULL

struct build {
        scmp_filter_ctx f;
        const struct ns_entry *e;
        int nr;
        ns_log_fn log;
        void *userdata;
        bool notify;            /* a listener exists: notify entries may use it */
};

/* One rule: the entry's optional pre-condition plus `cmp`.  A `notify`
 * entry goes to the supervisor when there is one (guard_unix), which
 * answers with the same errno and tells the user why once. */
static int add(struct build *b, const struct scmp_arg_cmp *cmp)
{
        uint32_t action = b->e->notify && b->notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO((uint32_t)b->e->err);
        struct scmp_arg_cmp c[2];
        unsigned n = 0;
        int r;

        if (b->e->pre)
                c[n++] = SCMP_CMP64(b->e->pre_arg, SCMP_CMP_MASKED_EQ, LOW32, b->e->pre_value);
        if (cmp)
                c[n++] = *cmp;
        r = seccomp_rule_add_array(b->f, action, b->nr, n, c);
        if (r < 0)
                b->log(b->userdata, "seccomp_rule_add(%s, arg%u): %s", b->e->syscall, cmp ? cmp->arg : 0,
                       strerror(-r));
        return r;
}

static int add_masked(struct build *b, uint64_t mask, uint64_t value)
{
        struct scmp_arg_cmp c = SCMP_CMP64(b->e->arg, SCMP_CMP_MASKED_EQ, mask, value);

        return add(b, &c);
}

static int is_listed(const struct ns_entry *e, uint64_t v)
{
        for (unsigned i = 0; i < e->n_values; i++)
                if (e->values[i] == v)
                        return 1;
        return 0;
}

static int add_not_in(struct build *b)
{
        const struct ns_entry *e = b->e;
        uint64_t max = 0;
        int r = 0;

        if (e->mask <= 0xff) {  /* a small field (socket type): every other value */
                for (uint64_t v = 0; v <= e->mask && r >= 0; v++)
                        if ((v & ~e->mask) == 0 && !is_listed(e, v))
                                r = add_masked(b, e->mask, v);
                return r;
        }
        for (unsigned i = 0; i < e->n_values; i++)
                max = e->values[i] > max ? e->values[i] : max;
        for (uint64_t v = 0; v < max && r >= 0; v++)
                if (!is_listed(e, v))
                        r = add_masked(b, e->mask, v);
        if (r >= 0) {
                /* On the whole register: set upper bits also land here. */
                struct scmp_arg_cmp c = SCMP_CMP64(e->arg, SCMP_CMP_GT, max);
                r = add(b, &c);
        }
        return r;
}

/* personality(2): the low 32 bits are neither all zero nor all one exactly
 * when some bit i is 1 and bit i+1 (mod 32) is 0, which 32 masked
 * comparisons can say; anything above 32 bits is refused as well. */
static int add_persona(struct build *b)
{
        struct scmp_arg_cmp hi = SCMP_CMP64(b->e->arg, SCMP_CMP_GT, LOW32);
        int r = add(b, &hi);

        for (unsigned i = 0; i < 32 && r >= 0; i++) {
                uint64_t bit = 1ULL << i, next = 1ULL << ((i + 1) % 32);
                r = add_masked(b, bit | next, bit);
        }
        return r;
}

static int add_entry(struct build *b)
{
        const struct ns_entry *e = b->e;
        int r = 0;

        b->nr = seccomp_syscall_resolve_name(e->syscall);
        if (b->nr == __NR_SCMP_ERROR) {
                /* Fail closed: a syscall we cannot name we cannot filter. */
                b->log(b->userdata, "libseccomp does not know syscall %s on this architecture", e->syscall);
                return -EOPNOTSUPP;
        }
        switch (e->kind) {
        case NS_ALL:
                return add(b, NULL);
        case NS_ANY_BIT:
                for (unsigned i = 0; i < 64 && r >= 0; i++)
                        if (e->mask & (1ULL << i))
                                r = add_masked(b, 1ULL << i, 1ULL << i);
                return r;
        case NS_EQ32:
                return add_masked(b, LOW32, e->values[0]);
        case NS_NOT_IN:
                return add_not_in(b);
        case NS_PERSONA:
                return add_persona(b);
        }
        return -EINVAL;
}

static int set_attrs(scmp_filter_ctx f, const struct ns_opts *o, ns_log_fn log, void *userdata)
{
        int r;

        /* Every syscall of a foreign ABI (i386 via int 0x80; x32, whose
         * numbers have bit 30 set and which libseccomp routes to the same
         * action for an x86_64 filter) gets EPERM: that ABI is not in the
         * filter, so no rule of ours can miss one of its numbers. */
        r = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
        if (r < 0) {
                log(userdata, "seccomp_attr_set(ACT_BADARCH): %s", strerror(-r));
                return r;
        }
        /* A binary tree over syscall numbers: the socket() rules are many. */
        r = seccomp_attr_set(f, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        if (r < 0) {
                log(userdata, "seccomp_attr_set(CTL_OPTIMIZE, 2): %s", strerror(-r));
                return r;
        }
        if (o->log) {
                r = seccomp_attr_set(f, SCMP_FLTATR_CTL_LOG, 1);
                if (r < 0)
                        log(userdata, "seccomp_attr_set(CTL_LOG): %s (kernel or libseccomp too old)", strerror(-r));
        }
        return r;
}

/* Pathname unix sockets outside the writable roots: a read-only mount does
 * not stop connect(), so the supervisor answers each connect
 * (net_seccomp_unix.c).  With the network off every socket is AF_UNIX;
 * through the proxy TCP connects are checked too (the proxy on loopback is
 * the one destination).
 *
 * A datagram reaches a socket file without connect(): sendto() with an
 * address (refused here on its pointer), and sendmsg()/sendmmsg() with
 * msg_name, which seccomp cannot read (a pointer inside a struct), and
 * which a socketpair's connected peer does not stop either.  So an AF_UNIX
 * socket, by socket() or socketpair(), is a stream or a seqpacket one only
 * (no SOCK_DGRAM, nor SOCK_RAW, which the kernel turns into one): those
 * ignore or refuse msg_name, and their connect() is the one way to a
 * listener.  What this costs is syslog(3) from the command (dropped, as
 * glibc drops it without a log socket). */
static int add_unix_guard(scmp_filter_ctx f, ns_log_fn log, void *userdata)
{
        static const char *const makers[] = { "socket", "socketpair" };
        int r = seccomp_rule_add(f, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);

        if (r >= 0)
                r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0));
        /* unix_create() takes SOCK_STREAM, SOCK_SEQPACKET and SOCK_DGRAM,
         * makes SOCK_RAW a SOCK_DGRAM, and refuses every other type
         * (ESOCKTNOSUPPORT): the two datagram ones are refused here.  Two
         * rules a syscall, not fourteen: every rule is filter code each
         * socket() runs, and compile time on every start. */
        static const unsigned datagram[] = { SOCK_DGRAM, SOCK_RAW };
        for (size_t i = 0; r >= 0 && i < sizeof(makers) / sizeof(makers[0]); i++)
                for (size_t t = 0; r >= 0 && t < sizeof(datagram) / sizeof(datagram[0]); t++)
                        r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), seccomp_syscall_resolve_name(makers[i]), 2,
                                             SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX),
                                             SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, datagram[t]));
        if (r < 0)
                log(userdata, "seccomp_rule_add(unix guard): %s", strerror(-r));
        return r;
}

unsigned ns_mode_of(const struct ns_opts *o)
{
        return o->network == STK_NET_OFF && o->ip_contained ? NS_MODE_OFF_CONTAINED : NS_MODE(o->network);
}

int ns_build(const struct ns_opts *o, scmp_filter_ctx *ret, ns_log_fn log, void *userdata)
{
        bool guarded = o->guard_unix && o->network != STK_NET_ON;
        struct build b = { .f = seccomp_init(SCMP_ACT_ALLOW), .log = log, .userdata = userdata, .notify = guarded };
        unsigned mode = ns_mode_of(o);
        int r;

        if (!b.f)
                return -ENOMEM;
        r = set_attrs(b.f, o, log, userdata);
        if (r >= 0 && guarded)
                r = add_unix_guard(b.f, log, userdata);
        for (size_t i = 0; r >= 0 && i < ns_table_len; i++) {
                b.e = &ns_table[i];
                if (!(b.e->modes & mode))
                        continue;
                if (b.e->group != NS_G_NETWORK && (o->allowed_groups & (1u << b.e->group)))
                        continue;
                if (b.e->group == NS_G_IPC && o->ipc_isolated)
                        continue;
                r = add_entry(&b);
        }
        if (r < 0) {
                seccomp_release(b.f);
                return r;
        }
        *ret = b.f;
        return 0;
}


int ns_compile(const struct ns_opts *o, struct stk_sc_prog *ret, ns_log_fn log, void *userdata)
{
        scmp_filter_ctx f;
        /* What seccomp_load() would pass: SECCOMP_FILTER_FLAG_LOG for
         * `log: true`; no TSYNC (the child has one thread). */
        unsigned flags = (o->log ? SECCOMP_FILTER_FLAG_LOG : 0) |
                         (o->guard_unix && o->network != STK_NET_ON ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
        int r = ns_build(o, &f, log, userdata);

        if (r < 0)
                return r;
        r = stk_sc_compile(f, flags, ret);
        seccomp_release(f);
        if (r < 0)
                log(userdata, "seccomp_export_bpf: %s", strerror(-r));
        return r;
}
