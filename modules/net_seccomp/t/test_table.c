/* SPDX-License-Identifier: MIT */
/*
 * net_seccomp: the deny table is sane and documented, `allow:` is
 * validated, every mode compiles, and a compiled filter does in a forked
 * child what the table says.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net_seccomp_internal.h"
#include "unit.h"

static void quiet(void *ud, const char *fmt, ...)
{
}

static void test_table_entries(void)
{
        CU_ASSERT(ns_table_len >= 40);
        for (size_t i = 0; i < ns_table_len; i++) {
                const struct ns_entry *e = &ns_table[i];
                if (seccomp_syscall_resolve_name(e->syscall) == __NR_SCMP_ERROR)
                        fprintf(stderr, "\n  unknown syscall %s", e->syscall);
                CU_ASSERT(seccomp_syscall_resolve_name(e->syscall) != __NR_SCMP_ERROR);
                CU_ASSERT(e->reason && strlen(e->reason) > 10);
                CU_ASSERT(e->group < NS_G_MAX);
                CU_ASSERT(e->err == EPERM || e->err == ENOSYS);
                CU_ASSERT(e->modes != 0 && (e->modes & ~NS_ALL_MODES) == 0);
                CU_ASSERT(e->arg < 6 && (!e->pre || e->pre_arg < 6));
                /* Hardening applies in every mode; network rules never in "on". */
                if (e->group == NS_G_NETWORK)
                        CU_ASSERT_EQUAL(e->modes & NS_MODE(STK_NET_ON), 0);
                if (e->group != NS_G_NETWORK)
                        CU_ASSERT_EQUAL(e->modes, NS_ALL_MODES);
                switch (e->kind) {
                case NS_EQ32: CU_ASSERT_EQUAL(e->n_values, 1); break;
                case NS_NOT_IN: CU_ASSERT(e->n_values >= 1 && e->mask != 0); break;
                case NS_ANY_BIT: CU_ASSERT(e->mask != 0); break;
                default: break;
                }
        }
}

static void test_groups(void)
{
        for (int g = 0; g < NS_G_MAX; g++) {
                size_t n = 0;
                CU_ASSERT_PTR_NOT_NULL_FATAL(ns_group_names[g]);
                for (int h = 0; h < g; h++)
                        CU_ASSERT(strcmp(ns_group_names[g], ns_group_names[h]) != 0);
                for (size_t i = 0; i < ns_table_len; i++)
                        n += ns_table[i].group == (enum ns_group)g;
                CU_ASSERT(n > 0);  /* no group without an entry */
        }
}

