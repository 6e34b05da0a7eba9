/* SPDX-License-Identifier: MIT */
/*
 * The prompt on the terminal.  Only the terminal itself is used (never stdin
 * or stdout: they belong to the command, and may be pipes an agent feeds).
 * For the time of one question the terminal is put in a sane line mode, the
 * signals a user types are caught, and both are restored on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/select.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "approval_tty_internal.h"

/* Signals from the keyboard (^C, ^\, ^Z) and the usual termination ones: at
 * the prompt they cancel the question (a DENY), then take their course. */
static const int caught[] = { SIGINT, SIGQUIT, SIGTSTP, SIGTERM, SIGHUP };
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))

static volatile sig_atomic_t caught_signal;

/* Where ppoll(2) is missing (macOS; and a `make PORTABLE=1` build), the
 * handler also writes to a pipe the wait polls, so that a signal between
 * two waits still ends the next one at once. */
#if defined(__linux__) && !defined(STK_PORTABLE)
#define HAVE_PPOLL 1
#else
#define HAVE_PPOLL 0
#endif
static volatile sig_atomic_t signal_wfd = -1;

static void on_signal(int sig)
{
        int saved = errno, fd = signal_wfd;

        caught_signal = sig;
        if (fd >= 0)
                (void) !write(fd, "", 1); /* full: one byte already says it */
        errno = saved;
}

struct tty_session {
        int fd;
        struct termios saved;
        bool termios_set;
        struct sigaction old[N_CAUGHT];
        size_t n_handlers;
        sigset_t oldmask;       /* the mask before the session */
        bool mask_set;
        sigset_t waitmask;      /* the mask while waiting: ours unblocked */
        int sigpipe[2];         /* !HAVE_PPOLL: the handler's pipe */
};

enum atty_answer atty_parse_answer(const char *line)
{
        static const struct { const char *word; enum atty_answer a; } words[] = {
                { "yes", ATTY_ONCE }, { "once", ATTY_ONCE }, { "always", ATTY_ALWAYS },
                { "no", ATTY_DENY }, { "never", ATTY_NEVER },
        };
        size_t n;

        while (*line == ' ' || *line == '\t')
                line++;
        n = strcspn(line, " \t\r\n");
        if (line[n + strspn(line + n, " \t\r\n")] != '\0')
                return ATTY_NO_ANSWER; /* more than one word */
        /* The letters: n and N are different answers, so they are exact. */
        if (n == 1)
                switch (line[0]) {
                case 'y': case 'Y': return ATTY_ONCE;
                case 'a': case 'A': return ATTY_ALWAYS;
                case 'n': return ATTY_DENY;
                case 'N': return ATTY_NEVER;
                default: return ATTY_NO_ANSWER;
                }
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
                if (strlen(words[i].word) == n && strncasecmp(line, words[i].word, n) == 0)
                        return words[i].a;
        return ATTY_NO_ANSWER;
}

/* ---- the session: handlers, then the terminal mode ------------------------ */

/* The signals are blocked for the whole session and unblocked only inside
 * ppoll, atomically: one that comes between two waits stays pending until
 * the next, instead of being handled just before a wait that would then
 * sleep until the timeout.  The supervisor blocks them too while the
 * command runs (it reads them from a signalfd); while we wait, they come to
 * us, and are raised again when the session ends. */
static int catch_signals(struct tty_session *t)
{
        struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: ppoll must see EINTR */
        sigset_t ours;

        caught_signal = 0;
        if (sigemptyset(&sa.sa_mask) < 0 || sigemptyset(&ours) < 0)
                return -errno;
        for (size_t i = 0; i < N_CAUGHT; i++)
                if (sigaddset(&ours, caught[i]) < 0)
                        return -errno;
        if (!HAVE_PPOLL) {
                if (pipe(t->sigpipe) < 0)
                        return -errno;
                for (int i = 0; i < 2; i++)
                        if (fcntl(t->sigpipe[i], F_SETFD, FD_CLOEXEC) < 0 ||
                            fcntl(t->sigpipe[i], F_SETFL, O_NONBLOCK) < 0)
                                return -errno;
                signal_wfd = t->sigpipe[1];
        }
        if (HAVE_PPOLL && sigprocmask(SIG_BLOCK, &ours, &t->oldmask) < 0)
                return -errno;
        t->mask_set = HAVE_PPOLL;
        t->waitmask = t->oldmask;
        for (size_t i = 0; i < N_CAUGHT; i++) {
                if (sigdelset(&t->waitmask, caught[i]) < 0 || sigaction(caught[i], &sa, &t->old[i]) < 0)
                        return -errno;
                t->n_handlers = i + 1;
        }
        /* Without ppoll the signals are unblocked for the session, once the
         * handlers are there (one already pending is caught right now): the
         * pipe, not the mask, keeps one from being missed. */
        if (!HAVE_PPOLL) {
                if (sigprocmask(SIG_UNBLOCK, &ours, &t->oldmask) < 0)
                        return -errno;
                t->mask_set = true;
        }
        return 0;
}

