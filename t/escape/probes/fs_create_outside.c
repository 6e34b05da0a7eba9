/* SPDX-License-Identifier: MIT */
/* Create a new file in a directory outside every writable root. */
#include <fcntl.h>
#include "probe.h"

int main(void)
{
        int fd = open(outside("dir/created"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

        if (fd < 0)
                contained("open(outside/dir/created, O_CREAT): %s", ename(errno));
        write_or_contained(fd, "outside/dir/created");
}
