/* SPDX-License-Identifier: MIT */
/* mount(2) a tmpfs over an outside directory: rearranging mounts hides or
 * replaces what the sandbox protects.  Undone at once if it works. */
#include <sys/mount.h>
#include "probe.h"

int main(void)
{
        const char *dir = outside("mnt");

        if (mount("stockade-probe", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k") < 0)
                contained("mount(tmpfs, outside/mnt): %s", ename(errno));
        (void) umount2(dir, MNT_DETACH);
        escaped("mount(tmpfs, outside/mnt) succeeded (CAP_SYS_ADMIN over its mount namespace)");
}
