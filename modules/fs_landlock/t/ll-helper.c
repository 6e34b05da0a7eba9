/* SPDX-License-Identifier: MIT */
/*
 * ll-helper: attempts what fs_landlock must refuse, for the shell tests.
 *
 *   ll-helper tcp-listen                 listen on 127.0.0.1:0, print the port, accept until killed
 *   ll-helper tcp-connect ADDR PORT      IPv4 connect
 *   ll-helper tcp-bind PORT              bind 127.0.0.1:PORT
 *   ll-helper abstract-listen NAME       listen on the abstract unix socket @NAME
 *   ll-helper abstract-connect NAME
 *   ll-helper kill PID [SIG]             default signal 0 (permission check only)
 *   ll-helper ptrace PID                 PTRACE_ATTACH (detaches again if it worked)
 *   ll-helper uring-openat PATH          io_uring IORING_OP_OPENAT(O_WRONLY|O_CREAT)
 *
 * Prints "OP: ok", "OP: denied (ERRNO)" or "OP: error (ERRNO)" and exits
 * 0 (ok), 1 (denied: EACCES or EPERM), 2 (other error) or 77 (cannot test
 * here: the kernel lacks the feature).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

static int report(const char *op, int r, int err)
{
        if (r >= 0) {
                printf("%s: ok\n", op);
                return 0;
        }
        if (err == EACCES || err == EPERM) {
                printf("%s: denied (%s)\n", op, strerrorname_np(err));
                return 1;
        }
        printf("%s: error (%s)\n", op, strerrorname_np(err));
        return err == ENOSYS || err == EOPNOTSUPP ? 77 : 2;
}

static int tcp_listen(void)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0 ||
            getsockname(fd, (struct sockaddr *)&a, &len) < 0)
                return report("tcp-listen", -1, errno);
        printf("%d\n", ntohs(a.sin_port));
        fflush(stdout);
        alarm(120);  /* never outlive a test run */
        for (;;) {
                int c = accept(fd, NULL, NULL);
                if (c >= 0)
                        close(c);
        }
}

static int tcp_connect(const char *addr, const char *port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return report("tcp-connect(socket)", -1, errno);
        if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
                return report("tcp-connect", -1, EINVAL);
        int r = connect(fd, (struct sockaddr *)&a, sizeof(a));
        return report("tcp-connect", r, errno);
}

static int tcp_bind(const char *port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return report("tcp-bind(socket)", -1, errno);
        int r = bind(fd, (struct sockaddr *)&a, sizeof(a));
        return report("tcp-bind", r, errno);
}

static socklen_t abstract_addr(struct sockaddr_un *u, const char *name)
{
        size_t n = strnlen(name, sizeof(u->sun_path) - 2);

        memset(u, 0, sizeof(*u));
        u->sun_family = AF_UNIX;
        memcpy(u->sun_path + 1, name, n);  /* sun_path[0] == 0: abstract */
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int abstract_listen(const char *name)
{
        struct sockaddr_un u;
        socklen_t len = abstract_addr(&u, name);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0 || bind(fd, (struct sockaddr *)&u, len) < 0 || listen(fd, 16) < 0)
                return report("abstract-listen", -1, errno);
        printf("ready\n");
        fflush(stdout);
        alarm(120);
        for (;;) {
                int c = accept(fd, NULL, NULL);
                if (c >= 0)
                        close(c);
        }
}

static int abstract_connect(const char *name)
{
        struct sockaddr_un u;
        socklen_t len = abstract_addr(&u, name);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return report("abstract-connect(socket)", -1, errno);
        int r = connect(fd, (struct sockaddr *)&u, len);
        return report("abstract-connect", r, errno);
}

static int do_ptrace(pid_t pid)
{
        long r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
        int err = errno;

        if (r == 0) {
                (void)waitpid(pid, NULL, __WALL);            /* the attach stop */
                (void)ptrace(PTRACE_DETACH, pid, NULL, NULL); /* leave the target as we found it */
        }
        return report("ptrace", r == 0 ? 0 : -1, err);
}

/* One IORING_OP_OPENAT through a raw ring: io_uring requests run with the
 * ring creator's credentials, so Landlock (an LSM) still sees the open. */
static int uring_openat(const char *path)
{
        struct io_uring_params p = { 0 };
        int fd = (int)syscall(SYS_io_uring_setup, 1, &p);

        if (fd < 0)
                return report("uring-openat(setup)", -1, errno);
        size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        size_t ring_sz = sq_sz > cq_sz ? sq_sz : cq_sz;  /* IORING_FEAT_SINGLE_MMAP */
        char *ring = mmap(NULL, ring_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
        struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);

        if (ring == MAP_FAILED || sqes == MAP_FAILED)
                return report("uring-openat(mmap)", -1, errno);
        memset(&sqes[0], 0, sizeof(sqes[0]));
        sqes[0].opcode = IORING_OP_OPENAT;
        sqes[0].fd = AT_FDCWD;
        sqes[0].addr = (unsigned long)path;
        sqes[0].open_flags = O_WRONLY | O_CREAT | O_CLOEXEC;
        sqes[0].len = 0600;
        ((unsigned *)(ring + p.sq_off.array))[0] = 0;
        __atomic_store_n((unsigned *)(ring + p.sq_off.tail), 1, __ATOMIC_RELEASE);
        if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
                return report("uring-openat(enter)", -1, errno);
        struct io_uring_cqe *cqe = (struct io_uring_cqe *)(ring + p.cq_off.cqes);
        return report("uring-openat", cqe->res < 0 ? -1 : 0, -cqe->res);
}

int main(int argc, char **argv)
{
        const char *op = argc > 1 ? argv[1] : "";

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (!strcmp(op, "tcp-listen"))
                return tcp_listen();
        if (!strcmp(op, "tcp-connect") && argc == 4)
                return tcp_connect(argv[2], argv[3]);
        if (!strcmp(op, "tcp-bind") && argc == 3)
                return tcp_bind(argv[2]);
        if (!strcmp(op, "abstract-listen") && argc == 3)
                return abstract_listen(argv[2]);
        if (!strcmp(op, "abstract-connect") && argc == 3)
                return abstract_connect(argv[2]);
        if (!strcmp(op, "kill") && argc >= 3) {
                int r = kill((pid_t)atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
                return report("kill", r, errno);  /* errno read after the call (sequence point) */
        }
        if (!strcmp(op, "ptrace") && argc == 3)
                return do_ptrace((pid_t)atoi(argv[2]));
        if (!strcmp(op, "uring-openat") && argc == 3)
                return uring_openat(argv[2]);
        fprintf(stderr, "usage: ll-helper tcp-listen | tcp-connect ADDR PORT | tcp-bind PORT | abstract-listen NAME |\n"
                        "       abstract-connect NAME | kill PID [SIG] | ptrace PID | uring-openat PATH\n");
        return 64;
}
