/* SPDX-License-Identifier: MIT */
/*
 * escape-fixture - what t/escape/run stands up for the probes to aim at,
 * so that a probe that escapes touches nothing real:
 *
 *   escape-fixture listen STATE OUT   TCP and UDP (echo) listeners on 127.0.0.1
 *                                     and ::1, an abstract unix socket,
 *                                     OUT/sock and the datagram socket
 *                                     OUT/dgram; writes STATE/listen.env, logs
 *                                     every contact to STATE/hits
 *   escape-fixture victim STATE       a process to attack: logs to STATE/victim.log
 *                                     when signalled, traced or written to (its
 *                                     memory, or its System V shared memory
 *                                     segment, id in STATE/victim.shm)
 *   escape-fixture keyring CMD...     plant a key in a new session keyring, exec CMD
 *   escape-fixture pty CMD...         run CMD on a new pty (its controlling tty
 *                                     and stdio), copy its output, pass its status
 *   escape-fixture findpids MARK      pids whose argv holds MARK (a probe's daemon)
 *
 * listen and victim end when their parent (the harness) dies, and after
 * 15 minutes at the latest, so a harness killed hard leaves nothing behind.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/keyctl.h>

#define LIFETIME_S 900
#define KEY_DESC "stockade-escape-fixture"

static void die(const char *what)
{
        fprintf(stderr, "escape-fixture: %s: %s\n", what, strerror(errno));
        exit(1);
}

/* End with the harness: its death must not leave listeners or victims. */
static void tie_to_parent(void)
{
        pid_t parent = getppid();

        if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid() != parent)
                exit(1);
        alarm(LIFETIME_S);
}

static void log_line(const char *file, const char *line)
{
        FILE *f = fopen(file, "ae");

        if (f) {
                fprintf(f, "%s\n", line);
                fclose(f);
        }
}

/* Write a file whole, then rename it in place: the harness polls for it. */
static void publish(const char *path, const char *text)
{
        char tmp[4096];
        FILE *f;

        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        f = fopen(tmp, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) < 0)
                die(path);
}

/* --- listen ------------------------------------------------------------- */

struct listener {
        const char *name;
        int fd, type;
};

static int bound_port(int fd)
{
        struct sockaddr_storage sa;
        socklen_t len = sizeof(sa);

        if (getsockname(fd, (struct sockaddr *) &sa, &len) < 0)
                return 0;
        return ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &sa)->sin6_port
                                              : ((struct sockaddr_in *) &sa)->sin_port);
}

/* A loopback listener; -1 when the host has no such loopback (no IPv6). */
static int inet_listener(int family, int type)
{
        struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
        struct sockaddr *sa = family == AF_INET6 ? (struct sockaddr *) &a6 : (struct sockaddr *) &a4;
        socklen_t len = family == AF_INET6 ? sizeof(a6) : sizeof(a4);
        int fd = socket(family, type | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -1;
        if (bind(fd, sa, len) < 0 || (type == SOCK_STREAM && listen(fd, 16) < 0)) {
                close(fd);
                return -1;
        }
        return fd;
}

static int unix_listener(const char *path, const char *abstract, int type)
{
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        socklen_t len = sizeof(a);
        int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

        if (path) {
                if (strlen(path) >= sizeof(a.sun_path))
                        return -1;
                strcpy(a.sun_path, path);
                unlink(path);
        } else {
                strncpy(a.sun_path + 1, abstract, sizeof(a.sun_path) - 2);
                len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(abstract));
        }
        if (fd < 0 || bind(fd, (struct sockaddr *) &a, len) < 0 || (type == SOCK_STREAM && listen(fd, 16) < 0))
                die(path ? path : "abstract unix socket");
        return fd;
}

/* A contact: log it; a stream is accepted and closed, a datagram echoed. */
static void serve(const struct listener *l, const char *hits)
{
        struct sockaddr_storage from;
        socklen_t len = sizeof(from);
        char buf[512], line[128];

        if (l->type == SOCK_STREAM) {
                int c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
                if (c >= 0)
                        close(c);
                snprintf(line, sizeof(line), "%s connection", l->name);
        } else {
                ssize_t n = recvfrom(l->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &len);
                if (n >= 0)
                        (void) sendto(l->fd, buf, (size_t) n, MSG_DONTWAIT, (struct sockaddr *) &from, len);
                snprintf(line, sizeof(line), "%s datagram", l->name);
        }
        log_line(hits, line);
}

