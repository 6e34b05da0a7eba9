/* SPDX-License-Identifier: MIT */
/*
 * pty-helper: run a command as the session leader of a new pseudo-terminal
 * (or of no terminal at all) and play the human at it.
 *
 *   pty-helper [-a ANSWER]... [-i IN] [-o OUT] [-e ERR] [-l LOG] [-T SECS] [-n] -- CMD [ARG...]
 *
 * The child calls setsid(), makes the pty slave its controlling terminal
 * (TIOCSCTTY) so that /dev/tty works, then execs CMD with stdin from IN,
 * stdout to OUT and stderr to ERR (default /dev/null): the terminal is the
 * only way a prompt can reach us.  Each time the approval prompt appears on
 * the master, the next ANSWER is typed with a newline ("^C" types an
 * interrupt character instead); with no answer left, nothing is typed.
 * Everything read from the master goes to LOG.  -n: setsid() and no
 * terminal at all.  -T: the child is killed (by pid) after SECS (default 20).
 *
 * The slave is put in raw mode first; at the end the helper prints to its
 * stderr "termios: restored" or "termios: changed", so a test sees whether
 * the prompt gave the terminal back as it found it.  Exit status: CMD's
 * (128+N for a signal), 124 on the -T timeout, 125 on a helper error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define PROMPT "? y = yes once"
#define MAX_ANSWERS 8

struct opts {
        const char *answers[MAX_ANSWERS];
        int n_answers;
        const char *in, *out, *err, *log;
        int timeout;
        bool no_tty;
        char **cmd;
};

static void die(const char *what)
{
        fprintf(stderr, "pty-helper: %s: %s\n", what, strerror(errno));
        exit(125);
}

static int parse(int argc, char **argv, struct opts *o)
{
        int c;

        *o = (struct opts) { .in = "/dev/null", .out = "/dev/null", .err = "/dev/null", .timeout = 20 };
        while ((c = getopt(argc, argv, "+a:i:o:e:l:T:n")) != -1) {
                switch (c) {
                case 'a':
                        if (o->n_answers == MAX_ANSWERS)
                                return -1;
                        o->answers[o->n_answers++] = optarg;
                        break;
                case 'i': o->in = optarg; break;
                case 'o': o->out = optarg; break;
                case 'e': o->err = optarg; break;
                case 'l': o->log = optarg; break;
                case 'T': o->timeout = atoi(optarg); break;
                case 'n': o->no_tty = true; break;
                default: return -1;
                }
        }
        if (optind >= argc)
                return -1;
        o->cmd = argv + optind;
        return 0;
}

static void redirect(const char *path, int flags, int to)
{
        int fd = open(path, flags | O_CLOEXEC, 0644);

        if (fd < 0 || dup2(fd, to) < 0)
                die(path);
        close(fd);
}

/* In the child: a session of its own, the slave as its terminal. */
static void child(const struct opts *o, const char *slave)
{
        if (setsid() < 0)
                die("setsid");
        if (!o->no_tty) {
                int fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
                if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
                        die("TIOCSCTTY");
                close(fd);
        }
        redirect(o->in, O_RDONLY, 0);
        redirect(o->out, O_WRONLY | O_CREAT | O_TRUNC, 1);
        redirect(o->err, O_WRONLY | O_CREAT | O_TRUNC, 2);
        execvp(o->cmd[0], o->cmd);
        die(o->cmd[0]);
}

static int open_pty(int *ret_slave, char *slave_name, size_t size, struct termios *ret_raw)
{
        int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        struct termios t;

        if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, slave_name, size) != 0)
                die("posix_openpt");
        /* Our own slave fd keeps the pty alive (no EIO on the master) while
         * the command has none open; it is close-on-exec for the child. */
        *ret_slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (*ret_slave < 0 || tcgetattr(*ret_slave, &t) < 0)
                die(slave_name);
        cfmakeraw(&t);
        if (tcsetattr(*ret_slave, TCSANOW, &t) < 0 || tcgetattr(*ret_slave, ret_raw) < 0)
                die("tcsetattr");
        return m;
}

static size_t count_prompts(const char *log, size_t n)
{
        size_t k = 0;

        for (const char *p = log; (p = memmem(p, n - (size_t) (p - log), PROMPT, strlen(PROMPT))); p++)
                k++;
        return k;
}

static void type_answer(int master, const char *answer)
{
        char buf[128];
        int n = strcmp(answer, "^C") == 0 ? snprintf(buf, sizeof(buf), "\003")
                                          : snprintf(buf, sizeof(buf), "%s\n", answer);

        if (n < 0 || write(master, buf, (size_t) n) != n)
                die("write to the master");
}

/* What the child wrote before it exited, still in the pty's buffer. */
static void drain(int master, FILE *log)
{
        char buf[4096];
        struct pollfd p = { .fd = master, .events = POLLIN };
        ssize_t k;

        while (master >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN) && (k = read(master, buf, sizeof(buf))) > 0)
                fwrite(buf, 1, (size_t) k, log);
}

static bool same_mode(const struct termios *a, const struct termios *b)
{
        return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
               a->c_lflag == b->c_lflag && memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0;
}

/* Read the master until the child is gone; answer each new prompt. */
static int converse(const struct opts *o, int master, pid_t pid, FILE *log)
{
        static char seen[1 << 16];
        size_t n = 0, answered = 0;
        time_t end = time(NULL) + o->timeout;
        int status;

        for (;;) {
                struct pollfd p = { .fd = master, .events = POLLIN };
                pid_t w = waitpid(pid, &status, WNOHANG);

                if (w == pid) {
                        drain(master, log);
                        break;
                }
                if (w < 0)
                        die("waitpid");
                if (time(NULL) >= end) {
                        kill(pid, SIGKILL);
                        waitpid(pid, &status, 0);
                        return 124;
                }
                if (master < 0 || poll(&p, 1, 50) <= 0)
                        continue;
                ssize_t k = read(master, seen + n, sizeof(seen) - 1 - n);
                if (k <= 0)
                        continue;
                fwrite(seen + n, 1, (size_t) k, log);
                fflush(log);
                n += (size_t) k;
                seen[n] = '\0';
                for (size_t prompts = count_prompts(seen, n); answered < prompts; answered++)
                        if (answered < (size_t) o->n_answers)
                                type_answer(master, o->answers[answered]);
                if (n == sizeof(seen) - 1)
                        n = 0; /* a runaway command: keep only the tail */
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
        struct opts o;
        char slave_name[128] = "";
        struct termios raw, after;
        int master = -1, slave = -1, st;
        FILE *log;
        pid_t pid;

        if (parse(argc, argv, &o) < 0) {
                fprintf(stderr, "usage: pty-helper [-a ANSWER]... [-i IN] [-o OUT] [-e ERR] [-l LOG] [-T SECS] [-n] -- CMD...\n");
                return 125;
        }
        if (!o.no_tty)
                master = open_pty(&slave, slave_name, sizeof(slave_name), &raw);
        log = fopen(o.log ? o.log : "/dev/null", "we");
        if (!log)
                die("log");
        pid = fork();
        if (pid < 0)
                die("fork");
        if (pid == 0)
                child(&o, slave_name);
        st = converse(&o, master, pid, log);
        if (!o.no_tty) {
                if (tcgetattr(slave, &after) < 0)
                        die("tcgetattr");
                fprintf(stderr, "termios: %s\n", same_mode(&raw, &after) ? "restored" : "changed");
        }
        fclose(log);
        return st;
}
