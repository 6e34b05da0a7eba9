/* SPDX-License-Identifier: MIT */
/*
 * origin-helper LOG: a test origin server on 127.0.0.1 (a free port,
 * printed on stdout).  Each connection: if the first byte is 0x16 (a TLS
 * ClientHello) it logs "tls" and closes; else it reads an HTTP request head,
 * logs "http HOST-HEADER REQUEST-LINE" and answers 200 with a body of
 * "origin ok\n", or N bytes for GET /bytes/N.  One process, one connection
 * at a time per child (fork per connection).  Runs until killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static FILE *logf_;

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

static void serve(int fd)
{
        char head[16384], host[256], line[512], hdr[256];
        size_t len = 0;
        unsigned long long want = 0;

        while (len < sizeof(head) - 1) {
                ssize_t n = recv(fd, head + len, sizeof(head) - 1 - len, 0);
                if (n <= 0)
                        return;
                if (len == 0 && (unsigned char) head[0] == 0x16) {
                        log_line("tls", "", "");
                        return;
                }
                len += (size_t) n;
                head[len] = '\0';
                if (strstr(head, "\r\n\r\n"))
                        break;
        }
        header_value(head, "Host", host, sizeof(host));
        snprintf(line, sizeof(line), "%.*s", (int) strcspn(head, "\r\n"), head);
        log_line("http", host, line);
        if (sscanf(line, "GET /bytes/%llu", &want) != 1)
                want = 0;
        if (want) {
                static char chunk[65536];
                snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\nConnection: close\r\n\r\n", want);
                send_all(fd, hdr, strlen(hdr));
                memset(chunk, 'x', sizeof(chunk));
                while (want) {
                        size_t n = want < sizeof(chunk) ? (size_t) want : sizeof(chunk);
                        send_all(fd, chunk, n);
                        want -= n;
                }
        } else {
                const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\norigin ok\n";
                send_all(fd, ok, strlen(ok));
        }
        shutdown(fd, SHUT_WR);
        while (recv(fd, head, sizeof(head), 0) > 0)
                ;
}

int main(int argc, char **argv)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t alen = sizeof(a);
        int one = 1, lfd;

        if (argc != 2 || !(logf_ = fopen(argv[1], "a")))
                return 2;
        signal(SIGCHLD, SIG_IGN);
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            bind(lfd, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(lfd, 1024) < 0 ||
            getsockname(lfd, (struct sockaddr *) &a, &alen) < 0)
                return perror("origin-helper"), 1;
        printf("%d\n", ntohs(a.sin_port));
        fflush(stdout);
        for (;;) {
                int fd = accept(lfd, NULL, NULL);
                if (fd < 0)
                        continue;
                if (fork() == 0) {
                        close(lfd);
                        serve(fd);
                        _exit(0);
                }
                close(fd);
        }
}
