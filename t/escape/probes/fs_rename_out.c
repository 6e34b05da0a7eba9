/* SPDX-License-Identifier: MIT */
/* Move a workspace file onto an outside path: creates a file outside. */
#include <stdio.h>
#include "probe.h"

int main(void)
{
        if (rename(scratch("moveme"), outside("dir/moved")) < 0)
                contained("rename(workspace/scratch/moveme, outside/dir/moved): %s", ename(errno));
        escaped("renamed a workspace file to outside/dir/moved");
}
