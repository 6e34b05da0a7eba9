/* SPDX-License-Identifier: MIT */
/*
 * http-helper: a scripted HTTP/1.1 server on 127.0.0.1 for the
 * approval_webhook tests.
 *
 *   http-helper DIR MODE...
 *
 * Listens on an ephemeral port, prints it on stdout and writes it to
 * DIR/port, then serves one connection per MODE, in order, and exits.
 * Each request (head and body, as received) is saved to DIR/req-N.
 * MODE is the answer:
 *   allow | deny | ignore   200 with that verdict
 *   500 | 404 | 302         that status, with an "allow" body (which must
 *                           not count); 302 points back at this server
 *   slow                    waits 3 s, then 200 allow
 *   malformed               200 with trailing bytes after the verdict
 *   huge                    200 with a 1 MiB body and its Content-Length
 *   hugestream              200 with a 1 MiB body and no Content-Length
 *   close                   reads the request, closes without answering
 * It gives up after 60 s without a connection, so it never lingers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define REQ_MAX (1 << 20)
#define HUGE_BODY (1 << 20)

static const char allow_body[] = "{\"verdict\":\"allow\",\"reason\":\"the test server says yes\"}";

static int listen_loopback(int *ret_port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (s < 0 || bind(s, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(s, 8) < 0 ||
            getsockname(s, (struct sockaddr *) &a, &len) < 0) {
                perror("http-helper: listen");
                exit(2);
        }
        *ret_port = ntohs(a.sin_port);
        return s;
}

static void write_port(const char *dir, int port)
{
        char tmp[4096], path[4096];
        FILE *f;

        snprintf(tmp, sizeof(tmp), "%s/port.tmp", dir);
        snprintf(path, sizeof(path), "%s/port", dir);
        f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
                perror("http-helper: port file");
                exit(2);
        }
        printf("%d\n", port);
        fflush(stdout);
}

/* The Content-Length of a request head, or 0. */
static size_t content_length(const char *head)
{
        for (const char *p = head; (p = strchr(p, '\n')); ) {
                p++;
                if (strncasecmp(p, "Content-Length:", 15) == 0)
                        return strtoul(p + 15, NULL, 10);
        }
        return 0;
}

/* Read one request: the head up to the blank line, then the body. */
static size_t read_request(int c, char *buf)
{
        size_t got = 0, want = 0;
        char *end = NULL;

        while (got < REQ_MAX - 1 && (!end || got < want)) {
                ssize_t n = read(c, buf + got, REQ_MAX - 1 - got);
                if (n <= 0)
                        break;
                got += (size_t) n;
                buf[got] = '\0';
                if (!end && (end = strstr(buf, "\r\n\r\n")))
                        want = (size_t) (end + 4 - buf) + content_length(buf);
        }
        return got;
}

static void save_request(const char *dir, int n, const char *buf, size_t len)
{
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/req-%d", dir, n);
        f = fopen(path, "w");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
                perror("http-helper: saving the request");
}

static void send_all(int c, const char *p, size_t len)
{
        while (len > 0) {
                ssize_t n = write(c, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return; /* the client gave up (a cap, a timeout): fine */
                p += n;
                len -= (size_t) n;
        }
}

static void respond(int c, int status, const char *extra, const char *body)
{
        char head[512];

        snprintf(head, sizeof(head), "HTTP/1.1 %d Test\r\nContent-Type: application/json\r\n%s"
                 "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, extra, strlen(body));
        send_all(c, head, strlen(head));
        send_all(c, body, strlen(body));
}

static void respond_huge(int c, int with_length)
{
        char *body = malloc(HUGE_BODY + 1);
        char head[256];

        if (!body)
                return;
        memset(body, 'a', HUGE_BODY);
        memcpy(body, "{\"verdict\":\"allow\",\"reason\":\"", 29);
        memcpy(body + HUGE_BODY - 2, "\"}", 2);
        if (with_length)
                snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
                         HUGE_BODY);
        else
                snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        send_all(c, head, strlen(head));
        send_all(c, body, HUGE_BODY);
        free(body);
}

static void answer(int c, const char *mode, int port)
{
        char loc[128];

        if (!strcmp(mode, "allow"))
                respond(c, 200, "", allow_body);
        else if (!strcmp(mode, "deny"))
                respond(c, 200, "", "{\"verdict\":\"deny\",\"reason\":\"the test server says no\"}");
        else if (!strcmp(mode, "ignore"))
                respond(c, 200, "", "{\"verdict\":\"ignore\"}");
        else if (!strcmp(mode, "500") || !strcmp(mode, "404"))
                respond(c, atoi(mode), "", allow_body);
        else if (!strcmp(mode, "302")) {
                snprintf(loc, sizeof(loc), "Location: http://127.0.0.1:%d/redirected\r\n", port);
                respond(c, 302, loc, allow_body);
        } else if (!strcmp(mode, "slow")) {
                sleep(3);
                respond(c, 200, "", allow_body);
        } else if (!strcmp(mode, "malformed"))
                respond(c, 200, "", "{\"verdict\":\"allow\"} and then some");
        else if (!strcmp(mode, "huge") || !strcmp(mode, "hugestream"))
                respond_huge(c, !strcmp(mode, "huge"));
        else if (strcmp(mode, "close") != 0)
                fprintf(stderr, "http-helper: unknown mode %s\n", mode);
}

int main(int argc, char **argv)
{
        struct timeval rcv = { 5, 0 };
        char *buf = malloc(REQ_MAX);
        int s, port;

        if (argc < 3 || !buf) {
                fprintf(stderr, "usage: http-helper DIR MODE...\n");
                return 2;
        }
        signal(SIGPIPE, SIG_IGN); /* a client that hangs up must not kill the server */
        s = listen_loopback(&port);
        write_port(argv[1], port);
        for (int i = 2; i < argc; i++) {
                int c;

                alarm(60);
                c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0) {
                        perror("http-helper: accept");
                        return 1;
                }
                (void) setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof(rcv)); /* best effort */
                size_t len = read_request(c, buf);
                save_request(argv[1], i - 1, buf, len);
                answer(c, argv[i], port);
                (void) shutdown(c, SHUT_WR); /* then drain, so close does not reset the reply */
                while (read(c, buf, REQ_MAX - 1) > 0)
                        ;
                close(c);
        }
        free(buf);
        return 0;
}
