/* SPDX-License-Identifier: MIT */
/* Write through fd 9, which the harness opened on an outside file before
 * it started the sandbox: inherited fds bypass every path check. */
#include <sys/stat.h>
#include "probe.h"

int main(void)
{
        struct stat fd_st, file_st;

        if (fstat(9, &fd_st) < 0)
                contained("fstat(9): %s", ename(errno));
        if (stat(outside("fd9"), &file_st) == 0 &&
            (fd_st.st_dev != file_st.st_dev || fd_st.st_ino != file_st.st_ino))
                contained("fd 9 is open, but not on the harness's outside/fd9");
        write_or_contained(9, "inherited fd 9 (outside/fd9)");
}
