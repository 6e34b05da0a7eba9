/* SPDX-License-Identifier: MIT */
/* A daemon alive when the supervisor is SIGKILLed: nothing the command
 * starts may outlive the supervisor, however it dies (issue 21 §4: under
 * the Landlock stack, setsid descendants kept running without audit or
 * timeout).  Double fork and setsid, the run's mark in the daemon's argv;
 * then this line, and a wait to be killed: the harness SIGKILLs stockade
 * (kind "orphan") and looks for the daemon by its mark. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "probe.h"

static _Noreturn void daemon_body(void)
{
        int null = open("/dev/null", O_RDWR);

        for (int fd = 0; fd < 3; fd++)
                dup2(null, fd); /* stdout is the harness's file */
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
                        execl("/proc/self/exe", "proc_orphan", "daemon", mark, (char *) NULL);
                        _exit(1);
                }
                _exit(0);
        }
        waitpid(child, NULL, 0);
        usleep(100 * 1000); /* let the grandchild exec, so its argv shows the mark */
        printf("ESCAPED a daemon is alive; the harness now kills the supervisor\n");
        fflush(stdout);
        for (int i = 0; i < 200; i++) /* until killed with the supervisor (20 s at most) */
                usleep(100 * 1000);
        return 1;
}