static _Noreturn void cmd_listen(const char *state, const char *out)
{
        char hits[4096], env[4096], sock[4096], abstract[64];
        struct listener l[] = {
                { "tcp4", inet_listener(AF_INET, SOCK_STREAM), SOCK_STREAM },
                { "udp4", inet_listener(AF_INET, SOCK_DGRAM), SOCK_DGRAM },
                { "tcp6", inet_listener(AF_INET6, SOCK_STREAM), SOCK_STREAM },
                { "udp6", inet_listener(AF_INET6, SOCK_DGRAM), SOCK_DGRAM },
                { "unix-abstract", -1, SOCK_STREAM },
                { "unix-path", -1, SOCK_STREAM },
                { "unix-dgram", -1, SOCK_DGRAM },
        };
        enum { N = sizeof(l) / sizeof(l[0]) };
        struct pollfd pfd[N];

        tie_to_parent();
        snprintf(hits, sizeof(hits), "%s/hits", state);
        snprintf(sock, sizeof(sock), "%s/sock", out);
        snprintf(abstract, sizeof(abstract), "stockade-escape-%d", (int) getpid());
        l[4].fd = unix_listener(NULL, abstract, SOCK_STREAM);
        l[5].fd = unix_listener(sock, NULL, SOCK_STREAM);
        snprintf(sock, sizeof(sock), "%s/dgram", out);
        l[6].fd = unix_listener(sock, NULL, SOCK_DGRAM);
        if (l[0].fd < 0 || l[1].fd < 0)
                die("127.0.0.1 listeners");
        snprintf(env, sizeof(env), "ESC_TCP4=%d\nESC_UDP4=%d\nESC_TCP6=%d\nESC_UDP6=%d\nESC_ABSTRACT=%s\n",
                 bound_port(l[0].fd), bound_port(l[1].fd), l[2].fd < 0 ? 0 : bound_port(l[2].fd),
                 l[3].fd < 0 ? 0 : bound_port(l[3].fd), abstract);
        snprintf(sock, sizeof(sock), "%s/listen.env", state);
        publish(sock, env);
        for (size_t i = 0; i < N; i++)
                pfd[i] = (struct pollfd) { .fd = l[i].fd, .events = POLLIN };
        for (;;) {
                if (poll(pfd, N, -1) < 0 && errno != EINTR)
                        die("poll");
                for (size_t i = 0; i < N; i++)
                        if (pfd[i].revents & POLLIN)
                                serve(&l[i], hits);
        }
}

/* --- victim ------------------------------------------------------------- */

static volatile int victim_flag = 0x5afe; /* probe.h: VICTIM_INTACT */
static volatile sig_atomic_t victim_signalled;

static void on_usr1(int sig)
{
        victim_signalled = 1;
}

static int traced(void)
{
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        int pid = 0;

        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "TracerPid: %d", &pid) == 1)
                        break;
        if (f)
                fclose(f);
        return pid != 0;
}

/* A System V shared memory segment of the victim's, holding the intact
 * flag; marked for removal at once (Linux still lets others attach it),
 * so it goes with the victim however the victim ends. */
static volatile int *victim_shm(const char *state)
{
        char path[4096], text[64];
        int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
        volatile int *flag;

        if (id < 0)
                die("shmget");
        flag = shmat(id, NULL, 0);
        if (flag == (void *) -1)
                die("shmat");
        (void) shmctl(id, IPC_RMID, NULL);
        *flag = 0x5afe;
        snprintf(path, sizeof(path), "%s/victim.shm", state);
        snprintf(text, sizeof(text), "%d\n", id);
        publish(path, text);
        return flag;
}