/* The man page shows the table: every syscall and group must be in it. */
static void test_man_page_lists_table(void)
{
        char path[512], *text = NULL;
        size_t len = 0;
        FILE *f, *m;

        snprintf(path, sizeof(path), "%.*s/../stockade-net_seccomp.8",
                 (int)(strrchr(__FILE__, '/') - __FILE__), __FILE__);
        f = fopen(path, "re");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        m = open_memstream(&text, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        for (int c; (c = fgetc(f)) != EOF;)
                fputc(c, m);
        fclose(f);
        fclose(m);
        for (size_t i = 0; i < ns_table_len; i++) {
                char needle[64];
                snprintf(needle, sizeof(needle), "B %s", ns_table[i].syscall); /* ".B name" */
                if (!strstr(text, needle))
                        fprintf(stderr, "\n  man page lacks .B %s", ns_table[i].syscall);
                CU_ASSERT_PTR_NOT_NULL(strstr(text, needle));
        }
        for (int g = 1; g < NS_G_MAX; g++)
                CU_ASSERT_PTR_NOT_NULL(strstr(text, ns_group_names[g]));
        free(text);
}

static void test_parse_allow(void)
{
        const char *ok[] = { "ptrace", "namespaces", "personality", NULL };
        const char *bad[] = { "ptrace", "everything", NULL };
        const char *net[] = { "network", NULL };
        const char *none[] = { NULL };
        const char *which = NULL;
        uint32_t g = 0;

        CU_ASSERT_EQUAL(ns_parse_allow(ok, &g, &which), 0);
        CU_ASSERT_EQUAL(g, (1u << NS_G_PTRACE) | (1u << NS_G_NAMESPACES) | (1u << NS_G_PERSONALITY));
        CU_ASSERT_EQUAL(ns_parse_allow(bad, &g, &which), -EINVAL);
        CU_ASSERT_STRING_EQUAL(which, "everything");
        CU_ASSERT_EQUAL(ns_parse_allow(net, &g, &which), -EINVAL); /* the network setting decides */
        CU_ASSERT_EQUAL(ns_parse_allow(none, &g, &which), 0);
        CU_ASSERT_EQUAL(g, 0);
}

static void test_compile_every_mode(void)
{
        struct stk_sc_prog p = { 0 };
        unsigned short len[3];

        for (int m = STK_NET_OFF; m <= STK_NET_ON; m++) {
                struct ns_opts o = { .network = (enum stk_network)m };
                CU_ASSERT_EQUAL_FATAL(ns_compile(&o, &p, quiet, NULL), 0);
                CU_ASSERT(p.len > 20 && p.insns != NULL);
                CU_ASSERT_EQUAL(p.flags, 0);
                len[m] = p.len;
                stk_sc_prog_done(&p);
        }
        CU_ASSERT(len[STK_NET_PROXY] > len[STK_NET_ON]);
        /* Everything allowed in mode "on": only the architecture check is left. */
        struct ns_opts all = { .network = STK_NET_ON, .allowed_groups = ~1u, .log = 1 };
        CU_ASSERT_EQUAL_FATAL(ns_compile(&all, &p, quiet, NULL), 0);
        CU_ASSERT(p.len < 12);
        CU_ASSERT(p.flags != 0);
        stk_sc_prog_done(&p);
}

/* In the child: each check that fails sets a bit of the exit status. */
static int filtered_child(enum stk_network mode)
{
        struct ns_opts o = { .network = mode };
        struct stk_sc_prog p;
        int bad = 0, fd;
        pid_t pid;

        if (ns_compile(&o, &p, quiet, NULL) < 0 || stk_sc_load(&p) < 0)
                return 100;
        bad |= socket(AF_INET, SOCK_DGRAM, 0) >= 0 || errno != EPERM ? 1 : 0;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bad |= fd < 0 ? 2 : 0;
        bad |= syscall(SYS_ioctl, -1, 0x100000000UL | TIOCSTI, NULL) >= 0 || errno != EPERM ? 4 : 0;
        bad |= personality(0xffffffff) < 0 ? 8 : 0;
        bad |= personality(READ_IMPLIES_EXEC) >= 0 || errno != EPERM ? 16 : 0;
        bad |= syscall(SYS_clone3, NULL, 0) >= 0 || errno != ENOSYS ? 32 : 0;
        pid = fork();  /* glibc falls back from clone3 to clone without namespace flags */
        if (pid == 0)
                _exit(0);
        bad |= pid < 0 || waitpid(pid, NULL, 0) != pid ? 64 : 0;
        bad |= unshare(CLONE_NEWUSER) >= 0 || errno != EPERM ? 128 : 0;
        return bad;
}

static void test_filter_in_child(void)
{
        for (int m = STK_NET_OFF; m <= STK_NET_PROXY; m++) {
                int st;
                pid_t pid = fork();

                CU_ASSERT_FATAL(pid >= 0);
                if (pid == 0)
                        _exit(filtered_child((enum stk_network)m));
                CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
                if (!WIFEXITED(st) || WEXITSTATUS(st))
                        fprintf(stderr, "\n  mode %d: child status 0x%x", m, st);
                CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
}

UNIT_SUITE(net_seccomp,
           UNIT_TEST(test_table_entries),
           UNIT_TEST(test_groups),
           UNIT_TEST(test_man_page_lists_table),
           UNIT_TEST(test_parse_allow),
           UNIT_TEST(test_compile_every_mode),
           UNIT_TEST(test_filter_in_child))
