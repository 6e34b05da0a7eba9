/* SPDX-License-Identifier: MIT */
/*
 * approval_exec's hooks with a fake host: the arguments are checked, the
 * approver gets the question (command and egress) on stdin and nothing of
 * ours (environment, fds), and every way an approver can fail (timeout,
 * exit status, signal, garbage, a flood) is a DENY with a log line.  The
 * real core drives it in t/approval_exec.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "approval_exec_internal.h"
#include "unit.h"

/* The core's context is opaque to modules; the test makes its own. */
struct stk_ctx {
        const char *program;
        const char *setting;    /* approval.exec */
        const char *const *args;
        long long timeout;
        char log[8192];
};

static const char *const no_args[] = { NULL };

static void fake_log(struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
{
        size_t n = strlen(ctx->log);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(ctx->log + n, sizeof(ctx->log) - n, fmt, ap);
        va_end(ap);
        n = strlen(ctx->log);
        if (n + 1 < sizeof(ctx->log))
                strcat(ctx->log, "\n");
}

static const char *fake_arg_string(struct stk_ctx *ctx, const char *name)
{
        return strcmp(name, "program") == 0 ? ctx->program : NULL;
}

static const char *const *fake_arg_list(struct stk_ctx *ctx, const char *name)
{
        return strcmp(name, "args") == 0 && ctx->args ? ctx->args : no_args;
}

static long long fake_arg_int(struct stk_ctx *ctx, const char *name, long long dflt)
{
        return strcmp(name, "timeout") == 0 && ctx->timeout ? ctx->timeout : dflt;
}

static const struct stk_settings *fake_settings(struct stk_ctx *ctx)
{
        static const char *const none[] = { NULL };
        static struct stk_settings s;

        s = (struct stk_settings) { .size = sizeof(s), .profile = "unit", .write = none, .read_only = none,
                                    .hide = none, .net_allow = none, .net_deny = none,
                                    .approval_exec = ctx ? ctx->setting : NULL };
        return &s;
}

static const struct stk_host fake_host = {
        .size = sizeof(struct stk_host),
        .abi_minor = STK_ABI_MINOR,
        .log = fake_log,
        .arg_string = fake_arg_string,
        .arg_list = fake_arg_list,
        .arg_int = fake_arg_int,
        .settings = fake_settings,
};

static char dir[64];

/* An approver script in the test's directory: #!/bin/sh and `body`. */
static const char *script(const char *name, const char *body)
{
        static char path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fprintf(f, "#!/bin/sh\n%s\n", body);
        CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
        CU_ASSERT_EQUAL_FATAL(chmod(path, 0755), 0);
        return path;
}

static char *slurp(const char *name)
{
        char path[128], *buf = calloc(1, 1 << 20);
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "r");
        if (!f || !buf) {
                free(buf);
                return NULL;
        }
        (void) !fread(buf, 1, (1 << 20) - 1, f);
        fclose(f);
        return buf;
}

static int suite_dir(void)
{
        snprintf(dir, sizeof(dir), "/tmp/aexec-unit.XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static enum stk_verdict ask_command(struct stk_ctx *ctx, const char *const *argv)
{
        struct stk_request req = { argv, "/work", "unit" };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = "t_unit" };
        enum stk_verdict v = STK_VERDICT_UNSET;
        void *data;

        CU_ASSERT_EQUAL_FATAL(stockade_module.init(ctx, &fake_host, &data), 0);
        CU_ASSERT_EQUAL(stockade_module.approve(ctx, &q, &v), 0);
        return v;
}

static const char *const true_argv[] = { "true", NULL };

static void test_init_refuses(void)
{
        struct stk_ctx ctx = { 0 };
        uint32_t covers = 1;
        void *data;

        if (suite_dir() < 0)
                CU_FAIL_FATAL("mkdtemp");
        ctx = (struct stk_ctx) { .program = "sh" };
        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "not an absolute path"));
        ctx = (struct stk_ctx) { .program = "/nonexistent/approver" };
        CU_ASSERT_EQUAL(stockade_module.probe(&ctx, &covers), -EINVAL);
        CU_ASSERT_EQUAL(covers, 0);
        ctx = (struct stk_ctx) { .program = script("gw", "exit 0") };
        CU_ASSERT_EQUAL_FATAL(chmod(ctx.program, 0775), 0);
        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "writable by group or others"));
        ctx = (struct stk_ctx) { .program = script("ok", "exit 0"), .timeout = 3601 };
        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "timeout 3601"));
        ctx.timeout = -1;
        CU_ASSERT_EQUAL(stockade_module.probe(&ctx, &covers), -EINVAL);
        ctx.timeout = 0; /* the default */
        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), 0);
        CU_ASSERT_EQUAL(stockade_module.probe(&ctx, &covers), 0);
}

/* A line with no program and no approval.exec (the shipped profiles'
 * line until the user sets it) starts, and passes every question on
 * (issue 13 §5); the setting names the program, and the line's own
 * argument wins over it. */
