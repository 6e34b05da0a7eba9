/* SPDX-License-Identifier: MIT */
/*
 * raw-helper HOW [--bytewise] PAYLOAD...: a client that sends exactly the
 * bytes a test wants through the proxy named by $HTTP_PROXY, run inside
 * the sandbox, for the checks curl cannot make (pipelined and smuggled
 * requests, odd ClientHellos, each SOCKS5 address type).  HOW opens the
 * way to the destination:
 *   --plain                  nothing: the payloads are proxy requests
 *   --connect HOST:PORT      an HTTP CONNECT tunnel
 *   --socks4 A PORT, --socks6 A PORT, --socks-name NAME PORT
 *                            a SOCKS5 CONNECT with address type IPv4 (1),
 *                            IPv6 (4) or domain (3)
 * Each PAYLOAD is a file to send, or @hello (a TLS ClientHello without
 * SNI), or @hello=NAME (one with SNI NAME).  Before each payload after the
 * first it waits for the answer to the one before (later requests on the
 * same connection); --bytewise sends one byte per write, a few ms apart
 * (requests split across the proxy's reads).  Prints how the tunnel
 * opened ("tunnel: ..."), then everything received, then "[eof]" or
 * "[silence]"; exits 0 when the tunnel opened, 1 when it was refused.
 */
#include <poll.h>
#include <stdio.h>

#include "proxy-client.h"

static bool bytewise;

static void send_all(int fd, const void *p, size_t len)
{
        send_bytes(fd, p, len, bytewise);
}

/* Print what arrives until EOF, or `quiet_ms` without a byte; 1 at EOF. */
static int drain(int fd, int first_ms, int quiet_ms)
{
        struct pollfd p = { .fd = fd, .events = POLLIN };
        char buf[65536];
        int wait = first_ms;

        while (poll(&p, 1, wait) > 0) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                if (n <= 0)
                        return 1;
                fwrite(buf, 1, (size_t) n, stdout);
                fflush(stdout);
                wait = quiet_ms;
        }
        return 0;
}

/* Exactly n bytes, or -1. */
static int recv_n(int fd, unsigned char *buf, size_t n)
{
        for (size_t got = 0; got < n;) {
                ssize_t k = recv(fd, buf + got, n - got, 0);
                if (k <= 0)
                        return -1;
                got += (size_t) k;
        }
        return 0;
}

static int open_connect(int fd, const char *authority)
{
        char req[600], head[4096];
        size_t len = 0;

        snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority);
        send_all(fd, req, strlen(req));
        while (len < sizeof(head) - 1 && !memmem(head, len, "\r\n\r\n", 4)) {
                ssize_t n = recv(fd, head + len, 1, 0);
                if (n <= 0)
                        break;
                len += (size_t) n;
        }
        head[len] = '\0';
        printf("tunnel: %.*s\n", (int) strcspn(head, "\r\n"), head);
        return strncmp(head, "HTTP/1.1 200", 12) == 0 ? 0 : -1;
}

static int open_socks(int fd, int atyp, const char *addr, int port)
{
        unsigned char req[300] = { 5, 1, 0, (unsigned char) atyp }, rep[4];
        size_t n = 4, alen = 0;

        send_all(fd, "\x05\x01\x00", 3);
        if (recv_n(fd, rep, 2) < 0 || rep[1] != 0)
                return printf("tunnel: socks greeting refused\n"), -1;
        if (atyp == 3) {
                alen = strlen(addr);
                req[n++] = (unsigned char) alen;
                memcpy(req + n, addr, alen);
        } else {
                alen = atyp == 1 ? 4 : 16;
                if (inet_pton(atyp == 1 ? AF_INET : AF_INET6, addr, req + n) != 1)
                        return printf("tunnel: bad address %s\n", addr), -1;
        }
        n += alen;
        req[n++] = (unsigned char) (port >> 8);
        req[n++] = (unsigned char) port;
        send_all(fd, req, n);
        if (recv_n(fd, rep, 4) < 0)
                return printf("tunnel: socks closed\n"), -1;
        unsigned char rest[18];
        if (recv_n(fd, rest, rep[3] == 4 ? 18 : 6) < 0)
                return printf("tunnel: socks reply cut short\n"), -1;
        printf("tunnel: socks reply %u\n", rep[1]);
        return rep[1] == 0 ? 0 : -1;
}

