/* SPDX-License-Identifier: MIT */
/*
 * The run_command tool of `stockade mcp` (MCP 2025-11-25, "Server
 * Features: Tools").  Each call is one confined run under the server's
 * profile: the warm session's run (core/run/warm.c: policy files checked
 * by identity, protected paths re-scanned), the permission phase in the
 * server, then a
 * fork of the server runs the pre-exec phase and supervises the command,
 * its stdout and stderr in pipes we read while watching the client: a
 * client that cancels or goes away ends the command, and the fork dies
 * with the server (its keeper then ends the command), so no command
 * outlives the server.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "cli.h"
#include "mcp.h"
#include "common/stk_buf.h"
#include "common/stk_time.h"
#include "os/os.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

#define OUTPUT_MAX (256u << 10)     /* bytes of stdout, and of stderr, kept per call */
#define TIMEOUT_DEFAULT 600
#define TIMEOUT_MAX 86400
#define KILL_GRACE_MS 2000

struct call_args {
        char **argv;
        const char *cwd, *stdin_text;
        long long timeout_s;
};

struct json_object *mcp_tools_list(void)
{
        static const char schema[] =
                "{\"type\":\"object\",\"properties\":{"
                "\"command\":{\"type\":\"string\",\"description\":\"a shell command line, run by bash -c\"},"
                "\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"
                "\"description\":\"the program and its arguments, instead of command\"},"
                "\"cwd\":{\"type\":\"string\",\"description\":\"working directory, inside the workspace "
                "(relative to it, or absolute)\"},"
                "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400,\"description\":\"seconds "
                "(default 600); then the command is ended\"},"
                "\"stdin\":{\"type\":\"string\",\"description\":\"the command's standard input (default: empty)\"}},"
                "\"additionalProperties\":false}";
        struct json_object *tools = json_object_new_array(), *t = json_object_new_object(), *r;

        json_object_object_add(t, "name", json_object_new_string("run_command"));
        json_object_object_add(t, "title", json_object_new_string("Run a command in the stockade sandbox"));
        json_object_object_add(t, "description", json_object_new_string(
                "Runs a shell command (or an argv) in the workspace, inside stockade's sandbox.  Returns the exit "
                "status, stdout and stderr (each cut at 256 KiB, with a flag), and, when the policy refused "
                "the command, the verdict and the module that decided."));
        json_object_object_add(t, "inputSchema", json_tokener_parse(schema));
        json_object_array_add(tools, t);
        r = json_object_new_object();
        json_object_object_add(r, "tools", tools);
        return r;
}

/* ---- arguments ----------------------------------------------------------- */

static const char *want_string(struct json_object *args, const char *key, const char **ret)
{
        struct json_object *v;

        *ret = NULL;
        if (!json_object_object_get_ex(args, key, &v))
                return NULL;
        if (!json_object_is_type(v, json_type_string))
                return "must be a string";
        *ret = json_object_get_string(v);
        return NULL;
}

static const char *parse_argv(struct json_object *args, char ***ret)
{
        struct json_object *cmd = NULL, *av = NULL;
        bool has_cmd = json_object_object_get_ex(args, "command", &cmd);
        bool has_av = json_object_object_get_ex(args, "argv", &av);
        const char *shell = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";

        if (has_cmd == has_av)
                return "give exactly one of \"command\" (a string) and \"argv\" (an array of strings)";
        if (has_cmd) {
                if (!json_object_is_type(cmd, json_type_string))
                        return "\"command\" must be a string";
                if (strv_push(ret, shell) < 0 || strv_push(ret, "-c") < 0 ||
                    strv_push(ret, json_object_get_string(cmd)) < 0)
                        return "out of memory";
                return NULL;
        }
        if (!json_object_is_type(av, json_type_array) || json_object_array_length(av) == 0)
                return "\"argv\" must be a non-empty array of strings";
        for (size_t i = 0; i < json_object_array_length(av); i++) {
                struct json_object *w = json_object_array_get_idx(av, i);
                if (!json_object_is_type(w, json_type_string))
                        return "\"argv\" must be a non-empty array of strings";
                if (strv_push(ret, json_object_get_string(w)) < 0)
                        return "out of memory";
        }
        return NULL;
}

