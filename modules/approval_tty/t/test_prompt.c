/* SPDX-License-Identifier: MIT */
/*
 * approval_tty's hook through a fake host, on a pseudo-terminal given as the
 * `tty` argument: the egress questions (no egress module of the tree asks
 * one yet, so the shell tests cannot), answers, type-ahead, memory, the
 * state file the sandbox could write.  Also the answer words and the text.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "approval_tty_internal.h"
#include "unit.h"

extern const struct stk_module stockade_module;

static struct {
        struct stk_settings s;
        const char *write[3];
        char tty[128];
        char state[256];
        long long timeout;
        char log[8192];
} F;

static void __attribute__((format(printf, 3, 4))) f_log(struct stk_ctx *c, enum stk_log_level l, const char *fmt, ...)
{
        size_t n = strlen(F.log);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(F.log + n, sizeof(F.log) - n, fmt, ap);
        va_end(ap);
        n = strlen(F.log);
        snprintf(F.log + n, sizeof(F.log) - n, "\n");
}
static const char *f_string(struct stk_ctx *c, const char *n)
{
        if (strcmp(n, "tty") == 0)
                return F.tty[0] ? F.tty : NULL;
        return strcmp(n, "state_file") == 0 && F.state[0] ? F.state : NULL;
}
static long long f_int(struct stk_ctx *c, const char *n, long long dflt)
{
        return strcmp(n, "timeout") == 0 && F.timeout ? F.timeout : dflt;
}
static const struct stk_settings *f_settings(struct stk_ctx *c) { return &F.s; }

static const struct stk_host fake_host = {
        .size = sizeof(struct stk_host), .abi_minor = STK_ABI_MINOR, .log = f_log,
        .arg_string = f_string, .arg_int = f_int, .settings = f_settings,
};

static char tmp[64];
static int master = -1, slave = -1;

/* A fresh pty (its slave is the `tty` argument), a temp dir, the fake host. */
static void setup(void)
{
        void *data;

        memset(&F, 0, sizeof(F));
        snprintf(tmp, sizeof(tmp), "/tmp/stk-atty-unit.XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
        master = posix_openpt(O_RDWR | O_NOCTTY); /* macOS takes no O_CLOEXEC here */
        CU_ASSERT_TRUE_FATAL(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
        CU_ASSERT_EQUAL_FATAL(fcntl(master, F_SETFD, FD_CLOEXEC), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ptsname(master));
        snprintf(F.tty, sizeof(F.tty), "%s", ptsname(master));
        /* Held open for the whole test, as a terminal would be: what is typed
         * before the prompt opens it stays in its input queue. */
        slave = open(F.tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
        CU_ASSERT_TRUE_FATAL(slave >= 0);
        snprintf(F.state, sizeof(F.state), "%s/state/approvals", tmp);
        F.write[0] = "/nonexistent-ws";
        F.s = (struct stk_settings) { .size = sizeof(F.s), .profile = "default", .write = F.write, .home = "/root",
                                      .approval_tty = 1 };
        F.timeout = 5;
        CU_ASSERT_EQUAL_FATAL(stockade_module.init(NULL, &fake_host, &data), 0);
}

static void teardown(void)
{
        char cmd[128];

        close(master);
        close(slave);
        master = slave = -1;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The human: a child that waits for the prompt on the master and types. */
static pid_t answerer(const char *answer)
{
        pid_t pid = fork();
        char seen[4096];
        size_t n = 0;

        CU_ASSERT_TRUE_FATAL(pid >= 0);
        if (pid > 0)
                return pid;
        for (int i = 0; i < 100; i++) {
                struct pollfd p = { .fd = master, .events = POLLIN };
                ssize_t k;

                if (poll(&p, 1, 100) <= 0 || (k = read(master, seen + n, sizeof(seen) - 1 - n)) <= 0)
                        continue;
                n += (size_t) k;
                seen[n] = '\0';
                if (strstr(seen, ATTY_PROMPT)) {
                        _exit(write(master, answer, strlen(answer)) == (ssize_t) strlen(answer) ? 0 : 1);
                }
        }
        _exit(2); /* no prompt */
}

static int reap(pid_t pid)
{
        int st;

        CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static enum stk_verdict ask_egress(const char *host, uint16_t port)
{
        struct stk_egress e = { host, port, "connect", 4242 };
        struct stk_question q = { .kind = STK_QUESTION_EGRESS, .egress = &e, .reason = "net_proxy" };
        enum stk_verdict v = STK_VERDICT_UNSET;

        CU_ASSERT_EQUAL(stockade_module.approve(NULL, &q, &v), 0);
        return v;
}

static bool state_has(const char *line)
{
        char buf[4096] = "";
        int fd = open(F.state, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

        if (fd >= 0)
                close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return strstr(buf, line) != NULL;
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_parse_answer(void)
{
        static const struct { const char *in; enum atty_answer want; } t[] = {
                { "y\n", ATTY_ONCE }, { "Y", ATTY_ONCE }, { " yes \n", ATTY_ONCE }, { "Once", ATTY_ONCE },
                { "a", ATTY_ALWAYS }, { "ALWAYS\n", ATTY_ALWAYS },
                { "n\n", ATTY_DENY }, { "no", ATTY_DENY }, { "No", ATTY_DENY },
                { "N\n", ATTY_NEVER }, { "never", ATTY_NEVER }, { "NEVER", ATTY_NEVER },
                { "", ATTY_NO_ANSWER }, { "\n", ATTY_NO_ANSWER }, { "yy", ATTY_NO_ANSWER }, { "y n", ATTY_NO_ANSWER },
                { "x", ATTY_NO_ANSWER }, { "yes please", ATTY_NO_ANSWER }, { "nope", ATTY_NO_ANSWER },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                CU_ASSERT_EQUAL(atty_parse_answer(t[i].in), t[i].want);
                if (atty_parse_answer(t[i].in) != t[i].want)
                        fprintf(stderr, "answer [%s]\n", t[i].in);
        }
}

static void test_question_text(void)
{
        const char *argv[] = { "printf", "\x1b[2J\x1b[Hall fine", NULL };
        struct stk_request req = { argv, "/ws", "default" };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = "perm\x1b]0;x" };
        struct stk_egress e = { "::1", 8080, "socks5", 0 };
        char *t = NULL;

        CU_ASSERT_EQUAL_FATAL(atty_question_text(&q, 30, &t), 0);
        /* nothing the terminal would obey but our own reset, first */
        CU_ASSERT_EQUAL(strncmp(t, ATTY_RESET, strlen(ATTY_RESET)), 0);
        CU_ASSERT_PTR_NULL(strchr(t + strlen(ATTY_RESET), '\x1b'));
        /* the line the answer is typed on names what it approves */
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nRun printf $'\\x1b[2J\\x1b[Hall fine'" ATTY_PROMPT " (30 s): "));
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "printf $'\\x1b[2J\\x1b[Hall fine'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "asked by perm\\x1b]0;x"));
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "in /ws, profile default"));
        CU_ASSERT_PTR_NOT_NULL(strstr(t, ATTY_PROMPT " (30 s): "));
        free(t);
        q = (struct stk_question) { .kind = STK_QUESTION_EGRESS, .egress = &e, .reason = "net_proxy" };
        CU_ASSERT_EQUAL_FATAL(atty_question_text(&q, 5, &t), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "    [::1]:8080 (socks5)\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nConnect to [::1]:8080" ATTY_PROMPT " (5 s): "));
        free(t);
}

static void test_egress_always_then_remembered(void)
{
        pid_t pid;
        time_t start;

        setup();
        pid = answerer("a\n");
        CU_ASSERT_EQUAL(ask_egress("Example.COM", 443), STK_ALLOW);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_TRUE(state_has("\nallow egress example.com:443\n"));
        /* next time: no prompt (nobody answers, and it is not a timeout) */
        F.timeout = 3;
        start = time(NULL);
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_ALLOW);
        CU_ASSERT_TRUE(time(NULL) - start < 2);
        /* another port is another destination */
        pid = answerer("n\n");
        CU_ASSERT_EQUAL(ask_egress("example.com", 8443), STK_DENY);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_FALSE(state_has("8443"));
        teardown();
}

static void test_egress_never(void)
{
        pid_t pid;

        setup();
        pid = answerer("never\n");
        CU_ASSERT_EQUAL(ask_egress("::1", 8080), STK_DENY);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_TRUE(state_has("\ndeny egress [::1]:8080\n"));
        CU_ASSERT_EQUAL(ask_egress("[::1]", 8080), STK_DENY);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "remembered \"never\""));
        teardown();
}

