/* SPDX-License-Identifier: MIT */
/* `stockade serve` elsewhere than Linux: not built yet.  It needs the
 * peer's credentials on a unix socket (SO_PEERCRED; macOS has getpeereid)
 * and SCM_RIGHTS with MSG_CMSG_CLOEXEC; until that port, the command says
 * so rather than serve anyone who can reach the socket. */
#include <stdio.h>

#include "cli.h"
#include "run/core.h"

int cli_serve(int argc, char **argv)
{
        (void) argc;
        (void) argv;
        fprintf(stderr, "stockade serve: not available in this build (it needs Linux's SO_PEERCRED); "
                        "use stockade mcp\n");
        return STK_EXIT_SETUP;
}