static const char *parse_args(struct json_object *params, struct call_args *a)
{
        static const char *const keys[] = { "command", "argv", "cwd", "timeout", "stdin", NULL };
        struct json_object *args = NULL, *name = NULL, *t;
        const char *why;

        if (!params || !json_object_object_get_ex(params, "name", &name) || !json_object_is_type(name, json_type_string))
                return "params.name (a string) is missing";
        if (!streq(json_object_get_string(name), "run_command"))
                return "unknown tool; the only tool is run_command";
        if (!json_object_object_get_ex(params, "arguments", &args) || !json_object_is_type(args, json_type_object))
                return "params.arguments (an object) is missing";
        json_object_object_foreach(args, key, val) {
                (void) val;
                if (!strv_contains(keys, key))
                        return "an argument run_command does not take (it takes command, argv, cwd, timeout, stdin)";
        }
        if ((why = parse_argv(args, &a->argv)) || (why = want_string(args, "cwd", &a->cwd)) ||
            (why = want_string(args, "stdin", &a->stdin_text)))
                return why;
        a->timeout_s = TIMEOUT_DEFAULT;
        if (json_object_object_get_ex(args, "timeout", &t)) {
                if (!json_object_is_type(t, json_type_int) || json_object_get_int64(t) < 1 ||
                    json_object_get_int64(t) > TIMEOUT_MAX)
                        return "\"timeout\" must be an integer number of seconds, 1 to 86400";
                a->timeout_s = json_object_get_int64(t);
        }
        return NULL;
}

/* cwd inside the workspace, canonical; NULL with *ret_why. */
static char *resolve_cwd(const char *workspace, const char *cwd, const char **ret_why)
{
        _cleanup_free_ char *joined = NULL;
        char *canon;

        if (!cwd)
                return strdup(workspace);
        if (cwd[0] == '/' ? !(joined = strdup(cwd)) : asprintf(&joined, "%s/%s", workspace, cwd) < 0)
                return NULL;
        canon = realpath(joined, NULL);
        if (!canon) {
                *ret_why = "\"cwd\" does not exist";
                return NULL;
        }
        if (!stk_path_beneath(canon, workspace)) {
                *ret_why = "\"cwd\" is outside the workspace";
                free(canon);
                return NULL;
        }
        return canon;
}

/* ---- one run --------------------------------------------------------------- */

struct call {
        struct mcp_server *s;
        pid_t pid;
        int out, err, in;               /* our ends of the pipes, -1 once closed */
        const char *stdin_text;
        size_t stdin_off;
        struct stk_buf stdout_buf, stderr_buf;
        int64_t deadline, kill_at;      /* ms; 0: none */
        bool timed_out, cancelled, client_gone;
};

/* pipe2 is not POSIX: the portable build has pipe and fcntl.  The server
 * is single-threaded, so no exec can come between the two. */
