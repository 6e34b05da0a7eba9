/* SPDX-License-Identifier: MIT */
/* Backdate an outside file (hide a change, fool make): timestamps are
 * metadata no Landlock right covers. */
#include <fcntl.h>
#include <sys/stat.h>
#include "probe.h"

int main(void)
{
        const struct timespec old[2] = { { 86400, 0 }, { 86400, 0 } };

        if (utimensat(AT_FDCWD, outside("target"), old, 0) < 0)
                contained("utimensat(outside/target, 1970-01-02): %s", ename(errno));
        escaped("utimensat(outside/target) backdated it to 1970-01-02");
}
