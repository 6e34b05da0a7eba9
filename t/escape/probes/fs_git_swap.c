/* SPDX-License-Identifier: MIT */
/* Rename the workspace's .git away and put one of our making in its place,
 * with a hook the user's next `git commit` runs.  Where only .git's hooks
 * and config are protected (git: surfaces) the directory itself is the way
 * in; the harness puts the real one back (.git.swapped). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include "probe.h"

int main(void)
{
        char git[4096], away[4096], hooks[4096], hook[4096];
        int fd;

        snprintf(git, sizeof(git), "%s/.git", fixture("ESC_WS"));
        snprintf(away, sizeof(away), "%s/.git.swapped", fixture("ESC_WS"));
        snprintf(hooks, sizeof(hooks), "%.4000s/hooks", git);
        snprintf(hook, sizeof(hook), "%.4000s/pre-commit", hooks);
        if (rename(git, away) < 0)
                contained("rename(.git, .git.swapped): %s", ename(errno));
        if (mkdir(git, 0755) < 0 || mkdir(hooks, 0755) < 0)
                contained("mkdir(.git/hooks) after the rename: %s", ename(errno));
        fd = open(hook, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                contained("open(new .git/hooks/pre-commit): %s", ename(errno));
        write_or_contained(fd, "a hook in a .git put in the real one's place");
}
