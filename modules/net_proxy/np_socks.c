/* SPDX-License-Identifier: MIT */
/* net_proxy: SOCKS5 greeting, request and reply (RFC 1928); see np_socks.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_socks.h"

#define SOCKS_VERSION 5
#define METHOD_NO_AUTH 0x00
#define METHOD_NONE_ACCEPTABLE 0xff

int np_socks_greeting(const uint8_t *buf, size_t len, size_t *consumed, uint8_t reply[2],
                      size_t *reply_len, const char **why)
{
        size_t n;

        *reply_len = 0;
        if (len < 1)
                return NP_NEED_MORE;
        if (buf[0] != SOCKS_VERSION) {
                *why = buf[0] == 4 ? "SOCKS4 is not supported (use SOCKS5)" : "not a SOCKS5 greeting";
                return NP_BAD;
        }
        if (len < 2)
                return NP_NEED_MORE;
        n = buf[1];
        reply[0] = SOCKS_VERSION;
        reply[1] = METHOD_NONE_ACCEPTABLE;
        if (n == 0) {
                *why = "SOCKS5 greeting offers no method";
                *reply_len = 2;
                return NP_BAD;
        }
        if (len < 2 + n)
                return NP_NEED_MORE;
        *reply_len = 2;
        if (!memchr(buf + 2, METHOD_NO_AUTH, n)) {
                *why = "the SOCKS5 client does not offer the no-authentication method";
                return NP_BAD;
        }
        reply[1] = METHOD_NO_AUTH;
        *consumed = 2 + n;
        return NP_DONE;
}

static int refuse(uint8_t *rep, const char **why, uint8_t code, const char *text)
{
        *rep = code;
        *why = text;
        return NP_BAD;
}

/* ATYP and address at buf[3..]: its length, or 0 while more is needed
 * (with the domain length known), -1 for an unknown type. */
static long address_len(const uint8_t *buf, size_t len)
{
        switch (buf[3]) {
        case NP_SOCKS_ATYP_IPV4:
                return 4;
        case NP_SOCKS_ATYP_IPV6:
                return 16;
        case NP_SOCKS_ATYP_DOMAIN:
                return len < 5 ? 0 : 1 + (long)buf[4];
        default:
                return -1;
        }
}

static int parse_address(const uint8_t *a, uint8_t atyp, struct np_host *host, uint8_t *rep, const char **why)
{
        struct np_ip ip = { .family = atyp == NP_SOCKS_ATYP_IPV4 ? AF_INET : AF_INET6 };

        if (atyp == NP_SOCKS_ATYP_DOMAIN) {
                if (a[0] == 0)
                        return refuse(rep, why, NP_SOCKS_FAILURE, "empty SOCKS5 domain name");
                if (np_host_parse((const char *)a + 1, a[0], host) < 0)
                        return refuse(rep, why, NP_SOCKS_HOST_UNREACHABLE,
                                      "SOCKS5 domain is not a valid host name or address");
                return NP_DONE;
        }
        memcpy(ip.bytes, a, atyp == NP_SOCKS_ATYP_IPV4 ? 4 : 16);
        memset(host, 0, sizeof(*host));
        host->kind = atyp == NP_SOCKS_ATYP_IPV4 ? NP_HOST_IPV4 : NP_HOST_IPV6;
        host->ip = ip;
        int n = np_ip_to_string(&ip, host->text, sizeof(host->text));
        if (n < 0)
                return refuse(rep, why, NP_SOCKS_FAILURE, "unprintable address");
        host->len = (size_t)n;
        return NP_DONE;
}

int np_socks_request_parse(const uint8_t *buf, size_t len, struct np_socks_request *req, size_t *consumed,
                           uint8_t *rep, const char **why)
{
        struct np_socks_request r = { 0 };
        long alen;
        size_t total;

        if (len >= 1 && buf[0] != SOCKS_VERSION)
                return refuse(rep, why, NP_SOCKS_FAILURE, "SOCKS5 request with a wrong version");
        if (len >= 2 && buf[1] != NP_SOCKS_CMD_CONNECT)
                return refuse(rep, why, NP_SOCKS_CMD_UNSUPPORTED,
                              buf[1] == 2 ? "SOCKS5 BIND is not supported"
                              : buf[1] == 3 ? "SOCKS5 UDP ASSOCIATE is not supported"
                                            : "unknown SOCKS5 command");
        if (len >= 3 && buf[2] != 0)
                return refuse(rep, why, NP_SOCKS_FAILURE, "SOCKS5 reserved byte is not zero");
        if (len < 4)
                return NP_NEED_MORE;
        alen = address_len(buf, len);
        if (alen < 0)
                return refuse(rep, why, NP_SOCKS_ATYP_UNSUPPORTED, "unknown SOCKS5 address type");
        total = 4 + (size_t)alen + 2;
        if (alen == 0 || len < total)
                return NP_NEED_MORE;
        r.cmd = buf[1];
        r.atyp = buf[3];
        r.port = (uint16_t)(buf[total - 2] << 8 | buf[total - 1]);
        if (r.port == 0)
                return refuse(rep, why, NP_SOCKS_FAILURE, "SOCKS5 request for port 0");
        if (parse_address(buf + 4, r.atyp, &r.host, rep, why) != NP_DONE)
                return NP_BAD;
        *req = r;
        *consumed = total;
        return NP_DONE;
}

int np_socks_reply(uint8_t rep, const struct np_ip *bound, uint16_t port, uint8_t *buf, size_t size)
{
        static const struct np_ip any = { .family = AF_INET };
        const struct np_ip *ip = bound ? bound : &any;
        size_t alen = ip->family == AF_INET ? 4 : 16;

        if (ip->family != AF_INET && ip->family != AF_INET6)
                return -EAFNOSUPPORT;
        if (size < 4 + alen + 2)
                return -ENOBUFS;
        buf[0] = SOCKS_VERSION;
        buf[1] = rep;
        buf[2] = 0;
        buf[3] = ip->family == AF_INET ? NP_SOCKS_ATYP_IPV4 : NP_SOCKS_ATYP_IPV6;
        memcpy(buf + 4, ip->bytes, alen);
        buf[4 + alen] = (uint8_t)(port >> 8);
        buf[5 + alen] = (uint8_t)(port & 0xff);
        return (int)(4 + alen + 2);
}

const char *np_socks_rep_text(uint8_t rep)
{
        switch (rep) {
        case NP_SOCKS_OK: return "succeeded";
        case NP_SOCKS_FAILURE: return "general SOCKS server failure";
        case NP_SOCKS_NOT_ALLOWED: return "connection not allowed by ruleset";
        case NP_SOCKS_NET_UNREACHABLE: return "network unreachable";
        case NP_SOCKS_HOST_UNREACHABLE: return "host unreachable";
        case NP_SOCKS_REFUSED: return "connection refused";
        case NP_SOCKS_TTL_EXPIRED: return "TTL expired";
        case NP_SOCKS_CMD_UNSUPPORTED: return "command not supported";
        case NP_SOCKS_ATYP_UNSUPPORTED: return "address type not supported";
        default: return "unknown reply code";
        }
}
