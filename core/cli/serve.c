/* SPDX-License-Identifier: MIT */
/*
 * `stockade serve --socket PATH` (stockade-serve(1)): the warm session
 * (core/run/warm.c) behind a unix socket, for harnesses that would rather
 * connect than speak MCP.  One connection, one command: the client sends
 * one JSON line, {"argv": [...], "cwd": "/dir", "env": ["K=V", ...]}, with
 * its stdin, stdout and stderr as SCM_RIGHTS, and reads one JSON line back
 * when the command has ended: {"exit_status": N, "verdict": "allow"} (or
 * "deny" with "decided_by").  The command writes to the client's own fds,
 * so its output never passes through us.
 *
 * Only the owner may connect: the socket is 0600 in a directory of ours
 * that is 0700, and SO_PEERCRED must name our uid.  Commands run one at a
 * time; the next client waits in the listen backlog.
 */
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "cli.h"
#include "mcp_rpc.h"
#include "common/stk_trust.h"
#include "os/os.h"
#include "run/core.h"
#include "util/util.h"

extern char **environ;

#define REQUEST_MAX (256u << 10)

struct request {
        struct json_object *root;
        char **argv, **env;
        const char *cwd;
        int fds[3];
};

static void request_done(struct request *q)
{
        json_object_put(q->root);
        strv_free(q->argv);
        strv_free(q->env);
        for (int i = 0; i < 3; i++)
                if (q->fds[i] >= 0)
                        (void) close(q->fds[i]);
}

/* ---- the socket ---------------------------------------------------------------- */

/* PATH's directory: ours and 0700 (made so if missing). */
static int check_dir(const char *path)
{
        _cleanup_free_ char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        _cleanup_close_ int fd = -1;
        const char *why = NULL;
        struct stat st;

        if (!dir)
                return -ENOMEM;
        if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
        else
                strcpy(dir, ".");
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (stk_trust_fd(fd, getuid(), STK_TRUST_DIRECTORY | STK_TRUST_OWNER_ONLY, &why) < 0 ||
            (st.st_mode & 0077)) {
                fprintf(stderr, "stockade serve: %s: %s; expected a directory of yours with mode 0700\n", dir,
                        why ? why : "open to group or others");
                return -EPERM;
        }
        return 0;
}

static int listen_on(const char *path, int *ret_fd)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;
        int r = check_dir(path);

        if (r < 0)
                return r;
        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        /* A server that was killed left its socket: in a directory only we
         * can write, a socket there is ours to replace. */
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(path) < 0)
                return -errno;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        /* 0600 from the start: no moment in which another user may connect */
        mode_t old = umask(0177);
        r = bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ? -errno : 0;
        umask(old);
        if (r < 0 || listen(fd, 16) < 0)
                return r < 0 ? r : -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static bool peer_is_owner(int fd)
{
        struct ucred cred;
        socklen_t len = sizeof(cred);

        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
}

/* ---- one request -------------------------------------------------------------------- */

static int take_fds(struct msghdr *mh, int fds[3])
{
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
                size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                for (size_t i = 0; i < n; i++) {
                        int fd;
                        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (i < 3 && fds[i] < 0)
                                fds[i] = fd;
                        else
                                (void) close(fd);
                }
        }
        return fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 ? 0 : -EBADMSG;
}

/* Up to the newline; the fds come with the first bytes. */
static int read_request(int conn, char *buf, size_t size, int fds[3])
{
        size_t len = 0;

        while (len < size - 1) {
                union { char b[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } ctl;
                struct iovec iov = { buf + len, size - 1 - len };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
                                     .msg_controllen = sizeof(ctl.b) };
                ssize_t n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EPIPE;
                if (mh.msg_controllen > 0)
                        (void) take_fds(&mh, fds);
                len += (size_t) n;
                if (memchr(buf, '\n', len))
                        break;
        }
        buf[len] = '\0';
        return memchr(buf, '\n', len) ? (int) len : -EMSGSIZE;
}

static const char *strv_member(struct json_object *root, const char *key, bool required, char ***ret)
{
        struct json_object *v;

        if (!json_object_object_get_ex(root, key, &v))
                return required ? "is missing" : NULL;
        if (!json_object_is_type(v, json_type_array) || (required && json_object_array_length(v) == 0))
                return "must be a non-empty array of strings";
        for (size_t i = 0; i < json_object_array_length(v); i++) {
                struct json_object *w = json_object_array_get_idx(v, i);
                if (!json_object_is_type(w, json_type_string) || strv_push(ret, json_object_get_string(w)) < 0)
                        return "must be an array of strings";
        }
        if (!*ret && strv_push(ret, NULL) < 0) /* an empty env is an empty one */
                return "out of memory";
        return NULL;
}

