/* SPDX-License-Identifier: MIT */
/* open_by_handle_at(2): open a file by its handle, around every path check
 * (the "shocker" container escape). */
#include <fcntl.h>
#include <stdlib.h>
#include "probe.h"

int main(void)
{
        struct file_handle *h = calloc(1, sizeof(*h) + MAX_HANDLE_SZ);
        int mount_id, mount_fd, fd;

        if (!h)
                na("out of memory");
        h->handle_bytes = MAX_HANDLE_SZ;
        if (name_to_handle_at(AT_FDCWD, outside("target"), h, &mount_id, 0) < 0) {
                if (errno == EOPNOTSUPP)
                        na("the file system holding the fixtures exports no handles");
                contained("name_to_handle_at(outside/target): %s", ename(errno));
        }
        mount_fd = open(outside("dir"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (mount_fd < 0)
                contained("open(outside/dir): %s", ename(errno));
        fd = open_by_handle_at(mount_fd, h, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                contained("open_by_handle_at(O_WRONLY): %s", ename(errno));
        write_or_contained(fd, "open_by_handle_at(outside/target)");
}
