/* SPDX-License-Identifier: MIT */
/* net_proxy: the SOCKS5 greeting, request and reply (np_socks.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_socks.h"
#include "unit.h"

static void test_greeting(void)
{
        static const struct {
                uint8_t in[8];
                size_t len;
                int want;
                size_t consumed, reply_len;
                uint8_t reply1;
        } t[] = {
                { { 5, 1, 0 }, 3, NP_DONE, 3, 2, 0x00 },
                { { 5, 2, 2, 0 }, 4, NP_DONE, 4, 2, 0x00 },      /* no-auth among others */
                { { 5, 1, 0, 5, 1 }, 5, NP_DONE, 3, 2, 0x00 },   /* the request may follow at once */
                { { 5, 3, 1, 2, 0x80 }, 5, NP_BAD, 0, 2, 0xff }, /* none acceptable */
                { { 5, 0 }, 2, NP_BAD, 0, 2, 0xff },             /* no method at all */
                { { 4, 1, 0, 80 }, 4, NP_BAD, 0, 0, 0 },         /* SOCKS4: no reply, close */
                { { 'G', 'E', 'T' }, 3, NP_BAD, 0, 0, 0 },
                { { 0 }, 0, NP_NEED_MORE, 0, 0, 0 },
                { { 5 }, 1, NP_NEED_MORE, 0, 0, 0 },
                { { 5, 2, 0 }, 3, NP_NEED_MORE, 0, 0, 0 },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                uint8_t reply[2] = { 0x55, 0x55 };
                size_t consumed = 0, reply_len = 99;
                const char *why = NULL;
                int r = np_socks_greeting(t[i].in, t[i].len, &consumed, reply, &reply_len, &why);
                if (r != t[i].want)
                        fprintf(stderr, "\n  greeting[%zu]: %d", i, r);
                CU_ASSERT_EQUAL(r, t[i].want);
                if (r == NP_DONE)
                        CU_ASSERT_EQUAL(consumed, t[i].consumed);
                if (r == NP_BAD)
                        CU_ASSERT(why && strlen(why) > 5);
                if (r != NP_NEED_MORE) {
                        CU_ASSERT_EQUAL(reply_len, t[i].reply_len);
                        if (reply_len == 2) {
                                CU_ASSERT_EQUAL(reply[0], 5);
                                CU_ASSERT_EQUAL(reply[1], t[i].reply1);
                        }
                }
        }
}

struct req_case {
        const char *name;
        uint8_t in[NP_SOCKS_REQUEST_MAX];
        size_t len;
        int want;
        uint8_t rep;          /* when BAD */
        enum np_host_kind kind;
        const char *host;
        uint16_t port;
};

#define DOMAIN(n, ...) { 5, 1, 0, 3, n, __VA_ARGS__ }