static int parse_request(const char *line, size_t len, struct request *q, char *err, size_t size)
{
        struct json_object *cwd;
        const char *why;

        if (mcp_json_parse_strict(line, len, &q->root, err, size))
                return -EINVAL;
        if (!json_object_is_type(q->root, json_type_object)) {
                snprintf(err, size, "the request is not a JSON object");
                return -EINVAL;
        }
        why = NULL;
        json_object_object_foreach(q->root, key, val) {
                (void) val;
                if (!why && !streq(key, "argv") && !streq(key, "cwd") && !streq(key, "env"))
                        why = "a member the request does not take (it takes argv, cwd, env)";
        }
        if (!why && (why = strv_member(q->root, "argv", true, &q->argv)))
                why = "\"argv\" must be a non-empty array of strings";
        if (!why && (why = strv_member(q->root, "env", false, &q->env)))
                why = "\"env\" must be an array of \"NAME=value\" strings";
        if (!why && (!json_object_object_get_ex(q->root, "cwd", &cwd) || !json_object_is_type(cwd, json_type_string) ||
                     json_object_get_string(cwd)[0] != '/'))
                why = "\"cwd\" (an absolute path) is missing";
        if (why) {
                snprintf(err, size, "%s", why);
                return -EINVAL;
        }
        q->cwd = json_object_get_string(cwd);
        return 0;
}

/* ---- running it ------------------------------------------------------------------------ */

static void reply(int conn, struct json_object *o)
{
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        size_t len = strlen(s), off = 0;

        while (off < len) {
                ssize_t n = send(conn, s + off, len - off, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break; /* the client is gone: nobody to tell */
                off += (size_t) n;
        }
        if (off == len)
                (void) send(conn, "\n", 1, MSG_NOSIGNAL);
        json_object_put(o);
}

static struct json_object *answer(int status, const char *verdict, const char *decider, const char *message)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "exit_status", json_object_new_int(status));
        json_object_object_add(o, "verdict", json_object_new_string(verdict));
        if (decider)
                json_object_object_add(o, "decided_by", json_object_new_string(decider));
        if (message)
                json_object_object_add(o, "message", json_object_new_string(message));
        return o;
}

/* The worker: the client's fds on 0, 1, 2, a pipe whose EOF tells the
 * server it has ended (the command and the keeper hold it too, CLOEXEC
 * drops it at the command's exec), the run from the pre-exec phase on. */
static _Noreturn void worker(struct core_run *run, struct request *q, pid_t server, int done_w)
{
        (void) done_w;
        if (os_die_with_parent(server) < 0 || core_warm_forked(run) < 0 || dup2(q->fds[0], 0) < 0 ||
            dup2(q->fds[1], 1) < 0 || dup2(q->fds[2], 2) < 0)
                _exit(STK_EXIT_SETUP);
        core_warm_worker_exit(run, core_run_permitted(run, q->argv, q->env ? q->env : environ));
}

/* Until the worker ends; a client that hangs up first ends the command. */
static int supervise_worker(pid_t pid, int conn, int done_r)
{
        bool stopping = false;
        int ws;

        for (;;) {
                struct pollfd p[2] = { { done_r, POLLIN, 0 }, { stopping ? -1 : conn, POLLIN | POLLRDHUP, 0 } };
                if (poll(p, 2, -1) < 0 && errno != EINTR)
                        break;
                if (p[0].revents)
                        break;
                if (p[1].revents) {
                        (void) kill(pid, SIGTERM); /* forwarded to the command; its keeper cleans up */
                        stopping = true;
                }
        }
        while (waitpid(pid, &ws, 0) < 0)
                if (errno != EINTR)
                        return STK_EXIT_SETUP;
        return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
}

static struct json_object *run_request(struct core_warm *w, struct request *q, int conn)
{
        struct core_run *run = NULL;
        enum stk_verdict v;
        const char *decider = NULL;
        int done[2], status = core_warm_get(w, &run), r;
        pid_t pid;

