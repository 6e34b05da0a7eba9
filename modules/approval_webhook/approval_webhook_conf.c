/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook_conf.c - the checks on what a line names: the URL (the
 * question, and the token, go there), and the files whose contents decide
 * whom we trust (CA, client certificate and key, bearer token).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stk_trust.h"
#include "approval_webhook_internal.h"

/* Plain http only where no one else is on the wire: the loopback, for
 * tests and for an approval agent on this machine.  libcurl (>= 7.78)
 * resolves "localhost" to the loopback itself, without asking DNS. */
static bool host_is_loopback(const char *host)
{
        return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "[::1]") == 0 || strcasecmp(host, "localhost") == 0;
}

static int url_parts(CURLU *u, char **scheme, char **host, const char **ret_why)
{
        char *user = NULL, *password = NULL;

        if (awh_curl.url_get(u, CURLUPART_SCHEME, scheme, 0) != CURLUE_OK ||
            awh_curl.url_get(u, CURLUPART_HOST, host, 0) != CURLUE_OK) {
                *ret_why = "no scheme or no host";
                return -EINVAL;
        }
        (void) awh_curl.url_get(u, CURLUPART_USER, &user, 0);         /* absent: stays NULL */
        (void) awh_curl.url_get(u, CURLUPART_PASSWORD, &password, 0); /* absent: stays NULL */
        if (user || password) {
                awh_curl.free(user);
                awh_curl.free(password);
                *ret_why = "credentials in the URL (put a bearer token in token_file instead)";
                return -EINVAL;
        }
        return 0;
}

int awh_check_url(const char *url, bool *ret_https, const char **ret_why)
{
        char *scheme = NULL, *host = NULL;
        CURLU *u;
        int r;

        if (!url) {
                *ret_why = "the argument \"url\" is required";
                return -EINVAL;
        }
        r = awh_curl_load(ret_why);
        if (r < 0)
                return r;
        u = awh_curl.url();
        if (!u)
                return -ENOMEM;
        if (awh_curl.url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
                awh_curl.url_cleanup(u);
                *ret_why = "not a URL";
                return -EINVAL;
        }
        r = url_parts(u, &scheme, &host, ret_why);
        if (r >= 0 && strcasecmp(scheme, "https") == 0)
                *ret_https = true;
        else if (r >= 0 && strcasecmp(scheme, "http") == 0 && host_is_loopback(host))
                *ret_https = false;
        else if (r >= 0) {
                *ret_why = "https:// is required (http:// only to 127.0.0.1, [::1] or localhost)";
                r = -EINVAL;
        }
        awh_curl.free(scheme);
        awh_curl.free(host);
        awh_curl.url_cleanup(u);
        return r;
}

static int check_stat(const struct stat *st, bool secret, const char **ret_why)
{
        int r = stk_trust_stat(st, geteuid(), STK_TRUST_REGULAR, ret_why);

        if (r < 0)
                return r == -EACCES ? -EINVAL : r;
        if (secret && (st->st_mode & (S_IRWXG | S_IRWXO))) {
                *ret_why = "readable by group or others (chmod 600 it)";
                return -EPERM;
        }
        return 0;
}

int awh_check_file(const char *path, bool secret, const char **ret_why)
{
        struct stat st;

        if (!path || path[0] != '/') {
                *ret_why = "not an absolute path";
                return -EINVAL;
        }
        if (stat(path, &st) < 0) {
                *ret_why = "cannot stat it";
                return -errno;
        }
        return check_stat(&st, secret, ret_why);
}

/* Visible ASCII only: a CR or LF would end the header and start another. */
static bool token_chars_ok(const char *t, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (t[i] < 0x21 || t[i] > 0x7e)
                        return false;
        return n > 0;
}

int awh_read_token(const char *path, char *buf, size_t size, const char **ret_why)
{
        struct stat st;
        ssize_t n;
        int fd, r;

        if (!path || path[0] != '/') {
                *ret_why = "not an absolute path";
                return -EINVAL;
        }
        /* The file that is checked is the file that is read: one open, then
         * fstat.  A symlink is followed (secret volumes are made of them);
         * the file it leads to is what must be private. */
        fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                *ret_why = "cannot open it";
                return -errno;
        }
        if (fstat(fd, &st) < 0) {
                r = -errno;
                *ret_why = "fstat";
        } else
                r = check_stat(&st, true, ret_why);
        do
                n = r < 0 ? 0 : read(fd, buf, size);
        while (n < 0 && errno == EINTR);
        if (n < 0 && r >= 0) {
                r = -errno;
                *ret_why = "cannot read it";
        }
        (void) close(fd); /* read-only: nothing to flush */
        if (r < 0)
                return r;
        if ((size_t) n >= size) {
                *ret_why = "longer than a token";
                return -EINVAL;
        }
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
                n--;
        buf[n] = '\0';
        if (!token_chars_ok(buf, (size_t) n)) {
                *ret_why = "empty, or not one line of visible ASCII";
                return -EINVAL;
        }
        return 0;
}
