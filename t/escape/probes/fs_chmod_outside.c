/* SPDX-License-Identifier: MIT */
/* Change an outside file's metadata: no data written, still a write. */
#include <sys/stat.h>
#include "probe.h"

int main(void)
{
        if (chmod(outside("target"), 0666) < 0)
                contained("chmod(outside/target, 0666): %s", ename(errno));
        escaped("chmod(outside/target, 0666) succeeded");
}