/* Canonical input with echo and the usual key translations, whatever mode
 * the terminal was left in (a full-screen program, `stty raw`). */
static int set_line_mode(struct tty_session *t)
{
        struct termios m;

        if (tcgetattr(t->fd, &t->saved) < 0)
                return -errno;
        m = t->saved;
        m.c_lflag |= ICANON | ECHO | ECHOE | ECHOK | ISIG;
        m.c_lflag &= ~(tcflag_t) ECHONL;
        m.c_iflag |= ICRNL;
        m.c_iflag &= ~(tcflag_t) (INLCR | IGNCR);
        m.c_oflag |= OPOST | ONLCR;
        /* TCSAFLUSH also drops what was typed before the question was shown:
         * keys meant for something else must not answer it. */
        if (tcsetattr(t->fd, TCSAFLUSH, &m) < 0)
                return -errno;
        t->termios_set = true;
        return 0;
}

/* A job in the background must not take the terminal (SIGTTIN/SIGTTOU would
 * stop it, and the foreground job owns the keys): no terminal, then.  A
 * terminal that is not our controlling one (the tty argument) has no
 * foreground group of ours to compare; it is used as it is. */
static int check_foreground(int fd)
{
        pid_t fg = tcgetpgrp(fd);

        if (fg >= 0 && fg != getpgrp())
                return -EBUSY;
        return 0;
}

static void session_end(struct tty_session *t)
{
        int sig = caught_signal;

        if (t->termios_set && tcsetattr(t->fd, TCSADRAIN, &t->saved) < 0)
                (void) tcsetattr(t->fd, TCSANOW, &t->saved); /* interrupted drain: no wait then */
        for (size_t i = t->n_handlers; i-- > 0;)
                (void) sigaction(caught[i], &t->old[i], NULL); /* a valid signal and action: cannot fail */
        if (t->mask_set)
                (void) sigprocmask(SIG_SETMASK, &t->oldmask, NULL); /* a valid set: cannot fail */
        if (t->fd >= 0)
                (void) close(t->fd); /* written data went out with the drain */
        signal_wfd = -1; /* before the close: a handler never writes to a reused number */
        for (int i = 0; i < 2; i++)
                if (t->sigpipe[i] >= 0)
                        (void) close(t->sigpipe[i]);
        *t = (struct tty_session) { .fd = -1, .sigpipe = { -1, -1 } };
        /* Now that the terminal is as it was: the signal takes its course
         * (ends stockade, or, blocked, reaches the supervisor's signalfd). */
        if (sig)
                (void) raise(sig);
}

static int session_begin(struct tty_session *t, const char *path)
{
        int r;

        *t = (struct tty_session) { .fd = -1, .sigpipe = { -1, -1 } };
        t->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (t->fd < 0)
                return -errno;
        r = isatty(t->fd) ? check_foreground(t->fd) : -ENOTTY;
        if (r >= 0)
                r = catch_signals(t);
        if (r >= 0)
                r = set_line_mode(t);
        if (r < 0)
                session_end(t);
        return r;
}

/* ---- reading and writing with a deadline ---------------------------------- */

