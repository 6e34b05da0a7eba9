/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the strict HTTP/1.x request-head parser (RFC 9112) and what
 * the proxy answers or sends upstream.  What is accepted and refused, and
 * why, is in np_http.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "np_http.h"

enum { S_REQUEST_LINE = 0, S_HEADERS, S_DONE, S_BAD };

/* A continue signal inside the parser, never returned to the caller. */
#define NEXT_LINE (-1)

struct span {
        const char *s;
        size_t len;
};

static int bad(struct np_http_parser *p, int status, const char *why)
{
        p->state = S_BAD;
        p->status = status;
        p->why = why;
        return NP_BAD;
}

static bool span_ieq(struct span a, const char *lit)
{
        size_t n = strlen(lit);

        if (a.len != n)
                return false;
        for (size_t i = 0; i < n; i++)
                if (np_lower(a.s[i]) != lit[i])
                        return false;
        return true;
}

static struct span trim_ows(struct span v)
{
        while (v.len && (v.s[0] == ' ' || v.s[0] == '\t')) {
                v.s++;
                v.len--;
        }
        while (v.len && (v.s[v.len - 1] == ' ' || v.s[v.len - 1] == '\t'))
                v.len--;
        return v;
}

static bool all_tchar(struct span t)
{
        for (size_t i = 0; i < t.len; i++)
                if (!np_is_tchar((unsigned char)t.s[i]))
                        return false;
        return t.len > 0;
}

void np_http_parser_init(struct np_http_parser *p, const struct np_http_limits *lim)
{
        memset(p, 0, sizeof(*p));
        p->lim = lim ? *lim : NP_HTTP_LIMITS_DEFAULT;
        p->state = S_REQUEST_LINE;
}

void np_http_parser_init_tunnel(struct np_http_parser *p, const struct np_http_limits *lim)
{
        np_http_parser_init(p, lim);
        p->in_tunnel = true;
}

/* ---- targets --------------------------------------------------------- */

/* host[:port] or [v6][:port]; *port 0 when absent.  NULL, or why not. */
static const char *parse_authority(struct span a, struct np_host *host, uint16_t *port)
{
        size_t hostlen = a.len;
        const char *end;
        unsigned long v = 0;

        if (a.len == 0)
                return "empty host";
        if (memchr(a.s, '@', a.len))
                return "user information (user@host) in a request target";
        end = memchr(a.s, a.s[0] == '[' ? ']' : ':', a.len);
        if (a.s[0] == '[' && !end)
                return "unterminated [IPv6] host";
        if (end)
                hostlen = (size_t)(end - a.s) + (a.s[0] == '[' ? 1 : 0);
        if (hostlen < a.len) {
                size_t n = a.len - hostlen - 1;
                if (a.s[hostlen] != ':' || n == 0 || n > 5)
                        return "invalid port";
                for (size_t i = hostlen + 1; i < a.len; i++) {
                        if (a.s[i] < '0' || a.s[i] > '9')
                                return "invalid port";
                        v = v * 10 + (unsigned long)(a.s[i] - '0');
                }
                if (v == 0 || v > 65535)
                        return "port out of range 1..65535";
        }
        if (np_host_parse(a.s, hostlen, host) < 0)
                return "invalid host name or address";
        *port = (uint16_t)v;
        return NULL;
}

