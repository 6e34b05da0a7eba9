/* SPDX-License-Identifier: MIT */
/*
 * hostile-helper MODE: bad input for the proxy named by $HTTP_PROXY, run
 * inside the sandbox.  Each mode prints what the proxy answered and exits 0
 * when that is the clean refusal expected:
 *   bighead     a 64 KiB header            -> an HTTP 4xx answer, then close
 *   garbage     random binary bytes        -> 400, then close
 *   slowloris   half a head, then silence  -> closed by the proxy (408/400 or EOF)
 *   socks-trunc a SOCKS5 greeting cut short, then a bad version -> close
 *   idle N      N connections that send nothing, held open while the next
 *               command (run by the test) makes a real request; prints "held N"
 *   flood N HOST[:PORT]  N plain-HTTP requests for http://HOST[:PORT]/, one
 *               connection each, as fast as the proxy answers; a HOST with
 *               %d gets the request's number (N distinct names); prints
 *               "refused R/N" (R: answers with status 403); exit 0 when R = N
 */
#include <stdio.h>

#include "proxy-client.h"

/* What came back before the proxy closed: the first line, or "EOF". */
static void answer(int fd, char *buf, size_t size)
{
        size_t len = 0;
        ssize_t n;

        while (len < size - 1 && (n = recv(fd, buf + len, size - 1 - len, 0)) > 0)
                len += (size_t) n;
        buf[len] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        if (!len)
                strcpy(buf, "EOF");
}

static void send_all(int fd, const void *p, size_t len)
{
        send_bytes(fd, p, len, false);
}

static int expect_4xx(int fd)
{
        char buf[4096];

        answer(fd, buf, sizeof(buf));
        printf("%s\n", buf);
        return strncmp(buf, "HTTP/1.1 4", 10) == 0 ? 0 : 1;
}

static int idle(int n)
{
        int held = 0;

        for (int i = 0; i < n; i++)
                if (proxy_connect() >= 0)
                        held++;
        printf("held %d\n", held);
        fflush(stdout);
        pause(); /* the test kills us */
        return 0;
}

static int flood(int n, const char *host)
{
        int refused = 0;

        for (int i = 0; i < n; i++) {
                char name[300], req[700], buf[256];
                int fd = proxy_connect();
                if (fd < 0)
                        return perror("connect to the proxy"), 1;
                const char *mark = strstr(host, "%d");
                if (mark) /* N distinct names: the request's number in place of %d */
                        snprintf(name, sizeof(name), "%.*s%d%s", (int) (mark - host), host, i, mark + 2);
                else
                        snprintf(name, sizeof(name), "%s", host);
                snprintf(req, sizeof(req), "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", name, name);
                send_all(fd, req, strlen(req));
                answer(fd, buf, sizeof(buf));
                refused += strncmp(buf, "HTTP/1.1 403", 12) == 0;
                close(fd);
        }
        printf("refused %d/%d\n", refused, n);
        return refused == n ? 0 : 1;
}

int main(int argc, char **argv)
{
        int fd;

        if (argc < 2)
                return 64;
        if (!strcmp(argv[1], "idle"))
                return idle(argc > 2 ? atoi(argv[2]) : 1000);
        if (!strcmp(argv[1], "flood") && argc > 3)
                return flood(atoi(argv[2]), argv[3]);
        fd = proxy_connect();
        if (fd < 0)
                return perror("connect to the proxy"), 1;
        if (!strcmp(argv[1], "bighead")) {
                static char big[65536];
                const char *req = "GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nX-Big: ";
                send_all(fd, req, strlen(req));
                memset(big, 'a', sizeof(big));
                send_all(fd, big, sizeof(big));
                return expect_4xx(fd);
        }
        if (!strcmp(argv[1], "garbage")) {
                unsigned char junk[512];
                for (size_t i = 0; i < sizeof(junk); i++)
                        junk[i] = (unsigned char) (i * 131 + 7);
                junk[0] = 0x80; /* neither SOCKS5 nor a method */
                send_all(fd, junk, sizeof(junk));
                return expect_4xx(fd);
        }
        if (!strcmp(argv[1], "slowloris")) {
                char buf[4096];
                const char *half = "GET http://allowed.test/ HTTP/1.1\r\nHost: allo";
                send_all(fd, half, strlen(half));
                answer(fd, buf, sizeof(buf)); /* blocks until the header timeout closes it */
                printf("%s\n", buf);
                return strncmp(buf, "HTTP/1.1 4", 10) == 0 || !strcmp(buf, "EOF") ? 0 : 1;
        }
        if (!strcmp(argv[1], "socks-trunc")) {
                char buf[64];
                const unsigned char hello[] = { 0x05, 0x01, 0x00 }, bad[] = { 0x04, 0x01, 0x00, 0x50 };
                send_all(fd, hello, 2); /* cut short */
                usleep(100000);
                send_all(fd, hello + 2, 1);
                recv(fd, buf, 2, 0);     /* 05 00 */
                send_all(fd, bad, sizeof(bad));
                answer(fd, buf, sizeof(buf));
                if (!strcmp(buf, "EOF")) {
                        printf("socks: closed\n");
                        return 0;
                }
                printf("socks answer %02x %02x\n", (unsigned char) buf[0], (unsigned char) buf[1]);
                return buf[1] != 0 ? 0 : 1; /* anything but "succeeded" */
        }
        return 64;
}
