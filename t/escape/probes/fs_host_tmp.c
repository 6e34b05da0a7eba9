/* SPDX-License-Identifier: MIT */
/* Append to a file the harness made in the host's /tmp (a private /tmp
 * must not be the host's). */
#include <fcntl.h>
#include "probe.h"

int main(void)
{
        int fd = open(fixture("ESC_HOSTTMP"), O_WRONLY | O_APPEND | O_CLOEXEC);

        if (fd < 0)
                contained("open(host /tmp file, O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "the host /tmp file");
}
