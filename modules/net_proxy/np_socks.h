/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the SOCKS5 handshake (RFC 1928) as far as a CONNECT-only,
 * no-authentication proxy needs it.
 *
 *   greeting   VER=5 NMETHODS>=1 METHODS...   answered 05 00 (no auth), or
 *                                             05 FF when 00 is not offered
 *   request    VER=5 CMD RSV=0 ATYP ADDR PORT
 *                CMD 1 (CONNECT) only: BIND (2) and UDP ASSOCIATE (3) get
 *                  reply 07, anything else 07 too
 *                ATYP 1 IPv4, 3 domain (1..255 bytes, a valid name after
 *                  np_host_parse; a domain that is an address literal,
 *                  `127.1` included, is treated as that address), 4 IPv6;
 *                  any other ATYP gets 08
 *                port 0, RSV != 0, VER != 5 are malformed
 * A greeting with VER != 5 (SOCKS4, or not SOCKS at all) gets no reply: the
 * client would not understand one; close the connection.
 * Reply codes the parsers choose: 01 general failure (malformed), 04 host
 * unreachable (a domain that is no valid name or address), 07, 08.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "np_match.h"
#include "np_parse.h"

enum np_socks_rep {
        NP_SOCKS_OK = 0x00,
        NP_SOCKS_FAILURE = 0x01,          /* general SOCKS server failure */
        NP_SOCKS_NOT_ALLOWED = 0x02,      /* connection not allowed by ruleset */
        NP_SOCKS_NET_UNREACHABLE = 0x03,
        NP_SOCKS_HOST_UNREACHABLE = 0x04,
        NP_SOCKS_REFUSED = 0x05,
        NP_SOCKS_TTL_EXPIRED = 0x06,
        NP_SOCKS_CMD_UNSUPPORTED = 0x07,
        NP_SOCKS_ATYP_UNSUPPORTED = 0x08,
};

#define NP_SOCKS_CMD_CONNECT 1
#define NP_SOCKS_ATYP_IPV4 1
#define NP_SOCKS_ATYP_DOMAIN 3
#define NP_SOCKS_ATYP_IPV6 4

/* The longest reply (IPv6 bound address) and request (255-byte domain). */
#define NP_SOCKS_REPLY_MAX 22
#define NP_SOCKS_REQUEST_MAX (4 + 1 + 255 + 2)

/*
 * Parse the greeting in buf[0..len) (the bytes received so far).
 * NP_NEED_MORE; NP_DONE with *consumed and reply[0..*reply_len) = 05 00;
 * NP_BAD with *why and the reply to send before closing in
 * reply[0..*reply_len) (05 FF, or nothing: *reply_len 0).  reply must hold
 * 2 bytes.
 */
int np_socks_greeting(const uint8_t *buf, size_t len, size_t *consumed, uint8_t reply[2],
                      size_t *reply_len, const char **why);

struct np_socks_request {
        uint8_t cmd;
        uint8_t atyp;            /* as sent */
        struct np_host host;     /* normalized: a name, or an address */
        uint16_t port;           /* host order, 1..65535 */
};

/*
 * Parse the request in buf[0..len) (the bytes after the greeting so far).
 * NP_NEED_MORE; NP_DONE with *req and *consumed; NP_BAD with *why and
 * *rep, the reply code to send (np_socks_reply) before closing.
 */
int np_socks_request_parse(const uint8_t *buf, size_t len, struct np_socks_request *req, size_t *consumed,
                           uint8_t *rep, const char **why);

/*
 * Format a reply: VER=5, REP=rep, RSV=0, and the bound address (NULL:
 * IPv4 0.0.0.0, port 0; ATYP 1 or 4 after its family).  Returns the
 * length (10 or 22), or -ENOBUFS / -EAFNOSUPPORT.
 */
int np_socks_reply(uint8_t rep, const struct np_ip *bound, uint16_t port, uint8_t *buf, size_t size);

/* A short text for a reply code, for logs ("connection refused"). */
const char *np_socks_rep_text(uint8_t rep);