static bool is_hex(char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* RFC 3986 path-abempty [ "?" query ]: unreserved, sub-delims, ":", "@",
 * "/", "?" and %HH escapes.  A stricter set than some origins accept, but
 * a character outside it is where two parsers start to disagree. */
static bool valid_path(struct span t)
{
        for (size_t i = 0; i < t.len; i++) {
                char c = t.s[i];
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                        continue;
                if (c == '%') {
                        if (i + 2 >= t.len || !is_hex(t.s[i + 1]) || !is_hex(t.s[i + 2]))
                                return false;
                        i += 2;
                        continue;
                }
                if (!strchr("-._~!$&'()*+,;=:@/?", c))
                        return false;
        }
        return true;
}

static int parse_absolute(struct np_http_parser *p, const char *buf, struct span t)
{
        static const char http[] = "http://";
        size_t n = sizeof(http) - 1, end;
        const char *why;

        if (t.len == 1 && t.s[0] == '*')
                return bad(p, 400, "asterisk-form request to a proxy");
        if (t.s[0] == '/')
                return bad(p, 400, "origin-form request to a proxy: use an absolute URL (http://host/path)");
        if (t.len >= 8 && span_ieq((struct span){ t.s, 8 }, "https://"))
                return bad(p, 400, "https:// URL in a proxy request: use CONNECT");
        if (t.len < n || !span_ieq((struct span){ t.s, n }, http))
                return bad(p, 400, p->in_tunnel ? "request target is neither a path nor an http:// URL"
                                                 : "only http:// URLs are forwarded (https through CONNECT)");
        if (memchr(t.s, '#', t.len))
                return bad(p, 400, "fragment (#) in a request target");
        for (end = n; end < t.len && t.s[end] != '/' && t.s[end] != '?'; end++)
                ;
        why = parse_authority((struct span){ t.s + n, end - n }, &p->req.host, &p->req.port);
        if (why)
                return bad(p, 400, why);
        p->req.has_target_host = true;
        if (p->req.port == 0 && !p->in_tunnel)
                p->req.port = 80;
        if (!valid_path((struct span){ t.s + end, t.len - end }))
                return bad(p, 400, "invalid character or %-escape in the request path");
        p->req.path_off = (size_t)(t.s + end - buf);
        p->req.path_len = t.len - end;
        return NEXT_LINE;
}

/* Inside a tunnel the client speaks to the origin: origin-form (/path),
 * asterisk-form for OPTIONS, or absolute-form, which an origin must accept
 * too (RFC 9112 3.2.2) and which names a host of its own. */
static int parse_tunnel_target(struct np_http_parser *p, const char *buf, struct span t)
{
        if (p->req.is_connect)
                return bad(p, 400, "CONNECT inside a tunnel");
        if (t.len == 1 && t.s[0] == '*')
                return strcmp(p->req.method, "OPTIONS") == 0 ? NEXT_LINE
                                                             : bad(p, 400, "asterisk-form request other than OPTIONS");
        if (t.s[0] != '/')
                return parse_absolute(p, buf, t);
        if (t.len > 1 && t.s[1] == '/')
                return bad(p, 400, "request path starting with //"); /* an authority to a lenient origin */
        if (!valid_path(t))
                return bad(p, 400, "invalid character or %-escape in the request path");
        p->req.path_off = (size_t)(t.s - buf);
        p->req.path_len = t.len;
        return NEXT_LINE;
}

static int parse_connect_target(struct np_http_parser *p, struct span t)
{
        const char *why = parse_authority(t, &p->req.host, &p->req.port);

        if (why)
                return bad(p, 400, why);
        if (p->req.port == 0)
                return bad(p, 400, "CONNECT needs host:port");
        p->req.has_target_host = true;
        return NEXT_LINE;
}

/* ---- the request line ------------------------------------------------ */

/* HTTP/1.x: 0 with *minor, else the status to answer. */
static int parse_version(struct span v, unsigned *minor)
{
        bool shape = v.len == 8 && memcmp(v.s, "HTTP/", 5) == 0 && v.s[5] >= '0' && v.s[5] <= '9' &&
                     v.s[6] == '.' && v.s[7] >= '0' && v.s[7] <= '9';

        if (!shape)
                return 400;
        if (v.s[5] != '1')
                return 505;
        *minor = (unsigned)(v.s[7] - '0');
        return 0;
}

/* The method as far as it has arrived (up to its SP or n bytes): checked
 * the same way whether the line is complete or not, so the answer does not
 * depend on how the bytes were split. */
static int method_prefix(struct np_http_parser *p, const char *s, size_t n)
{
        for (size_t i = 0; i < n && s[i] != ' '; i++) {
                if (i == NP_HTTP_METHOD_MAX)
                        return bad(p, 501, "method too long");
                if (!np_is_tchar((unsigned char)s[i]))
                        return bad(p, 400, "not an HTTP request (method)");
        }
        return NEXT_LINE;
}

static int parse_method(struct np_http_parser *p, struct span m)
{
        if (m.len == 0)
                return bad(p, 400, "malformed request line (method)");
        memcpy(p->req.method, m.s, m.len); /* method_prefix capped its length */
        p->req.method[m.len] = '\0';
        if (strcmp(p->req.method, "TRACE") == 0)
                return bad(p, 405, "TRACE is not forwarded (it echoes request headers)");
        p->req.is_connect = strcmp(p->req.method, "CONNECT") == 0;
        return NEXT_LINE;
}

static int request_line(struct np_http_parser *p, const char *buf, struct span l)
{
        const char *sp1 = memchr(l.s, ' ', l.len), *sp2;
        struct span target, version;
        int r;

        if (!sp1)
                return bad(p, 400, "malformed request line");
        r = parse_method(p, (struct span){ l.s, (size_t)(sp1 - l.s) });
        if (r != NEXT_LINE)
                return r;
        sp2 = memchr(sp1 + 1, ' ', (size_t)(l.s + l.len - sp1 - 1));
        if (!sp2 || sp2 == sp1 + 1)
                return bad(p, 400, "malformed request line (target)");
        target = (struct span){ sp1 + 1, (size_t)(sp2 - sp1 - 1) };
        version = (struct span){ sp2 + 1, (size_t)(l.s + l.len - sp2 - 1) };
        r = parse_version(version, &p->req.version_minor);
        if (r == 505)
                return bad(p, 505, "only HTTP/1.x is spoken here");
        if (r)
                return bad(p, 400, "malformed request line (version)");
        for (size_t i = 0; i < target.len; i++)
                if ((unsigned char)target.s[i] <= 0x20 || (unsigned char)target.s[i] >= 0x7f)
                        return bad(p, 400, "invalid character in the request target");
        p->state = S_HEADERS;
        if (p->in_tunnel)
                return parse_tunnel_target(p, buf, target);
        return p->req.is_connect ? parse_connect_target(p, target) : parse_absolute(p, buf, target);
}

/* ---- header fields ---------------------------------------------------- */

/* Call `each` on every element of a comma-separated list; empty elements
 * are an error (RFC 9110 5.6.1 lets recipients skip them; we need not). */
static int each_element(struct np_http_parser *p, struct span v,
                        int (*each)(struct np_http_parser *p, struct span e))
{
        for (;;) {
                const char *comma = memchr(v.s, ',', v.len);
                struct span e = trim_ows((struct span){ v.s, comma ? (size_t)(comma - v.s) : v.len });
                int r;
                if (e.len == 0)
                        return bad(p, 400, "empty element in a header list");
                r = each(p, e);
                if (r != NEXT_LINE || !comma)
                        return r;
                v.len -= (size_t)(comma + 1 - v.s);
                v.s = comma + 1;
        }
}

static int te_element(struct np_http_parser *p, struct span e)
{
        if (span_ieq(e, "chunked")) {
                if (p->te_chunked++)
                        return bad(p, 400, "chunked applied twice");
                return NEXT_LINE;
        }
        if (p->te_chunked)
                return bad(p, 400, "chunked is not the last transfer coding");
        return bad(p, 501, "transfer codings other than chunked are not supported");
}

static int connection_element(struct np_http_parser *p, struct span e)
{
        if (!all_tchar(e))
                return bad(p, 400, "invalid Connection option");
        if (span_ieq(e, "content-length") || span_ieq(e, "transfer-encoding") || span_ieq(e, "host"))
                return bad(p, 400, "Connection names a header that frames or routes the request");
        return NEXT_LINE;
}

static int content_length(struct np_http_parser *p, struct span v)
{
        uint64_t n = 0;

        if (v.len == 0 || v.len > 19) /* 19 digits never overflow 64 bits */
                return bad(p, 400, "invalid or too large Content-Length");
        for (size_t i = 0; i < v.len; i++) {
                if (v.s[i] < '0' || v.s[i] > '9')
                        return bad(p, 400, "invalid Content-Length");
                n = n * 10 + (uint64_t)(v.s[i] - '0');
        }
        if (p->req.has_content_length && p->req.content_length != n)
                return bad(p, 400, "conflicting Content-Length headers");
        p->req.has_content_length = true;
        p->req.content_length = n;
        return NEXT_LINE;
}

static int host_header(struct np_http_parser *p, struct span v)
{
        if (p->req.has_host_header)
                return bad(p, 400, "more than one Host header");
        p->req.has_host_header = true;
        if (parse_authority(v, &p->req.host_header, &p->req.host_header_port))
                return bad(p, 400, "invalid Host header");
        return NEXT_LINE;
}

static int known_header(struct np_http_parser *p, struct span name, struct span v)
{
        if (span_ieq(name, "host"))
                return host_header(p, v);
        if (span_ieq(name, "content-length"))
                return content_length(p, v);
        if (span_ieq(name, "transfer-encoding")) {
                p->has_te = true;
                return each_element(p, v, te_element);
        }
        if (span_ieq(name, "connection"))
                return each_element(p, v, connection_element);
        if (span_ieq(name, "upgrade")) {
                /* Forwarding, the proxy drops it; a tunnel passes bytes as they
                 * are, and after a 101 answer the stream is no longer HTTP. */
                if (p->in_tunnel)
                        return bad(p, 400, "Upgrade inside a tunnel: what follows could not be checked");
                p->req.has_upgrade = true;
        }
        return NEXT_LINE;
}

static int header_line(struct np_http_parser *p, struct span l)
{
        const char *colon;
        struct span name, value;

        if (l.s[0] == ' ' || l.s[0] == '\t')
                return bad(p, 400, "obsolete line folding in a header");
        colon = memchr(l.s, ':', l.len);
        if (!colon)
                return bad(p, 400, "header line without a colon");
        name = (struct span){ l.s, (size_t)(colon - l.s) };
        if (name.len && (name.s[name.len - 1] == ' ' || name.s[name.len - 1] == '\t'))
                return bad(p, 400, "whitespace between a header name and its colon");
        if (!all_tchar(name))
                return bad(p, 400, "invalid header name");
        value = trim_ows((struct span){ colon + 1, (size_t)(l.s + l.len - colon - 1) });
        for (size_t i = 0; i < value.len; i++)
                if (!np_is_field_char((unsigned char)value.s[i]))
                        return bad(p, 400, "control character in a header value");
        return known_header(p, name, value);
}

/* The empty line: the checks that need the whole head. */
static int finish(struct np_http_parser *p, size_t head_len)
{
        struct np_http_req *r = &p->req;

        if (r->version_minor >= 1 && !r->has_host_header)
                return bad(p, 400, "HTTP/1.1 request without a Host header");
        if (p->in_tunnel && !r->has_host_header)
                return bad(p, 400, "request without a Host header inside a tunnel"); /* the origin would pick one */
        if (r->is_connect && (r->has_content_length || p->has_te))
                return bad(p, 400, "CONNECT with a body");
        if (p->has_te && r->has_content_length)
                return bad(p, 400, "both Transfer-Encoding and Content-Length");
        if (p->has_te && r->version_minor == 0)
                return bad(p, 400, "Transfer-Encoding in an HTTP/1.0 request");
        r->is_chunked = p->te_chunked == 1;
        r->head_len = head_len;
        p->state = S_DONE;
        return NP_DONE;
}

/* ---- lines ------------------------------------------------------------- */

static int too_long(struct np_http_parser *p)
{
        return p->state == S_REQUEST_LINE ? bad(p, 414, "request line too long")
                                          : bad(p, 431, "header line too long");
}

/* The method as far as a limit lets it be judged (see one_line). */
static int method_within_line(struct np_http_parser *p, const char *s, size_t n)
{
        return method_prefix(p, s, n < p->lim.max_line + 1 ? n : p->lim.max_line + 1);
}

/*
 * The complete line [start, lf], LF at `lf`.  The checks incomplete()
 * makes on a partial line come first and in its order (method, length,
 * head size), each on the bytes it could have seen, so the answer, status
 * included, does not depend on where the reads were cut.
 */
static int one_line(struct np_http_parser *p, const char *buf, size_t start, size_t lf)
{
        bool first = p->state == S_REQUEST_LINE;
        size_t before_lf = lf - start; /* the content and its CR */
        struct span l;

        if (first && method_within_line(p, buf + start, before_lf) != NEXT_LINE)
                return NP_BAD;
        if (before_lf > p->lim.max_line + 1)
                return too_long(p);
        if (lf + 1 > p->lim.max_head)
                return bad(p, 431, "request head too large");
        if (before_lf == 0 || buf[lf - 1] != '\r')
                return bad(p, 400, "line not ended by CRLF");
        l = (struct span){ buf + start, before_lf - 1 };
        if (first)
                return l.len ? request_line(p, buf, l) : bad(p, 400, "empty line before the request line");
        if (l.len == 0)
                return finish(p, lf + 1);
        if (++p->req.n_headers > p->lim.max_headers)
                return bad(p, 431, "too many header fields");
        return header_line(p, l);
}

/* No LF yet after p->pos: refuse what can already be refused. */
static int incomplete(struct np_http_parser *p, const char *buf, size_t len)
{
        size_t n = len - p->pos;

        /* Not HTTP at all (a TLS ClientHello sent to the proxy port, say):
         * say so now rather than wait for a line that never comes. */
        if (p->state == S_REQUEST_LINE && method_within_line(p, buf + p->pos, n) != NEXT_LINE)
                return NP_BAD;
        /* n bytes without LF hold at least n - 1 bytes of content (the
         * last may be the CR). */
        if (n > p->lim.max_line + 1)
                return too_long(p);
        if (len > p->lim.max_head)
                return bad(p, 431, "request head too large");
        return NP_NEED_MORE;
}

int np_http_parse(struct np_http_parser *p, const char *buf, size_t len)
{
        if (p->state == S_DONE)
                return NP_DONE;
        if (p->state == S_BAD)
                return NP_BAD;
        if (len < p->scan) /* the caller broke the append-only contract */
                return bad(p, 500, "request buffer shrank");
        for (;;) {
                const char *lf = p->scan < len ? memchr(buf + p->scan, '\n', len - p->scan) : NULL;
                int r;
                if (!lf) {
                        p->scan = len;
                        return incomplete(p, buf, len);
                }
                p->scan = (size_t)(lf - buf) + 1;
                r = one_line(p, buf, p->pos, (size_t)(lf - buf));
                if (r != NEXT_LINE)
                        return r;
                p->pos = p->scan;
        }
}

/* ---- the upstream head ----------------------------------------------- */

struct writer {
        char *out;
        size_t size, len;
        bool overflow;
};

static void put(struct writer *w, const char *s, size_t n)
{
        if (w->overflow || n > w->size - w->len) {
                w->overflow = true;
                return;
        }
        memcpy(w->out + w->len, s, n);
        w->len += n;
}

static void puts_w(struct writer *w, const char *s)
{
        put(w, s, strlen(s));
}

/* The next header line of a validated head: name and whole line. */
static bool next_header(const char *buf, size_t head_len, size_t *pos, struct span *name, struct span *line)
{
        const char *lf = memchr(buf + *pos, '\n', head_len - *pos);
        const char *colon;

        if (!lf || lf == buf + *pos + 1) /* the final CRLF */
                return false;
        *line = (struct span){ buf + *pos, (size_t)(lf - 1 - (buf + *pos)) };
        colon = memchr(line->s, ':', line->len);
        *name = (struct span){ line->s, colon ? (size_t)(colon - line->s) : 0 };
        *pos = (size_t)(lf - buf) + 1;
        return true;
}

static bool in_list(struct span v, struct span name)
{
        for (;;) {
                const char *comma = memchr(v.s, ',', v.len);
                struct span e = trim_ows((struct span){ v.s, comma ? (size_t)(comma - v.s) : v.len });
                if (e.len == name.len) {
                        size_t i = 0;
                        while (i < e.len && np_lower(e.s[i]) == np_lower(name.s[i]))
                                i++;
                        if (i == e.len)
                                return true;
                }
                if (!comma)
                        return false;
                v.len -= (size_t)(comma + 1 - v.s);
                v.s = comma + 1;
        }
}

static bool named_by_connection(const char *buf, size_t start, size_t head_len, struct span name)
{
        struct span n, line;
        size_t pos = start;

        while (next_header(buf, head_len, &pos, &n, &line)) {
                if (!span_ieq(n, "connection"))
                        continue;
                struct span v = { n.s + n.len + 1, line.len - n.len - 1 };
                if (in_list(v, name))
                        return true;
        }
        return false;
}

static bool dropped(struct span name)
{
        static const char *const hop[] = {
                "connection", "proxy-connection", "keep-alive", "proxy-authorization",
                "proxy-authenticate", "te", "trailer", "upgrade", "http2-settings",
                /* written once, canonically, by np_http_rewrite itself */
                "host", "content-length", "transfer-encoding", NULL,
        };

        for (size_t i = 0; hop[i]; i++)
                if (span_ieq(name, hop[i]))
                        return true;
        return false;
}

static void put_request_line(struct writer *w, const struct np_http_req *r, const char *buf)
{
        char port[16];

        puts_w(w, r->method);
        puts_w(w, " ");
        if (r->path_len == 0 || buf[r->path_off] == '?')
                puts_w(w, "/");
        put(w, buf + r->path_off, r->path_len);
        puts_w(w, r->version_minor == 0 ? " HTTP/1.0\r\nHost: " : " HTTP/1.1\r\nHost: ");
        puts_w(w, r->host.kind == NP_HOST_IPV6 ? "[" : "");
        put(w, r->host.text, r->host.len);
        puts_w(w, r->host.kind == NP_HOST_IPV6 ? "]" : "");
        if (r->port != 80) {
                snprintf(port, sizeof(port), ":%u", (unsigned)r->port);
                puts_w(w, port);
        }
        puts_w(w, "\r\n");
}

int np_http_rewrite(const struct np_http_parser *p, const char *buf, char *out, size_t outsz)
{
        const struct np_http_req *r = &p->req;
        struct writer w = { out, outsz, 0, false };
        const char *lf;
        size_t start, pos;
        struct span name, line;
        char cl[48];

        if (p->state != S_DONE || r->is_connect || p->in_tunnel)
                return -EINVAL;
        put_request_line(&w, r, buf);
        lf = memchr(buf, '\n', r->head_len);
        start = pos = (size_t)(lf - buf) + 1;
        while (next_header(buf, r->head_len, &pos, &name, &line)) {
                if (dropped(name) || named_by_connection(buf, start, r->head_len, name))
                        continue;
                put(&w, line.s, line.len);
                puts_w(&w, "\r\n");
        }
        if (r->has_content_length) {
                snprintf(cl, sizeof(cl), "Content-Length: %" PRIu64 "\r\n", r->content_length);
                puts_w(&w, cl);
        }
        if (r->is_chunked)
                puts_w(&w, "Transfer-Encoding: chunked\r\n");
        puts_w(&w, "Connection: close\r\n\r\n");
        if (w.overflow || w.len > (size_t)INT32_MAX)
                return -ENOBUFS;
        return (int)w.len;
}

/* ---- answers ------------------------------------------------------------ */

const char *np_http_status_text(int status)
{
        switch (status) {
        case 400: return "Bad Request";
        case 403: return "Forbidden";
        case 405: return "Method Not Allowed";
        case 407: return "Proxy Authentication Required";
        case 411: return "Length Required";
        case 413: return "Content Too Large";
        case 414: return "URI Too Long";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        case 504: return "Gateway Timeout";
        case 505: return "HTTP Version Not Supported";
        default: return NULL;
        }
}

int np_http_error_response(int status, const char *reason, char *buf, size_t size)
{
        const char *text = np_http_status_text(status);
        char body[1100];
        size_t n = 0;
        int len;

        if (!text)
                return -EINVAL;
        if (!reason)
                reason = text;
        n = (size_t)snprintf(body, sizeof(body), "stockade: ");
        /* The reason may quote what the client sent: keep it one printable line. */
        for (const char *c = reason; *c && n < 1024; c++)
                body[n++] = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
        body[n++] = '\n';
        body[n] = '\0';
        len = snprintf(buf, size,
                       "HTTP/1.1 %d %s\r\n"
                       "Content-Type: text/plain; charset=utf-8\r\n"
                       "Content-Length: %zu\r\n"
                       "X-Content-Type-Options: nosniff\r\n"
                       "Connection: close\r\n"
                       "\r\n%s",
                       status, text, n, body);
        if (len < 0)
                return -EINVAL;
        if ((size_t)len >= size)
                return -ENOBUFS;
        return len;
}