static void test_unconfigured_ignores(void)
{
        struct stk_ctx ctx = { 0 };
        uint32_t covers = 1;
        void *data;
        char *text = NULL;

        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), 0);
        CU_ASSERT_EQUAL(stockade_module.probe(&ctx, &covers), 0);
        CU_ASSERT_EQUAL(covers, 0);
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_IGNORE);
        CU_ASSERT_STRING_EQUAL(ctx.log, "");
        CU_ASSERT_EQUAL(stockade_module.explain(&ctx, &text), 0);
        CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "set approval.exec"));
        free(text);
        ctx = (struct stk_ctx) { .setting = script("yes", "cat >/dev/null; echo '{\"verdict\":\"allow\"}'") };
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_ALLOW);
        ctx.program = script("no", "cat >/dev/null; echo '{\"verdict\":\"deny\"}'");
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_DENY);
        ctx = (struct stk_ctx) { .setting = "/nonexistent/approver" };
        CU_ASSERT_EQUAL(stockade_module.init(&ctx, &fake_host, &data), -EINVAL); /* configured but broken: 241 */
}

static void test_command_question(void)
{
        const char *const argv[] = { "git", "push", NULL };
        struct stk_ctx ctx = { .program = script("allow", "cat > \"$1\"; echo '{\"verdict\":\"allow\",\"reason\":\"ok\"}'") };
        char path[128], *q;

        snprintf(path, sizeof(path), "%s/question", dir);
        const char *const args[] = { path, NULL };
        ctx.args = args;
        CU_ASSERT_EQUAL(ask_command(&ctx, argv), STK_ALLOW);
        q = slurp("question");
        CU_ASSERT_PTR_NOT_NULL_FATAL(q);
        CU_ASSERT_STRING_EQUAL(q, "{\"stockade_question\":1,\"kind\":\"command\",\"argv\":[\"git\",\"push\"],"
                                  "\"cwd\":\"/work\",\"profile\":\"unit\",\"reason\":\"t_unit\"}");
        free(q);
}

static void test_egress_question(void)
{
        struct stk_ctx ctx = { .program = script("egress",
                "q=$(cat); case $q in *'\"kind\":\"egress\",\"host\":\"example.org\",\"port\":8443,'*) "
                "echo '{\"verdict\":\"deny\",\"reason\":\"no egress\"}';; *) echo \"$q\";; esac") };
        struct stk_egress e = { "example.org", 8443, "connect", 77 };
        struct stk_question q = { .kind = STK_QUESTION_EGRESS, .egress = &e, .reason = "t_unit" };
        enum stk_verdict v = STK_VERDICT_UNSET;
        void *data;

        CU_ASSERT_EQUAL_FATAL(stockade_module.init(&ctx, &fake_host, &data), 0);
        CU_ASSERT_EQUAL(stockade_module.approve(&ctx, &q, &v), 0);
        CU_ASSERT_EQUAL(v, STK_DENY);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "deny: no egress")); /* not "malformed" */
}

static void test_ignore_passes_on(void)
{
        struct stk_ctx ctx = { .program = script("ignore", "echo '{\"verdict\":\"ignore\"}'") };

        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_IGNORE);
}

/* Every failure of the approver is a DENY, and the log says which. */
static void test_failures_deny(void)
{
        static const struct { const char *body; const char *log; } cases[] = {
                { "echo '{\"verdict\":\"allow\"}'; exit 3", "exited with status 3" },
                { "echo '{\"verdict\":\"allow\"}'; kill -9 $$", "killed by signal 9" },
                { "echo 'sure, go ahead'", "malformed verdict (not one JSON value" },
                { "printf '{\"verdict\":\"allow\"}\\n{\"verdict\":\"allow\"}'", "trailing bytes" },
                { "echo '{\"verdict\":\"Allow\"}'", "unknown verdict \"Allow\"" },
                { "true", "empty reply" },
                { "head -c 100000 /dev/zero | tr '\\0' a", "more than 65536 bytes" },
                { "exec 1>&-; sleep 0.1", "empty reply" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct stk_ctx ctx = { .program = script("fail", cases[i].body) };
                CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_DENY);
                if (!strstr(ctx.log, cases[i].log))
                        fprintf(stderr, "\n  case %zu: no \"%s\" in: %s", i, cases[i].log, ctx.log);
                CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, cases[i].log));
        }
}

static double seconds_since(const struct timespec *t0)
{
        struct timespec t1;

        clock_gettime(CLOCK_MONOTONIC, &t1);
        return (double) (t1.tv_sec - t0->tv_sec) + (double) (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Gone, or a zombie waiting for whoever inherited it. */
static int process_gone(pid_t pid)
{
        char path[64], *stat;
        FILE *f;
        int gone;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        f = fopen(path, "r");
        if (!f)
                return 1;
        stat = calloc(1, 512);
        gone = stat && fread(stat, 1, 511, f) > 0 && strrchr(stat, ')') && strrchr(stat, ')')[2] == 'Z';
        fclose(f);
        free(stat);
        return gone;
}

/* Past the deadline: DENY on time, and the approver's whole process group
 * (here a sleep it started) is killed. */
static void test_timeout_kills(void)
{
        struct stk_ctx ctx = { .timeout = 1 };
        struct timespec t0;
        char *pid;

        ctx.program = script("slow", "sleep 30 & echo $! > \"$0.pid\"; wait");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_DENY);
        CU_ASSERT(seconds_since(&t0) < 3.0);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "no verdict within 1 s; killed pid"));
        pid = slurp("slow.pid");
        CU_ASSERT_PTR_NOT_NULL_FATAL(pid);
        usleep(100000);
        CU_ASSERT(atoi(pid) > 0 && process_gone(atoi(pid)));
        free(pid);
}

