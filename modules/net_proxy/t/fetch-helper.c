/* SPDX-License-Identifier: MIT */
/*
 * fetch-helper [--socks] [--noproxy] [--tunnel] [--connect-to SPEC]
 *              [--header H] [--timeout S] URL
 * A libcurl client for the proxy tests, run inside the sandbox.  By default
 * it uses the proxy variables the plan set (libcurl reads them itself);
 * --socks uses ALL_PROXY for every scheme; --noproxy ignores the variables
 * (a direct connection).  NO_PROXY is not honoured (the plan names loopback
 * there in a namespace of the sandbox's own): these tests judge the proxy,
 * loopback destinations included, as a client that ignores NO_PROXY sees it.
 * Prints "status=N bytes=N body=FIRST-LINE" and
 * exits 0 on 2xx, 2 on another status; "error=N MESSAGE" and 1 when the
 * transfer failed.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
        size_t bytes;
        char first[128];
};

static size_t on_data(char *p, size_t size, size_t n, void *userdata)
{
        struct sink *s = userdata;
        size_t len = size * n;

        if (s->bytes == 0)
                snprintf(s->first, sizeof(s->first), "%.*s", (int) strcspn(p, "\r\n") < (int) len ? (int) strcspn(p, "\r\n") : (int) len, p);
        s->bytes += len;
        return len;
}

int main(int argc, char **argv)
{
        struct curl_slist *headers = NULL, *connect_to = NULL;
        struct sink s = { 0 };
        char err[CURL_ERROR_SIZE] = "";
        long status = 0, timeout = 10;
        CURL *c;
        CURLcode rc;
        int i;

        curl_global_init(CURL_GLOBAL_DEFAULT);
        c = curl_easy_init();
        if (!c)
                return 1;
        curl_easy_setopt(c, CURLOPT_NOPROXY, ""); /* "": the proxy for every host, whatever NO_PROXY says */
        for (i = 1; i < argc - 1; i++) {
                if (!strcmp(argv[i], "--socks"))
                        curl_easy_setopt(c, CURLOPT_PROXY, getenv("ALL_PROXY"));
                else if (!strcmp(argv[i], "--noproxy"))
                        curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
                else if (!strcmp(argv[i], "--tunnel"))
                        curl_easy_setopt(c, CURLOPT_HTTPPROXYTUNNEL, 1L);
                else if (!strcmp(argv[i], "--connect-to") && i + 1 < argc - 1)
                        connect_to = curl_slist_append(connect_to, argv[++i]);
                else if (!strcmp(argv[i], "--header") && i + 1 < argc - 1)
                        headers = curl_slist_append(headers, argv[++i]);
                else if (!strcmp(argv[i], "--timeout") && i + 1 < argc - 1)
                        timeout = atol(argv[++i]);
                else {
                        fprintf(stderr, "fetch-helper: bad option %s\n", argv[i]);
                        return 64;
                }
        }
        if (i != argc - 1) {
                fprintf(stderr, "usage: fetch-helper [options] URL\n");
                return 64;
        }
        curl_easy_setopt(c, CURLOPT_URL, argv[argc - 1]);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L); /* test origins are self-signed */
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        if (headers)
                curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        if (connect_to)
                curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to);
        rc = curl_easy_perform(c);
        if (rc != CURLE_OK) {
                printf("error=%d %s\n", (int) rc, *err ? err : curl_easy_strerror(rc));
                return 1;
        }
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        printf("status=%ld bytes=%zu body=%s\n", status, s.bytes, s.first);
        curl_slist_free_all(headers);
        curl_slist_free_all(connect_to);
        curl_easy_cleanup(c);
        curl_global_cleanup();
        return status >= 200 && status < 300 ? 0 : 2;
}
