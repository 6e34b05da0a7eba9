/* SPDX-License-Identifier: MIT */
/* path_canonicalize: the memo used while a policy loads must answer exactly
 * what the full walk answers, for every kind of path a policy can name. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util/util.h"

static char root[] = "/tmp/stockade-test-path.XXXXXX";

/* A tree with the cases: a directory, a file, a symlink to a directory and
 * one to a file, a dangling symlink, a missing name under a file. */
static void make_tree(void)
{
        char p[256];

        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        snprintf(p, sizeof(p), "%s/ws", root);
        CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
        snprintf(p, sizeof(p), "%s/ws/.git", root);
        CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
        snprintf(p, sizeof(p), "%s/ws/file", root);
        CU_ASSERT_FATAL(close(open(p, O_CREAT | O_WRONLY, 0644)) == 0);
        snprintf(p, sizeof(p), "%s/ws/link-dir", root);
        CU_ASSERT_FATAL(symlink("..", p) == 0);
        snprintf(p, sizeof(p), "%s/ws/link-file", root);
        CU_ASSERT_FATAL(symlink("file", p) == 0);
        snprintf(p, sizeof(p), "%s/ws/dangling", root);
        CU_ASSERT_FATAL(symlink("nowhere/at/all", p) == 0);
        snprintf(p, sizeof(p), "%s/alias", root);
        CU_ASSERT_FATAL(symlink("ws", p) == 0);
}

static void remove_tree(void)
{
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        CU_ASSERT(system(cmd) == 0);
}

static void test_memo_matches_walk(void)
{
        static const char *const rel[] = {
                "ws", "ws/.git", "ws/.git/hooks", "ws/.vscode", "ws/file", "ws/file/below",
                "ws/link-dir", "ws/link-dir/ws/.git", "ws/link-file", "ws/dangling", "ws/missing/deeper",
                "alias/.git", "alias/.vscode", "ws/.", "ws/..", "ws/missing/../../etc", "ws//.git", "ws/",
        };
        char p[512];

        enum { N = sizeof(rel) / sizeof(rel[0]) };
        char *walked[N] = { 0 };
        int walked_r[N];

        make_tree();
        for (size_t i = 0; i < N; i++) {
                snprintf(p, sizeof(p), "%s/%s", root, rel[i]);
                walked_r[i] = path_canonicalize(p, &walked[i]);
        }
        /* Pass 0: a fresh memo per path (filled by its own parents); pass 1:
         * one memo for all, each path answered from what the others left. */
        for (int pass = 0; pass < 2; pass++) {
                if (pass)
                        path_memo_begin();
                for (size_t i = 0; i < N; i++) {
                        char *memoed = NULL;
                        int r;

                        snprintf(p, sizeof(p), "%s/%s", root, rel[i]);
                        if (!pass)
                                path_memo_begin();
                        r = path_canonicalize(p, &memoed);
                        if (!pass)
                                path_memo_end();
                        CU_ASSERT_EQUAL(walked_r[i], r);
                        if (walked_r[i] == 0 && r == 0)
                                CU_ASSERT_STRING_EQUAL(walked[i], memoed);
                        if (walked_r[i] != r || (r == 0 && strcmp(walked[i], memoed) != 0))
                                fprintf(stderr, "%s: walk %d %s, memo %d %s\n", rel[i], walked_r[i],
                                        walked[i] ? walked[i] : "-", r, memoed ? memoed : "-");
                        free(memoed);
                }
                if (pass)
                        path_memo_end();
        }
        for (size_t i = 0; i < N; i++)
                free(walked[i]);
        remove_tree();
}

UNIT_SUITE(path, UNIT_TEST(test_memo_matches_walk))
