/* SPDX-License-Identifier: MIT */
/*
 * shm-helper: POSIX semaphores and shared memory as programs use them, for
 * fs_guard_shm.sh (host_shm).
 *
 *   shm-helper sem NAME        sem_open(O_CREAT|O_EXCL), a forked child posts, we wait, sem_unlink
 *   shm-helper shm NAME        shm_open(O_CREAT|O_EXCL), mmap, a forked child writes, we read;
 *                              opened again by name (O_RDWR), then shm_unlink
 *   shm-helper keep NAME       shm_open(O_CREAT|O_EXCL) and exit, the name left behind
 *   shm-helper exchange A B    renameat2(A, B, RENAME_EXCHANGE)
 *
 * Prints "OP: ok" or "OP: STEP: ERROR" and exits 0, or the errno of the
 * step that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int fail(const char *op, const char *step)
{
        int e = errno ? errno : EIO;

        printf("%s: %s: %s\n", op, step, strerror(e));
        return e;
}

static int child_status(pid_t pid)
{
        int ws;

        if (waitpid(pid, &ws, 0) < 0)
                return -1;
        return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
}

static int sem(const char *name)
{
        sem_t *s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
        pid_t pid;

        if (s == SEM_FAILED)
                return fail("sem", "sem_open");
        pid = fork();
        if (pid < 0)
                return fail("sem", "fork");
        if (pid == 0)
                _exit(sem_post(s) == 0 ? 0 : 1);
        if (sem_wait(s) < 0)
                return fail("sem", "sem_wait");
        if (child_status(pid) != 0)
                return fail("sem", "the child's sem_post");
        if (sem_close(s) < 0)
                return fail("sem", "sem_close");
        if (sem_unlink(name) < 0)
                return fail("sem", "sem_unlink");
        printf("sem: ok\n");
        return 0;
}

static int shm(const char *name)
{
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600), again;
        char *p;
        pid_t pid;

        if (fd < 0)
                return fail("shm", "shm_open");
        if (ftruncate(fd, 4096) < 0)
                return fail("shm", "ftruncate");
        p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
                return fail("shm", "mmap");
        pid = fork();
        if (pid < 0)
                return fail("shm", "fork");
        if (pid == 0) {
                strcpy(p, "from the child");
                _exit(0);
        }
        if (child_status(pid) != 0 || strcmp(p, "from the child") != 0) {
                errno = EIO;
                return fail("shm", "reading what the child wrote");
        }
        again = shm_open(name, O_RDWR, 0);
        if (again < 0)
                return fail("shm", "shm_open of the existing name");
        if (pread(again, p + 100, 14, 0) != 14 || memcmp(p + 100, "from the child", 14) != 0) {
                errno = errno ? errno : EIO;
                return fail("shm", "reading it through the second fd");
        }
        if (shm_unlink(name) < 0)
                return fail("shm", "shm_unlink");
        printf("shm: ok\n");
        return 0;
}

static int keep(const char *name)
{
        if (shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600) < 0)
                return fail("keep", "shm_open");
        printf("keep: ok\n");
        return 0;
}

static int exchange(const char *a, const char *b)
{
        if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0)
                return fail("exchange", "renameat2");
        printf("exchange: ok\n");
        return 0;
}

int main(int argc, char **argv)
{
        setvbuf(stdout, NULL, _IONBF, 0);
        if (argc == 3 && strcmp(argv[1], "sem") == 0)
                return sem(argv[2]);
        if (argc == 3 && strcmp(argv[1], "shm") == 0)
                return shm(argv[2]);
        if (argc == 3 && strcmp(argv[1], "keep") == 0)
                return keep(argv[2]);
        if (argc == 4 && strcmp(argv[1], "exchange") == 0)
                return exchange(argv[2], argv[3]);
        fprintf(stderr, "usage: shm-helper sem|shm|keep NAME | exchange A B\n");
        return 2;
}
