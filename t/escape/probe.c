/* SPDX-License-Identifier: MIT */
/* probe.c - the shared part of the escape probes (see probe.h). */
#include <fcntl.h>
#include <limits.h>
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