static _Noreturn void cmd_victim(const char *state)
{
        char log[4096], addr[4096], text[64];
        int was_traced = 0;
        volatile int *shm_flag;

        tie_to_parent();
        signal(SIGUSR1, on_usr1);
        snprintf(log, sizeof(log), "%s/victim.log", state);
        snprintf(addr, sizeof(addr), "%s/victim.addr", state);
        snprintf(text, sizeof(text), "%lx\n", (unsigned long) &victim_flag);
        shm_flag = victim_shm(state);
        publish(addr, text);
        for (;;) {
                if (*shm_flag != 0x5afe) {
                        log_line(log, "shared memory written");
                        *shm_flag = 0x5afe;
                }
                /* Each attack is logged once, then undone, so the next probe
                 * starts from an intact victim. */
                if (victim_flag != 0x5afe) {
                        log_line(log, "memory written");
                        victim_flag = 0x5afe;
                }
                if (victim_signalled) {
                        log_line(log, "signalled");
                        victim_signalled = 0;
                }
                if (traced() != was_traced) {
                        was_traced = !was_traced;
                        if (was_traced)
                                log_line(log, "ptrace-attached");
                }
                usleep(10 * 1000);
        }
}

/* --- keyring, pty, findpids --------------------------------------------- */

static int cmd_keyring(char **argv)
{
        static const char payload[] = "FIXTURE-KEYRING-SECRET";

        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
            syscall(SYS_add_key, "user", KEY_DESC, payload, sizeof(payload) - 1, KEY_SPEC_SESSION_KEYRING) < 0) {
                fprintf(stderr, "escape-fixture: cannot plant a key: %s\n", strerror(errno));
                return 77;
        }
        execv(argv[0], argv);
        die(argv[0]);
        return 127;
}

static _Noreturn void pty_child(int master, char **argv)
{
        struct termios t;
        int slave;

        if (setsid() < 0)
                die("setsid");
        slave = open(ptsname(master), O_RDWR); /* the first tty opened: our ctty */
        if (slave < 0)
                die("open pty slave");
        /* raw: no echo, no \r\n: the probe's line arrives as written */
        if (tcgetattr(slave, &t) == 0) {
                cfmakeraw(&t);
                tcsetattr(slave, TCSANOW, &t);
        }
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2)
                close(slave);
        close(master);
        execv(argv[0], argv);
        die(argv[0]);
        _exit(127);
}

static int cmd_pty(char **argv)
{
        int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), status;
        char buf[4096];
        ssize_t n;
        pid_t pid;

        if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
                fprintf(stderr, "escape-fixture: no pty: %s\n", strerror(errno));
                return 77;
        }
        pid = fork();
        if (pid < 0)
                die("fork");
        if (pid == 0)
                pty_child(master, argv);
        /* EIO once every holder of the slave is gone */
        while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
                if (n > 0 && write(1, buf, (size_t) n) < 0)
                        break;
        if (waitpid(pid, &status, 0) < 0)
                die("waitpid");
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int argv_holds(const char *pid, const char *mark)
{
        char p[64], buf[4096];
        ssize_t n;
        int fd, found = 0;

        snprintf(p, sizeof(p), "/proc/%s/cmdline", pid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        for (ssize_t i = 0; n > 0 && i < n && !found; i += (ssize_t) strlen(buf + i) + 1) {
                buf[n] = '\0';
                found = strcmp(buf + i, mark) == 0;
        }
        return found;
}

static int cmd_findpids(const char *mark)
{
        DIR *d = opendir("/proc");
        char self[32];
        struct dirent *e;

        snprintf(self, sizeof(self), "%d", (int) getpid());
        while (d && (e = readdir(d)))
                if (isdigit((unsigned char) e->d_name[0]) && strcmp(e->d_name, self) != 0 &&
                    argv_holds(e->d_name, mark))
                        printf("%s\n", e->d_name);
        if (d)
                closedir(d);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 4 && strcmp(argv[1], "listen") == 0)
                cmd_listen(argv[2], argv[3]);
        if (argc == 3 && strcmp(argv[1], "victim") == 0)
                cmd_victim(argv[2]);
        if (argc >= 3 && strcmp(argv[1], "keyring") == 0)
                return cmd_keyring(argv + 2);
        if (argc >= 3 && strcmp(argv[1], "pty") == 0)
                return cmd_pty(argv + 2);
        if (argc == 3 && strcmp(argv[1], "findpids") == 0)
                return cmd_findpids(argv[2]);
        fprintf(stderr, "usage: escape-fixture listen STATE OUT | victim STATE | keyring CMD... |"
                        " pty CMD... | findpids MARK\n");
        return 2;
}
