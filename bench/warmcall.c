/* SPDX-License-Identifier: MIT */
/* warmcall SOCKET -- CMD [ARG...]: run CMD through `stockade serve
 * --socket SOCKET` (stockade-serve(1)) with our stdin, stdout and stderr,
 * and exit with its status: the smallest client of the warm session, which
 * bench/startup times as its "warm" variants.  No json-c: the request is
 * written by hand (argv and cwd escaped as JSON strings), and the reply's
 * "exit_status" is read with sscanf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static size_t put_string(char *out, size_t size, size_t at, const char *s)
{
        at += (size_t) snprintf(out + at, at < size ? size - at : 0, "\"");
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c == '"' || c == '\\')
                        at += (size_t) snprintf(out + at, at < size ? size - at : 0, "\\%c", c);
                else if (c < 0x20)
                        at += (size_t) snprintf(out + at, at < size ? size - at : 0, "\\u%04x", c);
                else
                        at += (size_t) snprintf(out + at, at < size ? size - at : 0, "%c", c);
        }
        return at + (size_t) snprintf(out + at, at < size ? size - at : 0, "\"");
}

int main(int argc, char **argv)
{
        static char req[65536], rep[4096];
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char cwd[4096], ctl[CMSG_SPACE(3 * sizeof(int))] = { 0 };
        int fd, fds[3] = { 0, 1, 2 }, status = -1;
        size_t at;
        ssize_t n, got = 0;

        if (argc < 4 || strcmp(argv[2], "--") != 0 || strlen(argv[1]) >= sizeof(sa.sun_path) || !getcwd(cwd, sizeof(cwd))) {
                fprintf(stderr, "usage: warmcall SOCKET -- CMD [ARG...]\n");
                return 2;
        }
        at = (size_t) snprintf(req, sizeof(req), "{\"argv\":[");
        for (int i = 3; i < argc; i++) {
                at = put_string(req, sizeof(req), at, argv[i]);
                at += (size_t) snprintf(req + at, at < sizeof(req) ? sizeof(req) - at : 0, i + 1 < argc ? "," : "],\"cwd\":");
        }
        at = put_string(req, sizeof(req), at, cwd);
        at += (size_t) snprintf(req + at, at < sizeof(req) ? sizeof(req) - at : 0, "}\n");
        if (at >= sizeof(req))
                return 2;
        strcpy(sa.sun_path, argv[1]);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                perror("warmcall: connect");
                return 2;
        }
        struct iovec iov = { req, at };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(fds));
        memcpy(CMSG_DATA(c), fds, sizeof(fds));
        if (sendmsg(fd, &mh, 0) != (ssize_t) at) {
                perror("warmcall: sendmsg");
                return 2;
        }
        while (got < (ssize_t) sizeof(rep) - 1 && (n = read(fd, rep + got, sizeof(rep) - 1 - (size_t) got)) > 0)
                got += n;
        rep[got > 0 ? got : 0] = '\0';
        const char *p = strstr(rep, "\"exit_status\":");
        if (!p || sscanf(p + 14, "%d", &status) != 1) {
                fprintf(stderr, "warmcall: no exit status in the reply: %s\n", rep);
                return 2;
        }
        return status;
}
