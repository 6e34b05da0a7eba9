/* SPDX-License-Identifier: MIT */
/*
 * origin-helper LOG: a test origin server on 127.0.0.1 and, where that
 * port is free there too, on [::1] (the port is printed on stdout).  Each
 * connection: if the first byte is 0x16 (a TLS ClientHello) it logs "tls"
 * and closes; else it serves HTTP requests one after another, as a
 * keep-alive origin does: each head is logged "http HOST-HEADER
 * REQUEST-LINE", its body (Content-Length, or chunked) is read and
 * skipped, and the answer is 200 with a body of "origin ok\n", or N bytes
 * for GET /bytes/N.  It closes after a request that says Connection: close
 * or is HTTP/1.0, else it waits for the next one.  It is lenient on
 * purpose: the tests judge the proxy by every request that reached the
 * origin, so the origin must see each one a real server could.  One
 * process per connection (fork).  Runs until killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static FILE *logf_;

struct conn {
        int fd;
        char buf[65536];
        size_t len;
};

static void log_line(const char *kind, const char *a, const char *b)
{
        fprintf(logf_, "%s%s%s%s%s\n", kind, *a ? " " : "", a, *b ? " " : "", b);
        fflush(logf_);
}

static void header_value(const char *head, const char *name, char *out, size_t size)
{
        size_t n = strlen(name);
        const char *p = head;

        *out = '\0';
        while ((p = strchr(p, '\n'))) {
                p++;
                if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
                        const char *v = p + n + 1;
                        size_t len = strcspn(v, "\r\n");
                        while (*v == ' ' && len) {
                                v++;
                                len--;
                        }
                        snprintf(out, size, "%.*s", (int) len, v);
                        return;
                }
        }
}

static void send_all(int fd, const char *buf, size_t len)
{
        while (len) {
                ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
                if (n <= 0)
                        return;
                buf += n;
                len -= (size_t) n;
        }
}

/* More bytes into c->buf; 0 at EOF or on an error. */
static int fill(struct conn *c)
{
        ssize_t n;

        if (c->len == sizeof(c->buf) - 1)
                return 0;
        n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, 0);
        if (n <= 0)
                return 0;
        c->len += (size_t) n;
        c->buf[c->len] = '\0';
        return 1;
}

static void drop(struct conn *c, size_t n)
{
        memmove(c->buf, c->buf + n, c->len - n);
        c->len -= n;
        c->buf[c->len] = '\0';
}

/* A line (CRLF or LF) at the start of the buffer, dropped; 0 at EOF. */
static int take_line(struct conn *c, char *out, size_t size)
{
        char *lf;

        while (!(lf = memchr(c->buf, '\n', c->len)))
                if (!fill(c))
                        return 0;
        snprintf(out, size, "%.*s", (int) (lf - c->buf), c->buf);
        drop(c, (size_t) (lf - c->buf) + 1);
        return 1;
}

static int skip_bytes(struct conn *c, unsigned long long n)
{
        while (n) {
                size_t k;
                if (c->len == 0 && !fill(c))
                        return 0;
                k = c->len < n ? c->len : (size_t) n;
                drop(c, k);
                n -= k;
        }
        return 1;
}

/* A chunked body, leniently: sizes, data, then trailer lines to the empty one. */
static int skip_chunked(struct conn *c)
{
        char line[1024];

        for (;;) {
                unsigned long long size;
                if (!take_line(c, line, sizeof(line)))
                        return 0;
                size = strtoull(line, NULL, 16);
                if (size == 0)
                        break;
                if (!skip_bytes(c, size) || !take_line(c, line, sizeof(line)))
                        return 0;
        }
        do {
                if (!take_line(c, line, sizeof(line)))
                        return 0;
        } while (line[0] && strcmp(line, "\r") != 0);
        return 1;
}

