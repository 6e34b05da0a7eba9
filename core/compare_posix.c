/* SPDX-License-Identifier: MIT */
/* `stockade compare` where the Linux sandboxes it compares do not exist. */
#include <stdio.h>

#include "cli.h"
#include "core.h"
#include "os.h"

int cli_compare(int argc, char **argv)
{
        (void) argc, (void) argv;
        fprintf(stderr, "stockade compare: it runs the Linux stacks (bwrap, Landlock, seccomp) side by side, "
                        "which this %s build does not have\n", os_backend);
        return STK_EXIT_USAGE;
}
