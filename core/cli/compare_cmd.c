/* SPDX-License-Identifier: MIT */
/*
 * stockade compare ...: the comparison lives in a tool of its own
 * (tools/compare, $(LIBEXECDIR)/stockade/stockade-compare), outside the
 * binary that enforces the sandbox.  It is run as git runs its
 * subcommands, but never found through PATH or the environment: by a
 * compiled-in absolute path (the build tree's for the build tree's
 * binary), checked like a module (owned by root or us, writable by nobody
 * else, its directories too) on the fd that is then executed.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>

#include "cli.h"
#include "common/stk_trust.h"
#include "os/os.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

static const char *tool_path(void)
{
        static char path[PATH_MAX];
        const char *tree = core_build_tree();

        if (!tree)
                return STK_LIBEXECDIR "/stockade/stockade-compare";
        snprintf(path, sizeof(path), "%s/tools/stockade-compare", tree);
        return path;
}

/* The tool, opened and trust-checked: an fd, or -errno after a message. */
static int open_tool(const char *path)
{
        _cleanup_free_ char *canon = realpath(path, NULL);
        _cleanup_free_ char *bad = NULL;
        _cleanup_close_ int fd = -1;
        const char *why = NULL;
        int r;

        if (!canon) {
                r = -errno;
                if (r == -ENOENT)
                        fprintf(stderr, "stockade compare: %s is not installed: it runs the Linux stacks (bwrap, "
                                        "Landlock, seccomp) side by side, which this %s build %s\n",
                                path, os_backend, OS_LINUX ? "was installed without" : "does not have");
                else
                        fprintf(stderr, "stockade compare: %s: %s\n", path, strerror(-r));
                return r;
        }
        fd = open(canon, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "stockade compare: %s: %s\n", canon, strerror(errno));
                return -errno;
        }
        r = stk_trust_fd(fd, geteuid(), STK_TRUST_EXECUTABLE, &why);
        if (r >= 0)
                r = stk_trust_ancestors(canon, geteuid(), &bad, &why);
        if (r < 0) {
                fprintf(stderr, "stockade compare: refusing to run %s: %s%s%s\n", canon, bad ? bad : "",
                        bad ? ": " : "", why);
                return r;
        }
        return TAKE_FD(fd);
}

int cli_compare(int argc, char **argv)
{
        const char *path = tool_path();
        _cleanup_close_ int fd = open_tool(path);
        _cleanup_free_ char **args = NULL;
        char self[PATH_MAX];
        int r;

        if (fd < 0)
                return fd == -ENOENT ? STK_EXIT_USAGE : STK_EXIT_SETUP;
        r = os_self_path(self, sizeof(self));
        if (r < 0) {
                fprintf(stderr, "stockade compare: where is this binary: %s\n", strerror(-r));
                return STK_EXIT_SETUP;
        }
        args = calloc((size_t) argc + 3, sizeof(*args));
        if (!args)
                return STK_EXIT_SETUP;
        args[0] = (char *) path;
        args[1] = (char *) "--stockade";
        args[2] = self;
        for (int i = 1; i < argc; i++)
                args[i + 2] = argv[i];
        r = os_exec_fd(fd, args, environ);
        fprintf(stderr, "stockade compare: executing %s: %s\n", path, strerror(-r));
        return STK_EXIT_SETUP;
}
