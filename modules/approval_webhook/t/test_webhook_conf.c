/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook's checks, without a network: which URLs are accepted,
 * which token files, which failures are retried.  The real exchange is in
 * t/approval_webhook.sh against t/http-helper.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "approval_webhook_internal.h"
#include "unit.h"

static void test_urls(void)
{
        static const struct { const char *url; int ok; int https; } cases[] = {
                { "https://approve.example.com/q", 1, 1 },
                { "HTTPS://approve.example.com:8443/a/b?c=d", 1, 1 },
                { "http://127.0.0.1:8080/approve", 1, 0 },
                { "http://[::1]:8080/", 1, 0 },
                { "http://localhost/approve", 1, 0 },
                { "http://LocalHost:9/", 1, 0 },
                { "http://example.com/approve", 0, 0 },      /* plain http off the loopback */
                { "http://127.0.0.2/", 0, 0 },               /* loopback net, but not the documented address */
                { "http://localhost.example.com/", 0, 0 },
                { "http://127.0.0.1@evil.example/", 0, 0 },  /* userinfo, and not loopback */
                { "https://user:secret@approve.example.com/", 0, 0 },
                { "https://token@approve.example.com/", 0, 0 },
                { "ftp://approve.example.com/", 0, 0 },
                { "file:///etc/passwd", 0, 0 },
                { "approve.example.com", 0, 0 },             /* no scheme */
                { "", 0, 0 },
                { NULL, 0, 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *why = NULL;
                bool https = !cases[i].https;
                int r = awh_check_url(cases[i].url, &https, &why);
                if ((r == 0) != cases[i].ok)
                        fprintf(stderr, "\n  %s: r=%d why=%s", cases[i].url ? cases[i].url : "(null)", r, why);
                CU_ASSERT_EQUAL(r == 0, cases[i].ok);
                if (cases[i].ok) {
                        CU_ASSERT_EQUAL(https, cases[i].https);
                } else {
                        CU_ASSERT_PTR_NOT_NULL(why);
                }
        }
}

static char dir[64];

static const char *file_with(const char *name, const char *content, mode_t mode)
{
        static char path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        (void) unlink(path); /* an earlier case may have left it unwritable (as non-root) */
        f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(content, f);
        CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
        CU_ASSERT_EQUAL_FATAL(chmod(path, mode), 0);
        return path;
}

static void test_token_file(void)
{
        static const struct { const char *content; mode_t mode; const char *want; const char *why; } cases[] = {
                { "s3cr3t-T0ken_x.y~z+/=\n", 0600, "s3cr3t-T0ken_x.y~z+/=", NULL },
                { "tok\r\n\n  ", 0400, "tok", NULL },
                { "tok\n", 0640, NULL, "readable by group or others" },
                { "tok\n", 0604, NULL, "readable by group or others" },
                { "tok\n", 0620, NULL, "writable by group" },
                { "", 0600, NULL, "empty" },
                { "\n", 0600, NULL, "empty" },
                { "two words\n", 0600, NULL, "visible ASCII" },
                { "tok\r\nX-Injected: 1\n", 0600, NULL, "visible ASCII" }, /* a second header */
                { "t\xc3\xb6k\n", 0600, NULL, "visible ASCII" },
        };
        char buf[AWH_TOKEN_MAX], *big;
        const char *why;

        snprintf(dir, sizeof(dir), "/tmp/awh-unit.XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *path = file_with("token", cases[i].content, cases[i].mode);
                int r;
                why = NULL;
                r = awh_read_token(path, buf, sizeof(buf), &why);
                if ((r == 0) != (cases[i].want != NULL) || (why && cases[i].why && !strstr(why, cases[i].why)))
                        fprintf(stderr, "\n  token case %zu: r=%d why=%s", i, r, why ? why : "-");
                if (cases[i].want) {
                        CU_ASSERT_EQUAL(r, 0);
                        CU_ASSERT_STRING_EQUAL(buf, cases[i].want);
                } else {
                        CU_ASSERT(r < 0);
                        CU_ASSERT_PTR_NOT_NULL(why && strstr(why, cases[i].why));
                }
        }
        big = malloc(AWH_TOKEN_MAX + 10);
        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        memset(big, 'a', AWH_TOKEN_MAX + 9);
        big[AWH_TOKEN_MAX + 9] = '\0';
        CU_ASSERT(awh_read_token(file_with("big", big, 0600), buf, sizeof(buf), &why) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "longer than a token"));
        free(big);
        CU_ASSERT_EQUAL(awh_read_token("token", buf, sizeof(buf), &why), -EINVAL); /* relative */
        CU_ASSERT(awh_read_token("/nonexistent/token", buf, sizeof(buf), &why) < 0);
        CU_ASSERT(awh_read_token(dir, buf, sizeof(buf), &why) < 0);  /* a directory */
}

static void test_trusted_files(void)
{
        const char *why = NULL;

        CU_ASSERT_EQUAL(awh_check_file(file_with("ca.pem", "x", 0644), false, &why), 0);
        CU_ASSERT_EQUAL(awh_check_file(file_with("ca.pem", "x", 0664), false, &why), -EPERM); /* anyone may add a CA */
        CU_ASSERT_EQUAL(awh_check_file(file_with("key.pem", "x", 0644), true, &why), -EPERM);
        CU_ASSERT_EQUAL(awh_check_file(file_with("key.pem", "x", 0600), true, &why), 0);
        CU_ASSERT_EQUAL(awh_check_file("key.pem", true, &why), -EINVAL);
        CU_ASSERT_EQUAL(awh_check_file(dir, false, &why), -EINVAL);
}

static void test_retryable(void)
{
        struct awh_reply r = { 0 };

        r.status = 200;
        CU_ASSERT_FALSE(awh_retryable(&r));
        r.status = 302;
        CU_ASSERT_FALSE(awh_retryable(&r));
        r.status = 403;
        CU_ASSERT_FALSE(awh_retryable(&r));
        r.status = 429;
        CU_ASSERT_FALSE(awh_retryable(&r)); /* a 4xx is an answer: never retried */
        r.status = 500;
        CU_ASSERT_TRUE(awh_retryable(&r));
        r.status = 503;
        CU_ASSERT_TRUE(awh_retryable(&r));
        r.status = 0;
        r.curl_code = CURLE_COULDNT_CONNECT;
        CU_ASSERT_TRUE(awh_retryable(&r));
        r.curl_code = CURLE_GOT_NOTHING;
        CU_ASSERT_TRUE(awh_retryable(&r));
        r.curl_code = CURLE_OPERATION_TIMEDOUT;
        CU_ASSERT_FALSE(awh_retryable(&r)); /* the deadline is spent */
        r.curl_code = CURLE_PEER_FAILED_VERIFICATION;
        CU_ASSERT_FALSE(awh_retryable(&r));
        r.curl_code = CURLE_WRITE_ERROR; /* our cap cut a huge body */
        CU_ASSERT_FALSE(awh_retryable(&r));
}

static void test_cleanup(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CU_ASSERT_EQUAL(system(cmd), 0);
}

UNIT_SUITE(approval_webhook,
           UNIT_TEST(test_urls),
           UNIT_TEST(test_token_file),
           UNIT_TEST(test_trusted_files),
           UNIT_TEST(test_retryable),
           UNIT_TEST(test_cleanup))
