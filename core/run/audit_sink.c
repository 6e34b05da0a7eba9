/* SPDX-License-Identifier: MIT */
/*
 * Audit sinks besides a file (stockade.yaml(5), audit): security teams ship
 * these to their SIEM.
 *
 *   syslog[:/socket]   RFC 5424 over a unix datagram socket (default
 *                      /dev/log): <86>1 TIME HOST stockade PID TYPE - JSON
 *                      (facility authpriv, severity info; MSGID the
 *                      record's type; the JSON record is the message)
 *   journal[:/socket]  the systemd journal's native protocol (default
 *                      /run/systemd/journal/socket), no libsystemd:
 *                      MESSAGE=JSON, PRIORITY, SYSLOG_IDENTIFIER,
 *                      STOCKADE_TYPE, STOCKADE_RUN, one datagram a record;
 *                      a record too large for one is passed in a sealed
 *                      memfd, as sd_journal_send does
 *
 * audit.c writes records as lines to a FILE *; for a sink that FILE * is a
 * cookie stream (fopencookie) that turns each complete line into one
 * datagram, so audit.c's writing, folding and caps apply unchanged.  A
 * record that cannot be sent fails the write, as a full disk does for a
 * file; a sink whose socket cannot be reached fails the open (the run
 * does not start without its audit trail).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <json-c/json.h>

#include "common/stk_buf.h"
#include "core.h"
#include "util/util.h"

#if defined(__GLIBC__) && defined(_GNU_SOURCE)
#include <sys/mman.h>

#define SYSLOG_PRI_AUTHPRIV_INFO 86 /* facility 10 (authpriv) * 8 + severity 6 (info) */

struct sink {
        enum core_audit_kind kind;
        int fd;                 /* a connected AF_UNIX datagram socket */
        struct stk_buf line;    /* the record's bytes until its newline */
};

static int connect_socket(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* The record's "type" and "run", for the header and the journal fields. */
static void record_meta(const char *json, char *type, size_t type_size, char *run, size_t run_size)
{
        struct json_object *o = json_tokener_parse(json), *v;

        snprintf(type, type_size, "-");
        snprintf(run, run_size, "-");
        if (o && json_object_object_get_ex(o, "type", &v))
                snprintf(type, type_size, "%s", json_object_get_string(v));
        if (o && json_object_object_get_ex(o, "run", &v))
                snprintf(run, run_size, "%s", json_object_get_string(v));
        json_object_put(o);
}

/* RFC 5424 MSGID: 1 to 32 printable US-ASCII characters. */
static void msgid_sanitize(char *s)
{
        s[32] = '\0';
        for (char *c = s; *c; c++)
                if (*c <= ' ' || *c > '~')
                        *c = '_';
}

static int send_syslog(struct sink *s, const char *json)
{
        char host[256] = "-", type[64], run[64], when[40];
        struct timespec ts;
        struct tm tm;
        struct iovec iov[2];
        char head[512];
        int n;

        record_meta(json, type, sizeof(type), run, sizeof(run));
        msgid_sanitize(type);
        if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
                snprintf(host, sizeof(host), "-");
        if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm))
                return -errno;
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
        n = snprintf(head, sizeof(head), "<%d>1 %s.%06ldZ %s stockade %ld %s - ", SYSLOG_PRI_AUTHPRIV_INFO,
                     when, ts.tv_nsec / 1000, host, (long) getpid(), type);
        if (n < 0 || (size_t) n >= sizeof(head))
                return -EOVERFLOW;
        iov[0] = (struct iovec) { .iov_base = head, .iov_len = (size_t) n };
        iov[1] = (struct iovec) { .iov_base = (void *) json, .iov_len = strlen(json) };
        return writev(s->fd, iov, 2) < 0 ? -errno : 0;
}

/* A datagram too large for the socket goes as a sealed memfd (the
 * journal reads it whole; systemd's journal-send.c does the same). */
