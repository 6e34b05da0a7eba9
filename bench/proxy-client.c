/* SPDX-License-Identifier: MIT */
/*
 * proxy-client MODE URL [N] [--noproxy] [--tunnel]: the client side of
 * bench/proxy, run inside the sandbox (through the proxy) and outside
 * (direct) in the same run.
 *   throughput URL        one download; prints "bytes=N seconds=S"
 *   latency URL N         N requests, each on a fresh connection; prints the
 *                         median milliseconds per request
 *   concurrent URL N      N transfers at once (curl multi); prints how many
 *                         completed with 200
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int noproxy, tunnel;

static size_t sink(char *p, size_t size, size_t n, void *userdata)
{
        *(size_t *) userdata += size * n;
        return size * n;
}

static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static CURL *easy(const char *url, size_t *bytes)
{
        CURL *c = curl_easy_init();

        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, bytes);
        curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
        if (noproxy)
                curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
        if (tunnel)
                curl_easy_setopt(c, CURLOPT_HTTPPROXYTUNNEL, 1L);
        return c;
}

static int cmp(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
        const char *mode, *url;
        long n = 1;
        int args = 0;
        char *pos[3] = { 0 };

        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--noproxy"))
                        noproxy = 1;
                else if (!strcmp(argv[i], "--tunnel"))
                        tunnel = 1;
                else if (args < 3)
                        pos[args++] = argv[i];
        }
        if (args < 2)
                return 64;
        mode = pos[0];
        url = pos[1];
        if (pos[2])
                n = atol(pos[2]);
        curl_global_init(CURL_GLOBAL_DEFAULT);
        if (!strcmp(mode, "throughput")) {
                size_t bytes = 0;
                CURL *c = easy(url, &bytes);
                double t0 = now();
                CURLcode rc = curl_easy_perform(c);
                printf("bytes=%zu seconds=%.4f rc=%d\n", bytes, now() - t0, (int) rc);
                return rc != CURLE_OK;
        }
        if (!strcmp(mode, "latency")) {
                double *ms = calloc((size_t) n, sizeof(*ms));
                for (long i = 0; i < n; i++) {
                        size_t bytes = 0;
                        CURL *c = easy(url, &bytes);
                        double t0 = now();
                        if (curl_easy_perform(c) != CURLE_OK)
                                return 1;
                        ms[i] = (now() - t0) * 1e3;
                        curl_easy_cleanup(c);
                }
                qsort(ms, (size_t) n, sizeof(*ms), cmp);
                printf("median_ms=%.3f\n", ms[n / 2]);
                return 0;
        }
        if (!strcmp(mode, "concurrent")) {
                CURLM *m = curl_multi_init();
                size_t *bytes = calloc((size_t) n, sizeof(*bytes));
                int running = 1, done = 0;
                CURLMsg *msg;
                int left;

                curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, n);
                for (long i = 0; i < n; i++)
                        curl_multi_add_handle(m, easy(url, &bytes[i]));
                while (running) {
                        curl_multi_perform(m, &running);
                        curl_multi_poll(m, NULL, 0, 100, NULL);
                }
                while ((msg = curl_multi_info_read(m, &left))) {
                        long status = 0;
                        curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
                        done += msg->data.result == CURLE_OK && status == 200;
                }
                printf("completed=%d of %ld\n", done, n);
                return done != n;
        }
        return 64;
}
