/* SPDX-License-Identifier: MIT */
/* Tag an outside file with an extended attribute (user.*: no privilege
 * needed, only write permission; no Landlock right covers it). */
#include <sys/xattr.h>
#include "probe.h"

int main(void)
{
        if (setxattr(outside("target"), "user.stockade-escape", "1", 1, 0) < 0)
                contained("setxattr(outside/target, user.stockade-escape): %s", ename(errno));
        escaped("setxattr(outside/target, user.stockade-escape) succeeded");
}
