/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: where a request body ends (np_body.h): Content-Length,
 * chunked bodies split at every byte, malformed framing, limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_body.h"
#include "unit.h"

/* What follows a body in the tests: a smuggled second request. */
#define NEXT "GET http://evil/ HTTP/1.1\r\n\r\n"

static void test_length(void)
{
        static const uint8_t data[] = "hello" NEXT;
        struct np_body b;
        size_t used = 99;

        np_body_init_length(&b, 0);
        CU_ASSERT_EQUAL(np_body_feed(&b, data, 5, &used), NP_DONE);
        CU_ASSERT_EQUAL(used, 0);

        np_body_init_length(&b, 5);
        CU_ASSERT_EQUAL(np_body_feed(&b, data, 0, &used), NP_NEED_MORE);
        CU_ASSERT_EQUAL(used, 0);
        CU_ASSERT_EQUAL(np_body_feed(&b, data, 3, &used), NP_NEED_MORE);
        CU_ASSERT_EQUAL(used, 3);
        CU_ASSERT_EQUAL(np_body_feed(&b, data + 3, sizeof(data) - 4, &used), NP_DONE);
        CU_ASSERT_EQUAL(used, 2); /* the rest is not this request's */
        CU_ASSERT_EQUAL(np_body_feed(&b, data, 5, &used), NP_DONE);
        CU_ASSERT_EQUAL(used, 0);

        /* the largest length is a countdown like any other */
        np_body_init_length(&b, UINT64_MAX);
        CU_ASSERT_EQUAL(np_body_feed(&b, data, 5, &used), NP_NEED_MORE);
        CU_ASSERT_EQUAL(b.remaining, UINT64_MAX - 5);
}

static const char *const good_chunked[] = {
        "0\r\n\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        "A\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n",
        "00005\r\nhello\r\n000\r\n\r\n",                        /* leading zeros */
        "5;ext\r\nhello\r\n0;last\r\n\r\n",
        "5;a=b;c=\"d;e\\\"f\" ;g\r\nhello\r\n0\r\n\r\n",
        "5 ;a\r\nhello\r\n0\t;b\r\n\r\n",                     /* BWS before ';' */
        "5;a=\"\x80\xff\"\r\nhello\r\n0\r\n\r\n",               /* obs-text when quoted */
        "5\r\nhe\r\nl\r\n0\r\n\r\n",                            /* CRLF inside data is data */
        "0\r\nExpires: never\r\nX-Sum:  abc \r\nEmpty:\r\n\r\n", /* trailers */
        "1\r\n\0\r\n0\r\n\r\n",
};

/* Length of a good_chunked entry (one holds a NUL in its data). */
static size_t chunked_len(const char *s)
{
        size_t n = strlen(s);

        return strncmp(s, "1\r\n", 3) == 0 && n == 3 ? 3 + 1 + 2 + 5 : n;
}

static void test_chunked_good(void)
{
        for (size_t i = 0; i < sizeof(good_chunked) / sizeof(good_chunked[0]); i++) {
                size_t len = chunked_len(good_chunked[i]), used = 0;
                uint8_t *buf = malloc(len + sizeof(NEXT));
                struct np_body b;

                CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
                memcpy(buf, good_chunked[i], len);
                memcpy(buf + len, NEXT, sizeof(NEXT));
                np_body_init_chunked(&b, NULL);
                int r = np_body_feed(&b, buf, len + sizeof(NEXT) - 1, &used);
                if (r != NP_DONE || used != len)
                        fprintf(stderr, "\n  chunked[%zu]: %d used %zu of %zu (%s)", i, r, used, len,
                                b.why ? b.why : "");
                CU_ASSERT_EQUAL(r, NP_DONE);
                CU_ASSERT_EQUAL(used, len);
                CU_ASSERT_EQUAL(b.total, len);
                free(buf);
        }
}

/* Two reads split at every offset, and one byte per read: the same end. */
static void test_chunked_split(void)
{
        for (size_t i = 0; i < sizeof(good_chunked) / sizeof(good_chunked[0]); i++) {
                const uint8_t *s = (const uint8_t *)good_chunked[i];
                size_t len = chunked_len(good_chunked[i]);

                for (size_t k = 0; k < len; k++) {
                        struct np_body b;
                        size_t u1 = 0, u2 = 0;
                        np_body_init_chunked(&b, NULL);
                        CU_ASSERT_EQUAL(np_body_feed(&b, s, k, &u1), NP_NEED_MORE);
                        CU_ASSERT_EQUAL(u1, k);
                        CU_ASSERT_EQUAL(np_body_feed(&b, s + k, len - k, &u2), NP_DONE);
                        CU_ASSERT_EQUAL(u2, len - k);
                }
                struct np_body b;
                size_t used = 0, total = 0;
                int r = NP_NEED_MORE;
                np_body_init_chunked(&b, NULL);
                for (size_t k = 0; k < len && r == NP_NEED_MORE; k++) {
                        r = np_body_feed(&b, s + k, 1, &used);
                        total += used;
                }
                CU_ASSERT_EQUAL(r, NP_DONE);
                CU_ASSERT_EQUAL(total, len);
        }
}