static int pipe_pair(int p[2])
{
        if (pipe(p) < 0)
                return -errno;
        if (fcntl(p[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(p[1], F_SETFD, FD_CLOEXEC) < 0) {
                int r = -errno;
                (void) close(p[0]);
                (void) close(p[1]);
                p[0] = p[1] = -1;
                return r;
        }
        return 0;
}

/* In the fork: the pipes on 0, 1, 2, then the run from the pre-exec phase
 * on.  The server's ends are closed here: this process lives as long as
 * the command, and a write end of the command's stdin held here would keep
 * it from ever seeing EOF. */
static _Noreturn void worker(struct core_run *run, char **argv, pid_t server, int in[2], int out[2], int err[2])
{
        if (close(in[1]) < 0 || close(out[0]) < 0 || close(err[0]) < 0 || os_die_with_parent(server) < 0 ||
            core_warm_forked(run) < 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
                _exit(STK_EXIT_SETUP);
        core_warm_worker_exit(run, core_run_permitted(run, argv, environ));
}

static int start(struct call *c, struct core_run *run, char **argv)
{
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
        pid_t server = getpid();
        int r = pipe_pair(in);

        if (r >= 0)
                r = pipe_pair(out);
        if (r >= 0)
                r = pipe_pair(err);
        if (r >= 0) {
                fflush(NULL); /* nothing buffered twice (the audit log) */
                c->pid = fork();
                if (c->pid < 0)
                        r = -errno;
                if (c->pid == 0)
                        worker(run, argv, server, in, out, err);
        }
        (void) close(in[0]);
        (void) close(out[1]);
        (void) close(err[1]);
        c->in = in[1], c->out = out[0], c->err = err[0];
        if (c->in >= 0 && fcntl(c->in, F_SETFL, O_NONBLOCK) < 0 && r >= 0)
                r = -errno;
        return r;
}

static void close_fd(int *fd)
{
        if (*fd >= 0)
                (void) close(*fd);
        *fd = -1;
}

static void drain(int *fd, struct stk_buf *b)
{
        char chunk[65536];
        ssize_t n = read(*fd, chunk, sizeof(chunk));

        if (n > 0)
                stk_buf_add(b, chunk, (size_t) n);
        else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                close_fd(fd);
}

static void feed(struct call *c)
{
        size_t left = c->stdin_text ? strlen(c->stdin_text) - c->stdin_off : 0;
        ssize_t n = left ? write(c->in, c->stdin_text + c->stdin_off, left) : 0;

        if (n > 0)
                c->stdin_off += (size_t) n;
        if (left == 0 || (size_t) n == left || (n < 0 && errno != EAGAIN && errno != EINTR))
                close_fd(&c->in); /* all written, or the command closed its stdin */
}

/* The end of a call the client no longer wants, or a timeout: SIGTERM to
 * our worker, which forwards it to the command and cleans up; SIGKILL
 * after the grace (its keeper then kills what the command started). */
static void stop(struct call *c, int64_t now)
{
        if (c->kill_at == 0) {
                (void) kill(c->pid, SIGTERM);
                c->kill_at = now + KILL_GRACE_MS;
        } else if (now >= c->kill_at) {
                (void) kill(c->pid, SIGKILL);
                c->kill_at = INT64_MAX;
        }
}

static void client_input(struct call *c)
{
        struct mcp_server *s = c->s;
        char *line;
        size_t len;
        int r = mcp_in_fill(&s->in);

        while (r >= 0 && (r = mcp_in_line(&s->in, &line, &len)) != 0)
                if (r == 1)
                        mcp_handle_during_call(s, line, len, &c->cancelled);
        if (s->in.eof || s->quit)
                c->client_gone = true;
}

static int poll_timeout(const struct call *c, int64_t now)
{
        int64_t next = c->kill_at ? c->kill_at : c->deadline;

        if (next == INT64_MAX)
                return -1;
        return next <= now ? 0 : (int) (next - now > 60000 ? 60000 : next - now);
}

/* Until both output pipes are at EOF: the worker, and all it started, are gone. */
static void watch(struct call *c)
{
        while (c->out >= 0 || c->err >= 0) {
                struct pollfd p[4] = { { c->out, POLLIN, 0 }, { c->err, POLLIN, 0 }, { c->in, POLLOUT, 0 },
                                       { c->client_gone ? -1 : c->s->in.fd, POLLIN, 0 } };
                int64_t now = stk_now_ms();

                if (c->timed_out || c->cancelled || c->client_gone || now >= c->deadline) {
                        c->timed_out |= now >= c->deadline && !c->cancelled && !c->client_gone;
                        stop(c, now);
                }
                if (poll(p, 4, poll_timeout(c, stk_now_ms())) < 0 && errno != EINTR)
                        break;
                if (p[0].revents)
                        drain(&c->out, &c->stdout_buf);
                if (p[1].revents)
                        drain(&c->err, &c->stderr_buf);
                if (p[2].revents)
                        feed(c);
                if (p[3].revents)
                        client_input(c);
        }
        close_fd(&c->in);
}

static int wait_worker(pid_t pid)
{
        int ws;

        while (waitpid(pid, &ws, 0) < 0)
                if (errno != EINTR)
                        return STK_EXIT_SETUP;
        if (WIFSIGNALED(ws))
                return 128 + WTERMSIG(ws);
        return WEXITSTATUS(ws);
}

/* ---- the result ------------------------------------------------------------ */

/* Output as JSON text: bytes that are not UTF-8 become U+FFFD. */
static struct json_object *text_json(const char *s, size_t len)
{
        struct stk_buf b = { 0 };
        struct json_object *o;
        char *t;

        for (size_t i = 0; i < len;) {
                size_t n = mcp_utf8_seq((const unsigned char *) s + i, len - i);
                if (n == 0 || s[i] == '\0') {
                        stk_buf_adds(&b, "\xef\xbf\xbd");
                        i++;
                } else {
                        stk_buf_add(&b, s + i, n);
                        i += n;
                }
        }
        t = stk_buf_take(&b);
        o = json_object_new_string(t ? t : "");
        free(t);
        return o;
}

static struct json_object *tool_result(struct json_object *sc, bool is_error)
{
        struct json_object *r = json_object_new_object(), *content = json_object_new_array(),
                           *text = json_object_new_object();
        const char *s = json_object_to_json_string_ext(sc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

        /* The structured result, as text too: "a tool that returns
         * structured content SHOULD also return [it] in a TextContent block". */
        json_object_object_add(text, "type", json_object_new_string("text"));
        json_object_object_add(text, "text", json_object_new_string(s ? s : "{}"));
        json_object_array_add(content, text);
        json_object_object_add(r, "content", content);
        json_object_object_add(r, "structuredContent", sc);
        json_object_object_add(r, "isError", json_object_new_boolean(is_error));
        return r;
}

static struct json_object *refusal(const char *verdict, const char *decider, int status, const char *message)
{
        struct json_object *sc = json_object_new_object();

        json_object_object_add(sc, "exit_status", json_object_new_int(status));
        json_object_object_add(sc, "verdict", json_object_new_string(verdict));
        if (decider)
                json_object_object_add(sc, "decided_by", json_object_new_string(decider));
        json_object_object_add(sc, "message", json_object_new_string(message));
        return tool_result(sc, true);
}

static struct json_object *ran(struct call *c, int status, int64_t ms)
{
        struct json_object *sc = json_object_new_object();
        bool out_cut = c->stdout_buf.truncated, err_cut = c->stderr_buf.truncated;
        size_t out_len = c->stdout_buf.len, err_len = c->stderr_buf.len;
        _cleanup_free_ char *out = stk_buf_take(&c->stdout_buf), *err = stk_buf_take(&c->stderr_buf);

        json_object_object_add(sc, "exit_status", json_object_new_int(status));
        if (status > 128 && status < 128 + 65)
                json_object_object_add(sc, "signal", json_object_new_int(status - 128));
        json_object_object_add(sc, "verdict", json_object_new_string("allow"));
        json_object_object_add(sc, "stdout", text_json(out ? out : "", out ? out_len : 0));
        json_object_object_add(sc, "stderr", text_json(err ? err : "", err ? err_len : 0));
        json_object_object_add(sc, "stdout_truncated", json_object_new_boolean(out_cut));
        json_object_object_add(sc, "stderr_truncated", json_object_new_boolean(err_cut));
        json_object_object_add(sc, "timed_out", json_object_new_boolean(c->timed_out));
        json_object_object_add(sc, "duration_ms", json_object_new_int64(ms));
        return tool_result(sc, c->timed_out || (status >= STK_EXIT_DENIED && status <= STK_EXIT_USAGE));
}

/* ---- tools/call ---------------------------------------------------------------- */

static struct json_object *run_call(struct mcp_server *s, const struct call_args *a, const char *cwd)
{
        struct core_run *run = NULL;
        struct call c = { .s = s, .in = -1, .out = -1, .err = -1, .stdin_text = a->stdin_text };
        struct json_object *result;
        enum stk_verdict v;
        const char *decider = NULL;
        int64_t t0 = stk_now_ms();
        int r, status;

        s->warm.opts = (struct core_open_opts) { .profile = s->profile, .policy_file = s->policy_file,
                                                 .workspace = s->workspace, .session = true };
        /* ${CWD} in a policy is the workspace: the policy outlives one call's cwd */
        if (chdir(s->workspace) < 0)
                return refusal("error", NULL, STK_EXIT_SETUP, "cannot enter the workspace");
        status = core_warm_get(&s->warm, &run);
        if (status)
                return refusal("error", NULL, status, status == STK_EXIT_POLICY
                               ? "the policy has errors (the server's stderr names them)"
                               : "the sandbox could not be set up (the server's stderr says why)");
        if (chdir(cwd) < 0)
                return refusal("error", NULL, STK_EXIT_SETUP, "cannot enter \"cwd\"");
        /* approval_mcp's questions go to this client while the call waits */
        run->client_confirm = mcp_client_confirm;
        run->client_confirm_data = s;
        r = core_permission(run, a->argv, true, &v, &decider);
        run->client_confirm = NULL;
        run->client_confirm_data = NULL;
        if (r < 0 || v != STK_ALLOW) {
                result = refusal(r < 0 ? "error" : "deny", decider, r < 0 ? STK_EXIT_SETUP : STK_EXIT_DENIED,
                                 r < 0 ? "the permission phase failed" : "denied by the policy; the command did not run");
        } else {
                c.stdout_buf.max = c.stderr_buf.max = OUTPUT_MAX;
                c.deadline = t0 + a->timeout_s * 1000;
                r = start(&c, run, a->argv);
                if (c.pid > 0) {
                        watch(&c);
                        status = wait_worker(c.pid);
                }
                s->call_cancelled = c.cancelled;
                result = r < 0 ? refusal("error", NULL, STK_EXIT_SETUP, "could not start the command")
                               : ran(&c, status, stk_now_ms() - t0);
                stk_buf_done(&c.stdout_buf);
                stk_buf_done(&c.stderr_buf);
                close_fd(&c.out);
                close_fd(&c.err);
        }
        return result;
}

char *mcp_tools_call(struct mcp_server *s, struct json_object *id, struct json_object *params)
{
        struct call_args a = { 0 };
        _cleanup_free_ char *cwd = NULL;
        const char *why = parse_args(params, &a);
        struct json_object *result;

        if (!why && !s->workspace)
                why = "no workspace: start the server with --workspace DIR, or use a client that offers roots";
        if (!why && !(cwd = resolve_cwd(s->workspace, a.cwd, &why)) && !why)
                why = "out of memory";
        if (why) {
                strv_free(a.argv);
                return mcp_rpc_error(id, RPC_INVALID_PARAMS, why);
        }
        result = run_call(s, &a, cwd);
        strv_free(a.argv);
        /* MCP, "Cancellation": the receiver of a cancelled request does not answer it. */
        if (s->quit || s->in.eof || s->call_cancelled)
                json_object_put(result), result = NULL;
        s->call_cancelled = false;
        return result ? mcp_rpc_result(id, result) : NULL;
}
