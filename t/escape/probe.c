/* SPDX-License-Identifier: MIT */
/* probe.c - the shared part of the escape probes (see probe.h). */
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

#include "probe.h"

const char probe_marker[] = "ESCAPED-BY-STOCKADE-PROBE\n";

static _Noreturn void report(int code, const char *word, const char *fmt, va_list ap)
{
        char msg[512];

        vsnprintf(msg, sizeof(msg), fmt, ap);
        for (char *p = msg; *p; p++) /* one line, whatever the message holds */
                if (*p == '\n' || *p == '\r')
                        *p = ' ';
        printf("%s %s\n", word, msg);
        fflush(stdout);
        _exit(code);
}

void contained(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        report(PROBE_CONTAINED, "CONTAINED", fmt, ap);
}

void escaped(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        report(PROBE_ESCAPED, "ESCAPED", fmt, ap);
}

void na(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        report(PROBE_NA, "NA", fmt, ap);
}

const char *ename(int err)
{
        static char buf[16];
        const char *n = strerrorname_np(err);

        if (n)
                return n;
        snprintf(buf, sizeof(buf), "errno %d", err);
        return buf;
}

const char *fixture(const char *name)
{
        const char *v = getenv(name);

        if (!v || !*v)
                na("the harness did not set %s (run through t/escape/run)", name);
        return v;
}

long fixture_long(const char *name)
{
        const char *v = fixture(name);
        char *end;
        long n = strtol(v, &end, 10);

        if (*end || n <= 0)
                na("%s=%s is not a positive number", name, v);
        return n;
}

static const char *join(const char *dir, const char *mid, const char *rel)
{
        static char buf[4][PATH_MAX];
        static int i;
        char *b = buf[i++ % 4]; /* a few live results at once */

        snprintf(b, PATH_MAX, "%s%s%s", dir, mid, rel);
        return b;
}

const char *outside(const char *rel)
{
        return join(fixture("ESC_OUT"), "/", rel);
}

const char *scratch(const char *rel)
{
        return join(fixture("ESC_WS"), "/scratch/", rel);
}

void write_or_contained(int fd, const char *what)
{
        ssize_t n = write(fd, probe_marker, sizeof(probe_marker) - 1);

        if (n < 0)
                contained("%s opened, but write: %s", what, ename(errno));
        escaped("wrote %zd bytes through %s", n, what);
}

pid_t victim_pid(void)
{
        long pid = fixture_long("ESC_VICTIM");
        char path[64], buf[512];
        ssize_t n = -1;
        int fd;

        snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
        }
        if (n > 0) {
                buf[n] = '\0';
                size_t a0 = strlen(buf); /* argv[1] follows argv[0]'s NUL */
                if ((size_t) n <= a0 + 1 || strcmp(buf + a0 + 1, "victim") != 0)
                        contained("pid %ld is another process here, not the victim (pid namespace)", pid);
        }
        return (pid_t) pid;
}

unsigned long victim_flag_addr(void)
{
        char path[PATH_MAX];
        unsigned long addr = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/victim.addr", fixture("ESC_STATE"));
        f = fopen(path, "re");
        if (!f)
                na("cannot read the victim's address from %s: %s", path, ename(errno));
        if (fscanf(f, "%lx", &addr) != 1)
                na("%s holds no address", path);
        fclose(f);
        return addr;
}

socklen_t listener_addr(int family, const char *portvar, struct sockaddr_storage *ret)
{
        const char *v = fixture(portvar);
        long port = strtol(v, NULL, 10);

        if (port <= 0 || port > 65535)
                na("the harness has no %s listener on this host", family == AF_INET6 ? "::1" : "127.0.0.1");
        memset(ret, 0, sizeof(*ret));
        if (family == AF_INET6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) ret;
                a->sin6_family = AF_INET6;
                a->sin6_port = htons((uint16_t) port);
                a->sin6_addr = in6addr_loopback;
                return sizeof(*a);
        }
        struct sockaddr_in *a = (struct sockaddr_in *) ret;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t) port);
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return sizeof(*a);
}