/* Keys typed before the question must not answer it. */
static void test_type_ahead_dropped(void)
{
        time_t start;
        int queued = 0;

        setup();
        CU_ASSERT_EQUAL(write(master, "y\n", 2), 2);
        /* The pty hands input over asynchronously: wait until the keys are
         * really queued on the terminal, as a user's long-typed ones are. */
        for (int i = 0; i < 100 && (ioctl(slave, FIONREAD, &queued) < 0 || queued == 0); i++)
                nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
        CU_ASSERT_EQUAL_FATAL(queued, 2);
        F.timeout = 1;
        start = time(NULL);
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_DENY);
        CU_ASSERT_TRUE(time(NULL) - start >= 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "no answer within 1 s"));
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "network.allow"));
        teardown();
}

static void test_state_beneath_writable_root(void)
{
        pid_t pid;
        struct stat st;

        setup();
        F.write[0] = tmp; /* the sandbox could write the state file: no memory */
        pid = answerer("a\n");
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_ALLOW);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_NOT_EQUAL(stat(F.state, &st), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "is beneath the writable root"));
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "applies to this run only"));
        teardown();
}

static void test_no_terminal(void)
{
        time_t start = time(NULL);

        setup();
        /* no terminal: passed on (the core denies and says what answers
         * without one), at once */
        snprintf(F.tty, sizeof(F.tty), "%s/no-such-tty", tmp);
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_IGNORE);
        CU_ASSERT_TRUE(time(NULL) - start < 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "no terminal to ask on"));
        /* a file that is no terminal is none either */
        snprintf(F.tty, sizeof(F.tty), "/dev/null");
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_IGNORE);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "Inappropriate ioctl"));
        teardown();
}

