/* SPDX-License-Identifier: MIT */
/* From a workspace that is $HOME (allowed with --allow-broad-workspace),
 * rewrite stockade's own user layer: append `network: {mode: on}` to
 * ~/.config/stockade/default.yaml, or plant a layer for another profile,
 * and the next run obeys it (issue 13, §1). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probe.h"

static const char line[] = "settings: { network: { mode: on } }\n";

int main(void)
{
        char p[4096], q[4096];
        int fd;

        snprintf(p, sizeof(p), "%s/.config/stockade/default.yaml", fixture("HOME"));
        fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0 && write(fd, line, strlen(line)) == (ssize_t) strlen(line))
                escaped("appended to ~/.config/stockade/default.yaml");
        snprintf(q, sizeof(q), "%s/.config/stockade/proxy.yaml", fixture("HOME"));
        fd = open(q, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                contained("open(~/.config/stockade/default.yaml, O_APPEND) and proxy.yaml O_CREAT: %s", ename(errno));
        write_or_contained(fd, "~/.config/stockade/proxy.yaml");
}
