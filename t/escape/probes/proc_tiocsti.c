/* SPDX-License-Identifier: MIT */
/* TIOCSTI: push input into the terminal, where it runs in the user's shell
 * after the command ends.  The harness gives this probe a pty of its own
 * (never the user's terminal) as controlling tty and stdio. */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "probe.h"

static int find_tty(const char **what)
{
        static const char *names[] = { "stdin", "stdout", "stderr" };
        int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);

        *what = "/dev/tty";
        if (fd >= 0)
                return fd;
        for (fd = 0; fd < 3; fd++)
                if (isatty(fd)) {
                        *what = names[fd];
                        return fd;
                }
        return -1;
}

int main(void)
{
        const char *what;
        int fd = find_tty(&what);
        char c = '#';

        if (fd < 0)
                na("no terminal: no controlling tty and stdio is not a tty");
        if (ioctl(fd, TIOCSTI, &c) < 0)
                contained("ioctl(%s, TIOCSTI): %s", what, ename(errno));
        escaped("TIOCSTI pushed a character into the terminal's input (%s)", what);
}