static void test_chunked_bad(void)
{
        static const char *const t[] = {
                "",                                     /* (placeholder: never BAD, skipped) */
                "\r\n",                                 /* no size */
                " 5\r\nhello\r\n0\r\n\r\n",            /* whitespace before the size */
                "x\r\n",
                "-1\r\n",
                "+5\r\n",
                "0x5\r\n",
                "5\nhello\r\n0\r\n\r\n",               /* bare LF after the size */
                "5\r\nhello\n0\r\n\r\n",               /* bare LF after data */
                "5\r\nhello0\r\n\r\n",                 /* no CRLF after data */
                "5\r\nhello\rX",
                "5\r\nhelloX\r\n",
                "5\r\nhelloX\n0\r\n\r\n",                 /* anything but CR before the LF */
                "5\rhello",                             /* bare CR */
                "5 \r\nhello\r\n0\r\n\r\n",            /* BWS not followed by ';' */
                "5 5\r\n",
                "5;a\x01\r\n",
                "5;a\nb\r\n",
                "5;a=\"b\nc\"\r\n",
                "5;a=\"b\rc\"\r\n",
                "5;a=\"b\\\x01\"\r\n",
                "5;a=\x7f\r\n",
                "5;(\r\n",
                "10000000000000000\r\n",               /* 17 significant digits */
                "0\r\n\n",                              /* bare LF at the end */
                "0\r\n\r\r",
                "0\r\nX: 1\n\r\n",
                "0\r\n X: 1\r\n\r\n",                   /* obs-fold */
                "0\r\nX : 1\r\n\r\n",
                "0\r\nX\r\n\r\n",
                "0\r\n: 1\r\n\r\n",
                "0\r\nX: a\x01\r\n\r\n",
                "0\r\nX: a\rb\r\n\r\n",
        };

        for (size_t i = 1; i < sizeof(t) / sizeof(t[0]); i++) {
                struct np_body b;
                size_t used = 0;
                np_body_init_chunked(&b, NULL);
                int r = np_body_feed(&b, (const uint8_t *)t[i], strlen(t[i]), &used);
                if (r != NP_BAD)
                        fprintf(stderr, "\n  bad chunked[%zu] accepted: %d", i, r);
                CU_ASSERT_EQUAL(r, NP_BAD);
                CU_ASSERT(b.why && strlen(b.why) > 5);
                CU_ASSERT(used < strlen(t[i]));
                /* and it stays refused */
                CU_ASSERT_EQUAL(np_body_feed(&b, (const uint8_t *)"0\r\n\r\n", 5, &used), NP_BAD);
                CU_ASSERT_EQUAL(used, 0);
        }
}

/* 16 significant hex digits is the largest size; leading zeros are free. */
static void test_chunk_size_edge(void)
{
        static const char max[] = "ffffffffffffffff\r\n", zeros[] = "00000000000000000000000000ff\r\n";
        struct np_body b;
        size_t used;

        np_body_init_chunked(&b, NULL);
        CU_ASSERT_EQUAL(np_body_feed(&b, (const uint8_t *)max, strlen(max), &used), NP_NEED_MORE);
        CU_ASSERT_EQUAL(b.remaining, UINT64_MAX);
        np_body_init_chunked(&b, NULL);
        CU_ASSERT_EQUAL(np_body_feed(&b, (const uint8_t *)zeros, strlen(zeros), &used), NP_NEED_MORE);
        CU_ASSERT_EQUAL(b.remaining, 255);
}

static int feed_with(const struct np_body_limits *lim, const char *s, size_t len)
{
        struct np_body b;
        size_t used;

        np_body_init_chunked(&b, lim);
        return np_body_feed(&b, (const uint8_t *)s, len, &used);
}

static void test_limits(void)
{
        const struct np_body_limits lim = { 16, 40 };
        char buf[256];

        /* a size line of exactly 16 bytes (without CRLF), then 17 */
        snprintf(buf, sizeof(buf), "0;%s\r\n\r\n", "abcdefghijklmn");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_DONE);
        snprintf(buf, sizeof(buf), "0;%s\r\n\r\n", "abcdefghijklmno");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_BAD);
        /* leading zeros count against the line too */
        snprintf(buf, sizeof(buf), "00000000000000005\r\nhello\r\n0\r\n\r\n");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_BAD);
        snprintf(buf, sizeof(buf), "0000000000000005\r\nhello\r\n0\r\n\r\n");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_DONE);
        /* a trailer line of 16, then 17 */
        snprintf(buf, sizeof(buf), "0\r\nX: %s\r\n\r\n", "abcdefghijklm");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_DONE);
        snprintf(buf, sizeof(buf), "0\r\nX: %s\r\n\r\n", "abcdefghijklmn");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_BAD);
        /* the trailer section (after "0\r\n"): 18 + 14 + 6 + 2 = 40 bytes, then 41 */
        snprintf(buf, sizeof(buf), "0\r\nA: 1234567890123\r\nB: 123456789\r\nC: 1\r\n\r\n");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_DONE);
        snprintf(buf, sizeof(buf), "0\r\nA: 1234567890123\r\nB: 123456789\r\nC: 12\r\n\r\n");
        CU_ASSERT_EQUAL(feed_with(&lim, buf, strlen(buf)), NP_BAD);
        /* a line limit is not reset by data: a long chunk is fine */
        memset(buf, 'd', sizeof(buf));
        memcpy(buf, "c8\r\n", 4);
        memcpy(buf + 4 + 200, "\r\n0\r\n\r\n", 7);
        CU_ASSERT_EQUAL(feed_with(&lim, buf, 4 + 200 + 7), NP_DONE);
}

UNIT_SUITE(np_body,
           UNIT_TEST(test_length),
           UNIT_TEST(test_chunked_good),
           UNIT_TEST(test_chunked_split),
           UNIT_TEST(test_chunked_bad),
           UNIT_TEST(test_chunk_size_edge),
           UNIT_TEST(test_limits))
