/* SPDX-License-Identifier: MIT */
/* Run with $HOME itself as the workspace (no --allow-broad-workspace):
 * stockade must refuse the run (241), or every start-up file under ~ is the
 * command's.  Here, reached only if it did not: write into a directory of the user's,
 * ~/notes (issue 13, §1). */
#include <fcntl.h>
#include <stdio.h>
#include "probe.h"

int main(void)
{
        char p[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/notes/escape-broad", fixture("HOME"));
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                contained("open(~/notes/escape-broad, O_CREAT): %s", ename(errno));
        write_or_contained(fd, "~/notes/escape-broad");
}
