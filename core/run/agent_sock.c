/* SPDX-License-Identifier: MIT */
/*
 * The ssh-agent opt-in (issue 15; stockade.yaml(5), env.allow): where the
 * policy lets SSH_AUTH_SOCK through to the command, that one socket is
 * made reachable, on both stacks, and nothing else of its directory:
 *   - a bind of the socket at its own path in the plan, which fs_bwrap
 *     mounts after the private /tmp (an agent's socket usually lives in
 *     the host's /tmp, behind it);
 *   - the bind is a writable one, which is what the unix-socket guard
 *     (net_seccomp, lib/seccomp stk_sc_writable) lets the command connect
 *     to, under bwrap (a writable mount) and under Landlock (a writable
 *     path) alike.
 * The trade-off, said in the man page: the command can use the agent (sign
 * with every key it holds) for as long as it runs, and change the socket
 * file's mode.
 *
 * Checked once, here, before any module plans: an absolute path, made
 * canonical, that is a socket owned by the user (a value naming nothing,
 * an agent no longer running, binds nothing).  Anything else stops the
 * run (the policy asked for the agent; a command without it would fail
 * later, and a path that is not the user's socket is not the agent).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "util/util.h"

#define AGENT_VAR "SSH_AUTH_SOCK"

int core_agent_socket_plan(struct core_run *run)
{
        const char *v = core_plan_getenv(&run->plan, AGENT_VAR);
        char canon[PATH_MAX];
        struct stat st;

        if (!v)
                return 0; /* not let in (env.deny), or not set */
        if (v[0] != '/') {
                core_log(STK_LOG_ERROR, "%s=%s: env.allow lets the agent in, but it is not an absolute path",
                         AGENT_VAR, v);
                return -EINVAL;
        }
        if (!realpath(v, canon)) {
                int err = errno;
                if (err == ENOENT) {
                        /* a stale value (no agent running): nothing to reach, as outside */
                        core_log(STK_LOG_INFO, "%s=%s: no such socket; nothing is bound", AGENT_VAR, v);
                        return 0;
                }
                core_log(STK_LOG_ERROR, "%s=%s: env.allow lets the agent in, but %s", AGENT_VAR, v, strerror(err));
                return -EINVAL;
        }
        if (lstat(canon, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_uid != getuid()) {
                core_log(STK_LOG_ERROR, "%s=%s: env.allow lets the agent in, but %s is not a socket of uid %u",
                         AGENT_VAR, v, canon, (unsigned) getuid());
                return -EINVAL;
        }
        core_log(STK_LOG_INFO, "%s: the agent's socket %s is reachable in the sandbox (env.allow)", AGENT_VAR, canon);
        return core_plan_bind(&run->plan, canon, canon, STK_BIND_RW);
}