/* An egress question comes while the supervisor has the signals blocked
 * (it reads them from a signalfd).  One that is pending, or comes during
 * the prompt, ends it at once with DENY and is still pending afterwards for
 * the supervisor to forward. */
static void test_blocked_signal_ends_prompt(void)
{
        sigset_t term, old, pending;
        time_t start;
        int got = 0;

        setup();
        F.timeout = 5;
        CU_ASSERT_EQUAL(sigemptyset(&term), 0);
        CU_ASSERT_EQUAL(sigaddset(&term, SIGTERM), 0);
        CU_ASSERT_EQUAL_FATAL(sigprocmask(SIG_BLOCK, &term, &old), 0);
        CU_ASSERT_EQUAL(raise(SIGTERM), 0);
        start = time(NULL);
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_DENY);
        CU_ASSERT_TRUE(time(NULL) - start < 2);
        CU_ASSERT_EQUAL(sigpending(&pending), 0);
        CU_ASSERT_EQUAL(sigismember(&pending, SIGTERM), 1);
        CU_ASSERT_EQUAL(sigwait(&term, &got), 0); /* consume it: it was ours (pending: no wait) */
        CU_ASSERT_EQUAL(got, SIGTERM);
        CU_ASSERT_EQUAL(sigprocmask(SIG_SETMASK, &old, NULL), 0);
        teardown();
}

static void test_unrememberable_host(void)
{
        pid_t pid;
        struct stat st;

        setup();
        pid = answerer("a\n");
        CU_ASSERT_EQUAL(ask_egress("bad host\x1b", 443), STK_ALLOW);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_NOT_EQUAL(stat(F.state, &st), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(F.log, "not a host name or address"));
        teardown();
}

/* What the master shows from now on, for up to 2 s or until `want` shows. */
static bool master_shows(const char *want)
{
        char buf[8192];
        size_t n = 0;

        for (int i = 0; i < 20 && n < sizeof(buf) - 1; i++) {
                struct pollfd p = { .fd = master, .events = POLLIN };
                ssize_t k;

                if (poll(&p, 1, 100) <= 0 || (k = read(master, buf + n, sizeof(buf) - 1 - n)) <= 0)
                        continue;
                n += (size_t) k;
                buf[n] = '\0';
                if (strstr(buf, want))
                        return true;
        }
        return false;
}

/* The answer is said back with what it approves (issue 21 §2). */
static void test_answer_confirmed(void)
{
        pid_t pid;

        setup();
        pid = answerer("a\n");
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_ALLOW);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_TRUE(master_shows("stockade: allowed always: connect to example.com:443 (remembered in "));
        pid = answerer("n\n");
        CU_ASSERT_EQUAL(ask_egress("example.org", 80), STK_DENY);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_TRUE(master_shows("stockade: denied: connect to example.org:80\r\n"));
        teardown();
}

/* approval.tty off (or auto in an agent's session): the line passes every
 * question on, asks nothing, and a remembered answer does not count. */
static void test_tty_off(void)
{
        pid_t pid;

        setup();
        pid = answerer("a\n");
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_ALLOW);
        CU_ASSERT_EQUAL(reap(pid), 0);
        CU_ASSERT_TRUE(master_shows("remembered in"));
        F.s.approval_tty = 0;
        CU_ASSERT_EQUAL(ask_egress("example.com", 443), STK_IGNORE);
        CU_ASSERT_EQUAL(ask_egress("example.net", 443), STK_IGNORE);
        CU_ASSERT_FALSE(master_shows(ATTY_PROMPT));
        teardown();
}

static void test_bad_args(void)
{
        uint32_t covers;

        setup();
        F.timeout = 100000;
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EINVAL);
        F.timeout = 5;
        snprintf(F.state, sizeof(F.state), "relative/approvals");
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), -EINVAL);
        snprintf(F.state, sizeof(F.state), "%s/state/approvals", tmp);
        CU_ASSERT_EQUAL(stockade_module.probe(NULL, &covers), 0);
        CU_ASSERT_EQUAL(covers, 0);
        teardown();
}

UNIT_SUITE(approval_tty,
           UNIT_TEST(test_parse_answer),
           UNIT_TEST(test_question_text),
           UNIT_TEST(test_egress_always_then_remembered),
           UNIT_TEST(test_egress_never),
           UNIT_TEST(test_type_ahead_dropped),
           UNIT_TEST(test_state_beneath_writable_root),
           UNIT_TEST(test_no_terminal),
           UNIT_TEST(test_blocked_signal_ends_prompt),
           UNIT_TEST(test_unrememberable_host),
           UNIT_TEST(test_answer_confirmed),
           UNIT_TEST(test_tty_off),
           UNIT_TEST(test_bad_args))