static void answer(int fd, const char *line, int close_after)
{
        const char *conn = close_after ? "Connection: close\r\n" : "";
        unsigned long long want = 0;
        char hdr[256];

        if (sscanf(line, "GET /bytes/%llu", &want) != 1)
                want = 0;
        if (!want) {
                snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n%s\r\norigin ok\n", conn);
                send_all(fd, hdr, strlen(hdr));
                return;
        }
        static char chunk[65536];
        snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n%s\r\n", want, conn);
        send_all(fd, hdr, strlen(hdr));
        memset(chunk, 'x', sizeof(chunk));
        while (want) {
                size_t n = want < sizeof(chunk) ? (size_t) want : sizeof(chunk);
                send_all(fd, chunk, n);
                want -= n;
        }
}

/* One request: 1 to go on with the next, 0 to close. */
static int one_request(struct conn *c)
{
        char host[256], line[512], value[256], *end;
        int close_after;

        while (!(end = strstr(c->buf, "\r\n\r\n")))
                if (!fill(c))
                        return 0;
        *end = '\0';
        header_value(c->buf, "Host", host, sizeof(host));
        snprintf(line, sizeof(line), "%.*s", (int) strcspn(c->buf, "\r\n"), c->buf);
        log_line("http", host, line);
        header_value(c->buf, "Connection", value, sizeof(value));
        close_after = strcasestr(value, "close") != NULL || strstr(line, " HTTP/1.0") != NULL;
        header_value(c->buf, "Transfer-Encoding", value, sizeof(value));
        int chunked = strcasestr(value, "chunked") != NULL;
        header_value(c->buf, "Content-Length", value, sizeof(value));
        drop(c, (size_t) (end - c->buf) + 4);
        if (chunked ? !skip_chunked(c) : !skip_bytes(c, strtoull(value, NULL, 10)))
                return 0;
        answer(c->fd, line, close_after);
        return !close_after;
}

static void serve(int fd)
{
        static struct conn c;

        c.fd = fd;
        if (!fill(&c))
                return;
        if ((unsigned char) c.buf[0] == 0x16) {
                log_line("tls", "", "");
                return;
        }
        while (one_request(&c))
                ;
        shutdown(fd, SHUT_WR);
        while (recv(fd, c.buf, sizeof(c.buf), 0) > 0)
                ;
}

static int listen_on(int family, int port)
{
        struct sockaddr_storage ss = { 0 };
        struct sockaddr_in *a4 = (struct sockaddr_in *) &ss;
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *) &ss;
        socklen_t len = family == AF_INET ? sizeof(*a4) : sizeof(*a6);
        int one = 1, fd = socket(family, SOCK_STREAM, 0);

        if (family == AF_INET) {
                a4->sin_family = AF_INET;
                a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                a4->sin_port = htons((uint16_t) port);
        } else {
                a6->sin6_family = AF_INET6;
                a6->sin6_addr = in6addr_loopback;
                a6->sin6_port = htons((uint16_t) port);
        }
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            bind(fd, (struct sockaddr *) &ss, len) < 0 || listen(fd, 1024) < 0) {
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        return fd;
}

static int bound_port(int fd)
{
        struct sockaddr_in a;
        socklen_t alen = sizeof(a);

        return getsockname(fd, (struct sockaddr *) &a, &alen) < 0 ? -1 : ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
        struct pollfd fds[2] = { { .fd = -1, .events = POLLIN }, { .fd = -1, .events = POLLIN } };
        int port;

        if (argc != 2 || !(logf_ = fopen(argv[1], "a")))
                return 2;
        signal(SIGCHLD, SIG_IGN);
        fds[0].fd = listen_on(AF_INET, 0);
        port = fds[0].fd < 0 ? -1 : bound_port(fds[0].fd);
        if (port < 0)
                return perror("origin-helper"), 1;
        fds[1].fd = listen_on(AF_INET6, port); /* -1 where ::1 is missing or the port taken: ignored by poll */
        printf("%d\n", port);
        fflush(stdout);
        for (;;) {
                if (poll(fds, 2, -1) < 0)
                        continue;
                for (int i = 0; i < 2; i++) {
                        int fd = (fds[i].revents & POLLIN) ? accept(fds[i].fd, NULL, NULL) : -1;
                        if (fd < 0)
                                continue;
                        if (fork() == 0) {
                                close(fds[0].fd);
                                close(fds[1].fd);
                                serve(fd);
                                _exit(0);
                        }
                        close(fd);
                }
        }
}