/* An approver that answers and leaves a process behind holding stdout:
 * the answer counts, the leftover is killed, nobody waits for it. */
static void test_leftover_killed(void)
{
        struct stk_ctx ctx = { .timeout = 5 };
        struct timespec t0;
        char *pid;

        ctx.program = script("left", "sleep 30 & echo $! > \"$0.pid\"; echo '{\"verdict\":\"allow\"}'");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_ALLOW);
        CU_ASSERT(seconds_since(&t0) < 2.0);
        pid = slurp("left.pid");
        CU_ASSERT_PTR_NOT_NULL_FATAL(pid);
        usleep(100000);
        CU_ASSERT(atoi(pid) > 0 && process_gone(atoi(pid)));
        free(pid);
}

/* Nothing of ours reaches it: not our environment, not our fds. */
static void test_environment_and_fds(void)
{
        struct stk_ctx ctx = { .program = script("env",
                "env > \"$0.env\"; ls /proc/self/fd > \"$0.fds\"; echo '{\"verdict\":\"allow\"}'") };
        int null = open("/dev/null", O_RDONLY);
        int fd = fcntl(null, F_DUPFD, 50); /* no FD_CLOEXEC: an fd a careless core leaked */
        char name[16], *env, *fds;

        CU_ASSERT_FATAL(fd > 2);
        setenv("STK_UNIT_SECRET", "hunter2", 1);
        CU_ASSERT_EQUAL(ask_command(&ctx, true_argv), STK_ALLOW);
        unsetenv("STK_UNIT_SECRET");
        env = slurp("env.env");
        fds = slurp("env.fds");
        CU_ASSERT_PTR_NOT_NULL_FATAL(env);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fds);
        CU_ASSERT_PTR_NULL(strstr(env, "STK_UNIT_SECRET"));
        CU_ASSERT_PTR_NOT_NULL(strstr(env, "PATH=/usr/local/bin:/usr/bin:/bin"));
        snprintf(name, sizeof(name), "\n%d\n", fd);
        CU_ASSERT_PTR_NULL(strstr(fds, name));
        CU_ASSERT_STRING_EQUAL(fds, "0\n1\n2\n3\n"); /* 3: ls reading the directory */
        close(fd);
        close(null);
        free(env);
        free(fds);
}

/* A question bigger than a pipe buffer, to an approver that never reads
 * it: no deadlock, no SIGPIPE (it would kill the test), its answer counts. */
static void test_unread_big_question(void)
{
        struct stk_ctx ctx = { .program = script("noread", "echo '{\"verdict\":\"allow\"}'"), .timeout = 5 };
        char *big = malloc(300000);
        const char *argv[] = { "echo", big, NULL };

        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        memset(big, 'x', 299999);
        big[299999] = '\0';
        CU_ASSERT_EQUAL(ask_command(&ctx, argv), STK_ALLOW);
        ctx = (struct stk_ctx) { .program = script("readall", "n=$(wc -c); echo \"{\\\"verdict\\\":\\\"allow\\\","
                                                              "\\\"reason\\\":\\\"$n\\\"}\""), .timeout = 5 };
        struct stk_request req = { argv, "/work", "unit" };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = "t_unit" };
        char *text = NULL, want[64];
        CU_ASSERT_EQUAL_FATAL(stk_question_json_encode(&q, NULL, &text), 0);
        snprintf(want, sizeof(want), "allow: %zu\n", strlen(text));
        CU_ASSERT_EQUAL(ask_command(&ctx, argv), STK_ALLOW);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, want)); /* every byte arrived */
        free(text);
        free(big);
}

static void test_cannot_encode(void)
{
        const char *const argv[] = { "echo", "\xff", NULL };
        struct stk_ctx ctx = { .program = script("never", "echo '{\"verdict\":\"allow\"}'") };

        CU_ASSERT_EQUAL(ask_command(&ctx, argv), STK_DENY);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "cannot put the question into JSON"));
}

static void test_cleanup(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CU_ASSERT_EQUAL(system(cmd), 0);
}

UNIT_SUITE(approval_exec,
           UNIT_TEST(test_init_refuses),
           UNIT_TEST(test_unconfigured_ignores),
           UNIT_TEST(test_command_question),
           UNIT_TEST(test_egress_question),
           UNIT_TEST(test_ignore_passes_on),
           UNIT_TEST(test_failures_deny),
           UNIT_TEST(test_timeout_kills),
           UNIT_TEST(test_leftover_killed),
           UNIT_TEST(test_environment_and_fds),
           UNIT_TEST(test_unread_big_question),
           UNIT_TEST(test_cannot_encode),
           UNIT_TEST(test_cleanup))