static int send_journal_memfd(int sock, const char *msg, size_t len)
{
        union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl = { 0 };
        struct msghdr mh = { .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
        _cleanup_close_ int fd = memfd_create("stockade-audit", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        size_t done = 0;

        if (fd < 0)
                return -errno;
        while (done < len) {
                ssize_t w = write(fd, msg + done, len - done);
                if (w < 0)
                        return -errno;
                done += (size_t) w;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                return -errno;
        ctl.h.cmsg_level = SOL_SOCKET;
        ctl.h.cmsg_type = SCM_RIGHTS;
        ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(&ctl.h), &fd, sizeof(int));
        return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int send_journal(struct sink *s, const char *json)
{
        _cleanup_free_ char *msg = NULL;
        char type[64], run[64];
        int n;

        record_meta(json, type, sizeof(type), run, sizeof(run));
        /* Field values must not hold a newline: the JSON is printed plain
         * (escapes, no newline), type and run are the core's own words. */
        if (strchr(json, '\n') || strchr(type, '\n') || strchr(run, '\n'))
                return -EINVAL;
        n = asprintf(&msg, "MESSAGE=%s\nPRIORITY=6\nSYSLOG_FACILITY=10\nSYSLOG_IDENTIFIER=stockade\n"
                     "STOCKADE_TYPE=%s\nSTOCKADE_RUN=%s\n", json, type, run);
        if (n < 0)
                return -ENOMEM;
        if (send(s->fd, msg, (size_t) n, MSG_NOSIGNAL) >= 0)
                return 0;
        if (errno != EMSGSIZE && errno != ENOBUFS)
                return -errno;
        return send_journal_memfd(s->fd, msg, (size_t) n);
}

/* Send the complete line gathered so far as one record. */
static int flush_line(struct sink *s)
{
        int r = s->line.err;

        if (r >= 0 && s->line.len > 0)
                r = s->kind == CORE_AUDIT_SYSLOG ? send_syslog(s, s->line.s) : send_journal(s, s->line.s);
        stk_buf_done(&s->line);
        s->line = (struct stk_buf) { 0 };
        return r;
}

static ssize_t sink_write(void *cookie, const char *data, size_t size)
{
        struct sink *s = cookie;
        const char *p = data, *end = data + size;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                int r;

                stk_buf_add(&s->line, p, (size_t) ((nl ? nl : end) - p));
                if (!nl)
                        break;
                p = nl + 1;
                r = flush_line(s);
                if (r < 0) {
                        errno = -r;
                        return -1;
                }
        }
        return (ssize_t) size;
}

static int sink_close(void *cookie)
{
        struct sink *s = cookie;
        int r = close(s->fd);

        stk_buf_done(&s->line);
        free(s);
        return r;
}

int core_audit_sink_open(struct core_run *run, const char *spec)
{
        static const cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
        const char *path = NULL;
        struct sink *s;
        int kind = core_audit_kind(spec, &path), fd;

        if (kind <= 0)
                return -EINVAL;
        fd = connect_socket(path);
        if (fd < 0) {
                core_log(STK_LOG_ERROR, "cannot open audit sink %s (%s): %s", spec, path, strerror(-fd));
                return fd;
        }
        s = calloc(1, sizeof(*s));
        if (!s) {
                close(fd);
                return -ENOMEM;
        }
        *s = (struct sink) { .kind = kind, .fd = fd };
        run->audit = fopencookie(s, "w", io);
        if (!run->audit) {
                sink_close(s);
                return -ENOMEM;
        }
        return 0;
}
#else
/* The portable build (macOS) has no fopencookie: a sink there is refused,
 * never turned into a file of that name. */
int core_audit_sink_open(struct core_run *run, const char *spec)
{
        core_log(STK_LOG_ERROR, "audit sink %s: not supported on this system; expected a file", spec);
        return -EOPNOTSUPP;
}
#endif