/* A minimal TLS 1.2 ClientHello, with one server_name entry or none. */
static size_t client_hello(const char *name, unsigned char *out)
{
        unsigned char body[600];
        size_t n = 0, sni = name ? strlen(name) : 0, ext = name ? sni + 9 : 0;

        body[n++] = 3, body[n++] = 3;
        memset(body + n, 0x42, 32), n += 32;          /* random */
        body[n++] = 0;                                 /* session id */
        memcpy(body + n, "\x00\x02\x13\x01", 4), n += 4; /* one suite */
        body[n++] = 1, body[n++] = 0;                  /* null compression */
        if (name) {
                body[n++] = (unsigned char) (ext >> 8), body[n++] = (unsigned char) ext;
                body[n++] = 0, body[n++] = 0;          /* server_name */
                body[n++] = (unsigned char) ((sni + 5) >> 8), body[n++] = (unsigned char) (sni + 5);
                body[n++] = (unsigned char) ((sni + 3) >> 8), body[n++] = (unsigned char) (sni + 3);
                body[n++] = 0;                         /* host_name */
                body[n++] = (unsigned char) (sni >> 8), body[n++] = (unsigned char) sni;
                memcpy(body + n, name, sni), n += sni;
        }
        unsigned char head[9] = { 0x16, 3, 1, (unsigned char) ((n + 4) >> 8), (unsigned char) (n + 4), 1, 0,
                                  (unsigned char) (n >> 8), (unsigned char) n };
        memcpy(out, head, 9);
        memcpy(out + 9, body, n);
        return n + 9;
}

static void send_payload(int fd, const char *arg)
{
        static unsigned char buf[1 << 20];
        size_t n;

        if (strncmp(arg, "@hello", 6) == 0) {
                n = client_hello(arg[6] == '=' ? arg + 7 : NULL, buf);
        } else {
                FILE *f = fopen(arg, "rb");
                if (!f) {
                        perror(arg);
                        exit(64);
                }
                n = fread(buf, 1, sizeof(buf), f);
                fclose(f);
        }
        send_all(fd, buf, n);
}

int main(int argc, char **argv)
{
        int fd = proxy_connect(), i = 1, r = 0;

        if (fd < 0 || argc < 3)
                return perror("raw-helper"), 64;
        if (!strcmp(argv[i], "--connect") && argc > i + 1)
                r = open_connect(fd, argv[i + 1]), i += 2;
        else if (!strncmp(argv[i], "--socks", 7) && argc > i + 2) {
                int atyp = !strcmp(argv[i], "--socks4") ? 1 : !strcmp(argv[i], "--socks6") ? 4 : 3;
                r = open_socks(fd, atyp, argv[i + 1], atoi(argv[i + 2])), i += 3;
        } else if (!strcmp(argv[i], "--plain"))
                i++;
        else
                return fprintf(stderr, "raw-helper: bad mode %s\n", argv[i]), 64;
        if (r < 0) {
                drain(fd, 1000, 300);
                return 1;
        }
        if (i < argc && !strcmp(argv[i], "--bytewise"))
                bytewise = true, i++;
        for (int first = i; i < argc; i++) {
                if (i > first && drain(fd, 2000, 300)) {
                        printf("[eof]\n");
                        return 0;
                }
                send_payload(fd, argv[i]);
        }
        printf(drain(fd, 2000, 700) ? "[eof]\n" : "[silence]\n");
        return 0;
}
