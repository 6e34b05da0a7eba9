/* SPDX-License-Identifier: MIT */
/* llfloor DIR... -- /abs/cmd [arg...]: the floor of the Landlock stack's
 * design, for bench/startup.  Like timeit's launcher it forks and execs the
 * command once, and in the child first does the kernel work the Landlock
 * stack cannot avoid: a ruleset with one path rule for every entry of each
 * DIR (the shape fs_landlock's plan has when a hidden path splits /, /dev
 * and $HOME into their entries), no_new_privs, landlock_restrict_self and a
 * seccomp filter of as many instructions as net_seccomp's.  No policy, no
 * modules, no supervisor: what is left of "landlock over the launcher" once
 * everything stockade adds in user space is gone.  Prints nothing; the exit
 * status is the command's (1 when a step fails). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FILTER_LEN 277 /* net_seccomp's filter, as its debug line reports it */

static int add_entries(int ruleset, const char *dir)
{
        struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE };
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
        struct dirent *de;

        if (!d)
                return -1;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
                        continue;
                pb.parent_fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (pb.parent_fd < 0)
                        continue;
                (void) syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
                close(pb.parent_fd);
        }
        closedir(d);
        return 0;
}

static int load_filter(void)
{
        static struct sock_filter insns[FILTER_LEN];
        struct sock_fprog prog = { .len = FILTER_LEN, .filter = insns };

        for (int i = 0; i < FILTER_LEN - 1; i++) /* never-taken jumps, then allow */
                insns[i] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 0, 0);
        insns[FILTER_LEN - 1] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        return (int) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int confine(char **dirs)
{
        struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
        int ruleset = (int) syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

        if (ruleset < 0)
                return -1;
        for (; *dirs; dirs++)
                if (add_entries(ruleset, *dirs) < 0)
                        return -1;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0 ||
            syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
                return -1;
        close(ruleset);
        return load_filter();
}

int main(int argc, char **argv)
{
        int sep = 1, status;
        pid_t pid;

        while (sep < argc && strcmp(argv[sep], "--") != 0)
                sep++;
        if (sep + 1 >= argc || argv[sep + 1][0] != '/') {
                fprintf(stderr, "usage: llfloor DIR... -- /abs/cmd [arg...]\n");
                return 2;
        }
        argv[sep] = NULL;
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0) {
                /* The read right on every entry keeps the command's libraries
                 * and /bin/true readable: only READ_FILE is handled. */
                if (confine(argv + 1) < 0)
                        _exit(1);
                execv(argv[sep + 1], argv + sep + 1);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return 1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