static long ms_left(const struct timespec *deadline)
{
        struct timespec now;

        if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
                return 0; /* no clock: no more time (DENY) */
        return (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
}

/* Wait for `events` on the terminal; -ETIMEDOUT, -EINTR (a caught signal). */
static int wait_for(struct tty_session *t, short events, const struct timespec *deadline)
{
        for (;;) {
                long ms = ms_left(deadline);
                struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
                int k;

                if (ms <= 0)
                        return -ETIMEDOUT;
#if HAVE_PPOLL
                struct pollfd p = { .fd = t->fd, .events = events };
                k = ppoll(&p, 1, &ts, &t->waitmask);
#else
                /* select, not poll: macOS's poll(2) does not support
                 * devices, and says POLLNVAL for a terminal. */
                struct pollfd p = { .fd = t->fd };
                fd_set rd, wr;
                struct timeval tv = { ts.tv_sec, ts.tv_nsec / 1000 };
                int top = t->fd > t->sigpipe[0] ? t->fd : t->sigpipe[0];

                if (top >= FD_SETSIZE)
                        return -EMFILE;
                FD_ZERO(&rd);
                FD_ZERO(&wr);
                FD_SET(t->sigpipe[0], &rd);
                FD_SET(t->fd, events & POLLOUT ? &wr : &rd);
                k = select(top + 1, &rd, &wr, NULL, &tv);
                if (k > 0 && FD_ISSET(t->fd, events & POLLOUT ? &wr : &rd))
                        p.revents = events;
                else if (k > 0)
                        k = 0; /* only the pipe: caught_signal says the rest */
#endif
                if (k < 0 && errno == EINTR && !caught_signal)
                        continue;
                if (k < 0)
                        return -errno;
                if (caught_signal)
                        return -EINTR;
                if (k > 0 && (p.revents & events))
                        return 0;
                if (k > 0)
                        return -EIO; /* hung up, error */
        }
}

static int tty_write(struct tty_session *t, const char *s, const struct timespec *deadline)
{
        size_t n = strlen(s);

        while (n > 0) {
                ssize_t k = write(t->fd, s, n);
                int r;

                if (k >= 0) {
                        s += k;
                        n -= (size_t) k;
                        continue;
                }
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                r = wait_for(t, POLLOUT, deadline); /* output stopped (^S): not for ever */
                if (r < 0)
                        return r;
        }
        return 0;
}

/* One line from the terminal (a too long one is cut, not split into two). */
static int read_line(struct tty_session *t, char *buf, size_t size, const struct timespec *deadline)
{
        size_t n = 0;
        bool cut = false;

        for (;;) {
                int r = wait_for(t, POLLIN, deadline);
                ssize_t k;

                if (r < 0)
                        return r;
                k = read(t->fd, buf + n, size - 1 - n);
                if (k < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EPIPE; /* ^D: end of input, no answer */
                n += (size_t) k;
                buf[n] = '\0';
                if (memchr(buf, '\n', n)) {
                        if (cut)
                                buf[0] = '\0';
                        return 0;
                }
                if (n == size - 1) {
                        cut = true;
                        n = 0;
                }
        }
}

/* ---- the question ----------------------------------------------------------- */

static int converse(struct tty_session *t, const char *question, const char *again, int timeout_s,
                    enum atty_answer *ret)
{
        struct timespec deadline;
        char line[256];
        int r;

        if (clock_gettime(CLOCK_MONOTONIC, &deadline) < 0)
                return -errno;
        deadline.tv_sec += timeout_s;
        r = tty_write(t, question, &deadline);
        while (r >= 0) {
                r = read_line(t, line, sizeof(line), &deadline);
                if (r < 0)
                        break;
                *ret = atty_parse_answer(line);
                if (*ret != ATTY_NO_ANSWER)
                        return 0;
                r = tty_write(t, "Please answer with one word. ", &deadline);
                if (r >= 0)
                        r = tty_write(t, again, &deadline);
        }
        *ret = ATTY_NO_ANSWER;
        if (r == -ETIMEDOUT) {
                struct timespec grace;
                char msg[96];

                /* The last words need a deadline of their own. */
                if (clock_gettime(CLOCK_MONOTONIC, &grace) == 0) {
                        grace.tv_sec += 1;
                        snprintf(msg, sizeof(msg), "\nno answer within %d s: denied\n", timeout_s);
                        (void) tty_write(t, msg, &grace); /* best effort: the DENY stands anyway */
                }
        }
        /* No answer is an answer: DENY.  Only a failing terminal is an error. */
        return r == -ETIMEDOUT || r == -EPIPE || r == -EINTR || r == -EIO ? 0 : r;
}

int atty_ask(const char *tty_path, const char *question, const char *again, int timeout_s, enum atty_answer *ret)
{
        struct tty_session t;
        int r;

        *ret = ATTY_NO_ANSWER;
        r = session_begin(&t, tty_path);
        if (r < 0)
                return r;
        r = converse(&t, question, again, timeout_s, ret);
        session_end(&t);
        return r;
}

void atty_tell(const char *tty_path, const char *text)
{
        int fd = open(tty_path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

        if (fd < 0)
                return;
        /* One short line, best effort: what was decided stands without it. */
        (void) !write(fd, text, strlen(text));
        (void) close(fd);
}
