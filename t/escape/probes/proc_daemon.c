/* SPDX-License-Identifier: MIT */
/* A daemon that outlives the sandbox: double fork, setsid, stdio closed.
 * Its argv carries the harness's run mark ($ESC_MARK), by which the harness
 * finds (and ends) it after the sandbox is gone.  It ends by itself after
 * 20 s.  The probe cannot see whether it survives: the harness decides. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "probe.h"

static _Noreturn void daemon_body(void)
{
        int null = open("/dev/null", O_RDWR);

        /* stdout is the harness's pipe: holding it would stall the harness */
        for (int fd = 0; fd < 3; fd++)
                dup2(null, fd);
        signal(SIGHUP, SIG_IGN);
        for (int i = 0; i < 200; i++)
                usleep(100 * 1000);
        _exit(0);
}

int main(int argc, char **argv)
{
        const char *mark = fixture("ESC_MARK");
        pid_t child;

        if (argc == 3 && strcmp(argv[1], "daemon") == 0)
                daemon_body();
        child = fork();
        if (child < 0)
                contained("fork: %s", ename(errno));
        if (child == 0) {
                if (setsid() < 0)
                        _exit(1);
                if (fork() == 0) {
                        execl("/proc/self/exe", "proc_daemon", "daemon", mark, (char *) NULL);
                        _exit(1);
                }
                _exit(0);
        }
        waitpid(child, NULL, 0);
        usleep(100 * 1000); /* let the grandchild exec, so its argv shows the mark */
        escaped("daemon forked (double fork + setsid); the harness checks whether it outlives the sandbox");
}