        if (status)
                return answer(status, "error", NULL, "the policy or the sandbox failed (the server's stderr says why)");
        if (chdir(q->cwd) < 0)
                return answer(STK_EXIT_SETUP, "error", NULL, "cannot enter \"cwd\"");
        r = core_permission(run, q->argv, true, &v, &decider);
        if (r < 0 || v != STK_ALLOW)
                return answer(r < 0 ? STK_EXIT_SETUP : STK_EXIT_DENIED, r < 0 ? "error" : "deny", decider, NULL);
        if (pipe2(done, O_CLOEXEC) < 0)
                return answer(STK_EXIT_SETUP, "error", NULL, "pipe");
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
                (void) close(done[0]);
                worker(run, q, getppid(), done[1]);
        }
        (void) close(done[1]);
        status = pid < 0 ? STK_EXIT_SETUP : supervise_worker(pid, conn, done[0]);
        (void) close(done[0]);
        return answer(status, "allow", NULL, NULL);
}

static void one_connection(struct core_warm *w, int conn)
{
        static char buf[REQUEST_MAX];
        struct request q = { .fds = { -1, -1, -1 } };
        char err[256];
        int n;

        if (!peer_is_owner(conn))
                return; /* another user: not a word (the directory should have kept them out) */
        n = read_request(conn, buf, sizeof(buf), q.fds);
        if (n < 0)
                reply(conn, answer(STK_EXIT_USAGE, "error", NULL, n == -EMSGSIZE ? "a request without its newline "
                                   "or larger than 256 KiB" : "the connection ended before the request"));
        else if (q.fds[2] < 0)
                reply(conn, answer(STK_EXIT_USAGE, "error", NULL, "the request came without its three fds "
                                   "(stdin, stdout, stderr as SCM_RIGHTS)"));
        else if (parse_request(buf, (size_t) n - 1, &q, err, sizeof(err)) < 0)
                reply(conn, answer(STK_EXIT_USAGE, "error", NULL, err));
        else
                reply(conn, run_request(w, &q, conn));
        request_done(&q);
}

static const struct option serve_options[] = {
        { "socket", required_argument, NULL, 's' },
        { "profile", required_argument, NULL, 'p' },
        { "policy", required_argument, NULL, 'P' },
        { "workspace", required_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
};

static void serve_usage(FILE *f)
{
        fprintf(f, "usage: stockade serve --socket PATH [--profile P | --policy FILE] [--workspace DIR]\n"
                   "  -s, --socket PATH    the unix socket (its directory: yours, mode 0700)\n"
                   "  -p, --profile P      the profile every command runs under (default: default)\n"
                   "  -P, --policy FILE    a policy file instead of the profile's files\n"
                   "  -w, --workspace DIR  the workspace (default: the working directory)\n"
                   "See stockade-serve(1) for the protocol.\n");
}

int cli_serve(int argc, char **argv)
{
        struct core_warm w = { 0 };
        const char *socket_path = NULL;
        _cleanup_free_ char *ws = NULL;
        _cleanup_close_ int lfd = -1;
        int c, r;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+s:p:P:w:h", serve_options, NULL)) != -1) {
                switch (c) {
                case 's': socket_path = optarg; break;
                case 'p': w.opts.profile = optarg; break;
                case 'P': w.opts.policy_file = optarg; break;
                case 'w': w.opts.workspace = optarg; break;
                case 'h': serve_usage(stdout); return 0;
                default: serve_usage(stderr); return STK_EXIT_USAGE;
                }
        }
        if (!socket_path || optind < argc || (w.opts.profile && w.opts.policy_file)) {
                fprintf(stderr, "stockade serve: %s\n", !socket_path ? "--socket PATH is needed" : optind < argc
                        ? "unexpected arguments" : "--profile and --policy name two policies; give one");
                return STK_EXIT_USAGE;
        }
        ws = realpath(w.opts.workspace ? w.opts.workspace : ".", NULL);
        if (!ws || chdir(ws) < 0) {
                fprintf(stderr, "stockade serve: the workspace: %s\n", strerror(errno));
                return STK_EXIT_USAGE;
        }
        w.opts.workspace = ws;
        w.opts.session = true; /* an agent's commands: nobody watches this terminal */
        r = listen_on(socket_path, &lfd);
        if (r < 0) {
                fprintf(stderr, "stockade serve: %s: %s\n", socket_path, strerror(-r));
                return STK_EXIT_SETUP;
        }
        r = core_warm_get(&w, &(struct core_run *) { NULL }); /* fail at the start, not at the first client */
        for (; r == 0;) {
                _cleanup_close_ int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (conn < 0 && errno != EINTR && errno != ECONNABORTED)
                        break;
                if (conn >= 0)
                        one_connection(&w, conn);
                if (chdir(ws) < 0) /* ${CWD} of a reload is the workspace: without it, stop */
                        r = -errno;
        }
        core_warm_done(&w);
        (void) unlink(socket_path);
        return r ? r : STK_EXIT_SETUP;
}