static const struct req_case reqs[] = {
        { "ipv4", { 5, 1, 0, 1, 93, 184, 216, 34, 0x01, 0xbb }, 10, NP_DONE, 0, NP_HOST_IPV4, "93.184.216.34", 443 },
        { "ipv6", { 5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, [19] = 1, 0, 80 }, 22, NP_DONE, 0,
          NP_HOST_IPV6, "2001:db8::1", 80 },
        { "domain", DOMAIN(11, 'E', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 0, 80), 18, NP_DONE, 0,
          NP_HOST_NAME, "example.com", 80 },
        { "domain, trailing dot", DOMAIN(2, 'a', '.', 0x1f, 0x90), 9, NP_DONE, 0, NP_HOST_NAME, "a", 8080 },
        { "domain that is an address", DOMAIN(5, '1', '2', '7', '.', '1', 0, 22), 12, NP_DONE, 0,
          NP_HOST_IPV4, "127.0.0.1", 22 },
        { "domain that is 2130706433", DOMAIN(10, '2', '1', '3', '0', '7', '0', '6', '4', '3', '3', 0, 22), 17,
          NP_DONE, 0, NP_HOST_IPV4, "127.0.0.1", 22 },
        { "domain that is IPv6", DOMAIN(3, ':', ':', '1', 0, 22), 10, NP_DONE, 0, NP_HOST_IPV6, "::1", 22 },
        { "empty domain", DOMAIN(0, 0, 80), 7, NP_BAD, 0x01, 0, NULL, 0 },
        { "invalid domain", DOMAIN(3, 'a', ' ', 'b', 0, 80), 10, NP_BAD, 0x04, 0, NULL, 0 },
        { "domain with NUL", DOMAIN(3, 'a', 0, 'b', 0, 80), 10, NP_BAD, 0x04, 0, NULL, 0 },
        { "numeric, no address", DOMAIN(9, '1', '.', '2', '.', '3', '.', '9', '9', '9', 0, 80), 16, NP_BAD, 0x04,
          0, NULL, 0 },
        { "BIND", { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x07, 0, NULL, 0 },
        { "UDP ASSOCIATE", { 5, 3, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x07, 0, NULL, 0 },
        { "unknown command", { 5, 9, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x07, 0, NULL, 0 },
        { "command 0", { 5, 0 }, 2, NP_BAD, 0x07, 0, NULL, 0 },
        { "ATYP 2", { 5, 1, 0, 2, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x08, 0, NULL, 0 },
        { "ATYP 0", { 5, 1, 0, 0 }, 4, NP_BAD, 0x08, 0, NULL, 0 },
        { "RSV 1", { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x01, 0, NULL, 0 },
        { "VER 4", { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_BAD, 0x01, 0, NULL, 0 },
        { "port 0", { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 }, 10, NP_BAD, 0x01, 0, NULL, 0 },
};

static void test_request(void)
{
        for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
                const struct req_case *c = &reqs[i];
                struct np_socks_request req;
                size_t consumed = 0;
                uint8_t rep = 0xee;
                const char *why = NULL;
                int r = np_socks_request_parse(c->in, c->len, &req, &consumed, &rep, &why);

                if (r != c->want || (r == NP_BAD && rep != c->rep))
                        fprintf(stderr, "\n  %s: %d rep %02x (%s)", c->name, r, rep, why ? why : "");
                CU_ASSERT_EQUAL(r, c->want);
                if (r == NP_BAD) {
                        CU_ASSERT_EQUAL(rep, c->rep);
                        CU_ASSERT(why && strlen(why) > 5);
                }
                if (r != NP_DONE || c->want != NP_DONE)
                        continue;
                CU_ASSERT_EQUAL(consumed, c->len);
                CU_ASSERT_EQUAL(req.cmd, 1);
                CU_ASSERT_EQUAL(req.host.kind, c->kind);
                CU_ASSERT_STRING_EQUAL(req.host.text, c->host);
                CU_ASSERT_EQUAL(req.port, c->port);
        }
}

/* Every valid request, cut short at every length, needs more; the same
 * bytes followed by more data are DONE with the request's length. */
static void test_request_split(void)
{
        for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
                const struct req_case *c = &reqs[i];
                struct np_socks_request req;
                size_t consumed;
                uint8_t rep, buf[NP_SOCKS_REQUEST_MAX + 4];
                const char *why;

                if (c->want != NP_DONE)
                        continue;
                for (size_t k = 0; k < c->len; k++) {
                        uint8_t *part = malloc(k ? k : 1); /* exactly k bytes, for ASan */
                        CU_ASSERT_PTR_NOT_NULL_FATAL(part);
                        memcpy(part, c->in, k);
                        CU_ASSERT_EQUAL(np_socks_request_parse(part, k, &req, &consumed, &rep, &why), NP_NEED_MORE);
                        free(part);
                }
                memcpy(buf, c->in, c->len);
                memcpy(buf + c->len, "\x16\x03\x01\x00", 4);
                CU_ASSERT_EQUAL(np_socks_request_parse(buf, c->len + 4, &req, &consumed, &rep, &why), NP_DONE);
                CU_ASSERT_EQUAL(consumed, c->len);
        }
}

/* The longest domain (255 bytes) is invalid as a name (> 253); 253 works. */
static void test_request_domain_lengths(void)
{
        uint8_t buf[NP_SOCKS_REQUEST_MAX];
        struct np_socks_request req;
        size_t consumed;
        uint8_t rep = 0;
        const char *why;

        for (unsigned n = 253; n <= 255; n++) {
                memcpy(buf, "\x05\x01\x00\x03", 4);
                buf[4] = (uint8_t)n;
                memset(buf + 5, 'a', n);
                for (unsigned k = 63; k < n; k += 64)
                        buf[5 + k] = '.';
                buf[5 + n] = 0;
                buf[6 + n] = 80;
                int r = np_socks_request_parse(buf, 7 + n, &req, &consumed, &rep, &why);
                CU_ASSERT_EQUAL(r, n == 253 ? NP_DONE : NP_BAD);
                if (r == NP_DONE) {
                        CU_ASSERT_EQUAL(req.host.len, 253);
                } else {
                        CU_ASSERT_EQUAL(rep, NP_SOCKS_HOST_UNREACHABLE);
                }
        }
}

static void test_reply(void)
{
        static const uint8_t codes[] = { 0, 1, 2, 3, 4, 5, 7, 8 };
        uint8_t buf[NP_SOCKS_REPLY_MAX];
        struct np_ip v6;

        for (size_t i = 0; i < sizeof(codes); i++) {
                static const uint8_t zero[6];
                CU_ASSERT_EQUAL(np_socks_reply(codes[i], NULL, 0, buf, sizeof(buf)), 10);
                CU_ASSERT(buf[0] == 5 && buf[1] == codes[i] && buf[2] == 0 && buf[3] == 1);
                CU_ASSERT(memcmp(buf + 4, zero, 6) == 0);
                CU_ASSERT(strcmp(np_socks_rep_text(codes[i]), "unknown reply code") != 0);
        }
        CU_ASSERT_EQUAL(np_ip_parse("2001:db8::2", 11, &v6), 0);
        CU_ASSERT_EQUAL(np_socks_reply(NP_SOCKS_OK, &v6, 443, buf, sizeof(buf)), 22);
        CU_ASSERT(buf[3] == 4 && buf[4] == 0x20 && buf[19] == 2 && buf[20] == 1 && buf[21] == 0xbb);
        CU_ASSERT_EQUAL(np_socks_reply(NP_SOCKS_OK, &v6, 443, buf, 21), -ENOBUFS);
        CU_ASSERT_EQUAL(np_socks_reply(NP_SOCKS_OK, NULL, 0, buf, 9), -ENOBUFS);
        v6.family = AF_UNIX;
        CU_ASSERT_EQUAL(np_socks_reply(NP_SOCKS_OK, &v6, 0, buf, sizeof(buf)), -EAFNOSUPPORT);
        CU_ASSERT_STRING_EQUAL(np_socks_rep_text(0x99), "unknown reply code");
}

UNIT_SUITE(np_socks,
           UNIT_TEST(test_greeting),
           UNIT_TEST(test_request),
           UNIT_TEST(test_request_split),
           UNIT_TEST(test_request_domain_lengths),
           UNIT_TEST(test_reply))