int connect_listener(int family, int type, const char *portvar, const char *what)
{
        struct sockaddr_storage sa;
        socklen_t len = listener_addr(family, portvar, &sa);
        struct pollfd pfd;
        int fd, err = 0;
        socklen_t errlen = sizeof(err);

        fd = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                contained("socket(%s): %s", what, ename(errno));
        if (connect(fd, (struct sockaddr *) &sa, len) == 0)
                return fd;
        if (errno != EINPROGRESS)
                contained("connect(%s): %s", what, ename(errno));
        /* a filtered route would hang: 1 s is plenty on loopback */
        pfd = (struct pollfd) { .fd = fd, .events = POLLOUT };
        if (poll(&pfd, 1, 1000) != 1)
                contained("connect(%s): no answer within 1 s", what);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
                err = errno;
        if (err)
                contained("connect(%s): %s", what, ename(err));
        return fd;
}

void await_echo(int fd, int ms, const char *what)
{
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        char buf[64];
        ssize_t n;

        if (send(fd, probe_marker, sizeof(probe_marker) - 1, 0) < 0)
                contained("send(%s): %s", what, ename(errno));
        if (poll(&pfd, 1, ms) != 1)
                contained("sent to %s, but no echo within %d ms (another network namespace?)", what, ms);
        n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0)
                contained("sent to %s, then recv: %s", what, ename(errno));
        escaped("datagram to %s answered by the host listener (%zd bytes)", what, n);
}

/* --- io_uring ----------------------------------------------------------- */

struct ring {
        int fd;
        unsigned *sq_tail, *sq_mask, *sq_array;
        unsigned *cq_head, *cq_tail, *cq_mask;
        struct io_uring_sqe *sqes;
        struct io_uring_cqe *cqes;
};

struct ring *ring_open(void)
{
        struct io_uring_params p = { 0 };
        static struct ring r;
        size_t sq_len, cq_len;
        char *sq, *cq;

        r.fd = (int) syscall(SYS_io_uring_setup, 4, &p);
        if (r.fd < 0)
                return NULL;
        sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        if (p.features & IORING_FEAT_SINGLE_MMAP)
                sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
        sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_SQ_RING);
        cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
             mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_CQ_RING);
        r.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_SQES);
        if (sq == MAP_FAILED || cq == MAP_FAILED || r.sqes == MAP_FAILED)
                return NULL;
        r.sq_tail = (unsigned *) (sq + p.sq_off.tail);
        r.sq_mask = (unsigned *) (sq + p.sq_off.ring_mask);
        r.sq_array = (unsigned *) (sq + p.sq_off.array);
        r.cq_head = (unsigned *) (cq + p.cq_off.head);
        r.cq_tail = (unsigned *) (cq + p.cq_off.tail);
        r.cq_mask = (unsigned *) (cq + p.cq_off.ring_mask);
        r.cqes = (struct io_uring_cqe *) (cq + p.cq_off.cqes);
        return &r;
}

void ring_unavailable(void)
{
        int e = errno, disabled = 0;
        FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "re");

        if (e == ENOSYS)
                na("no io_uring in this kernel");
        if (f && fscanf(f, "%d", &disabled) == 1 && disabled == 2)
                na("io_uring is disabled on this host (kernel.io_uring_disabled=2)");
        contained("io_uring_setup: %s", ename(e));
}

struct io_uring_sqe *ring_sqe(struct ring *r)
{
        unsigned idx = *r->sq_tail & *r->sq_mask;
        struct io_uring_sqe *sqe = &r->sqes[idx];

        memset(sqe, 0, sizeof(*sqe));
        r->sq_array[idx] = idx;
        return sqe;
}

int ring_submit_wait(struct ring *r)
{
        unsigned head;
        int res;

        __atomic_store_n(r->sq_tail, *r->sq_tail + 1, __ATOMIC_RELEASE);
        if (syscall(SYS_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
                return -errno;
        head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
        if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
                return -EAGAIN;
        res = r->cqes[head & *r->cq_mask].res;
        __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
        return res;
}
