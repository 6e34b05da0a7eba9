/* SPDX-License-Identifier: MIT */
/*
 * ll_enforce on the real kernel, in a forked child (Landlock restricts the
 * calling thread for good): plan a temp tree, enforce, try what must fail
 * and what must work.  Skipped where Landlock is below ABI 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs_landlock_internal.h"
#include "unit.h"

static char root[64]; /* "/tmp/stk-ll-enf.XXXXXX" */

static void quiet_log(void *ud, enum stk_log_level level, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static const char *p(const char *rel)
{
        static char bufs[8][256];
        static int i;
        char *b = bufs[i++ % 8];

        snprintf(b, 256, "%s/%s", root, rel);
        return b;
}

static int try_create(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

/* Child: each failed expectation sets one bit of the exit status. */
static int child(void)
{
        struct ll_point pts[] = { { p("ws"), LL_RW }, { p("ws/.git"), LL_READ }, { p("secret"), LL_HIDE } };
        struct ll_rules rules = { 0 };
        struct ll_enforce e = { .abi = ll_kernel_abi(), .rules = &rules, .net.handle = 1,
                                .scopes = ~0ULL, .log = quiet_log };
        int bad = 0;

        if (ll_plan("/", LL_READ, pts, 3, ll_list_dir, NULL, &rules) < 0 || ll_enforce(&e) < 0)
                return 100;
        bad |= try_create(p("ws/sub/new")) != 0 ? 1 : 0;
        bad |= try_create(p("outside")) != -EACCES ? 2 : 0;
        bad |= try_create(p("ws/.git/hooks/pre-commit")) != -EACCES ? 4 : 0;
        bad |= open(p("secret/key"), O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES ? 8 : 0;
        bad |= open(p("ws/.git/config"), O_RDONLY | O_CLOEXEC) < 0 ? 16 : 0;
        bad |= rename(p("ws/sub/new"), p("moved")) == 0 || errno != EACCES ? 32 : 0;
        bad |= truncate(p("ws/.git/config"), 0) == 0 ? 64 : 0;
        return bad;
}

static void test_enforce_real_kernel(void)
{
        int st;
        pid_t pid;

        if (ll_kernel_abi() < 3) {
                fprintf(stderr, "skipped: Landlock ABI < 3 here");
                return;
        }
        snprintf(root, sizeof(root), "/tmp/stk-ll-enf.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        CU_ASSERT(mkdir(p("ws"), 0755) == 0 && mkdir(p("ws/sub"), 0755) == 0 && mkdir(p("ws/.git"), 0755) == 0 &&
                  mkdir(p("ws/.git/hooks"), 0755) == 0 && mkdir(p("secret"), 0700) == 0);
        CU_ASSERT(try_create(p("ws/.git/config")) == 0 && try_create(p("secret/key")) == 0);
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0)
                _exit(child());
        CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
        CU_ASSERT(WIFEXITED(st));
        if (WEXITSTATUS(st) != 0)
                fprintf(stderr, "\n  child failures: 0x%x", WEXITSTATUS(st));
        CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
        (void)unlink(p("ws/sub/new")); /* cleanup: failures only leave a temp dir */
        (void)unlink(p("ws/.git/config"));
        (void)unlink(p("secret/key"));
        (void)rmdir(p("ws/.git/hooks"));
        (void)rmdir(p("ws/.git"));
        (void)rmdir(p("ws/sub"));
        (void)rmdir(p("ws"));
        (void)rmdir(p("secret"));
        CU_ASSERT(rmdir(root) == 0);
}

UNIT_SUITE(fs_landlock_enforce, UNIT_TEST(test_enforce_real_kernel))
