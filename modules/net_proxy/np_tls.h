/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: the server name a TLS client asks for, read from the first
 * bytes it sends through a CONNECT tunnel (or a SOCKS5 connection), so the
 * proxy can compare it with the destination it allowed.
 *
 * Accepted: TLS records of type handshake (22) with version 3.x and a
 * length of 1..2^14, carrying one ClientHello (handshake type 1) that may
 * be split over several records and several reads; it is reassembled up
 * to NP_TLS_HELLO_MAX bytes (a post-quantum key share makes a hello about
 * 1.8 KB; 16 KiB is the largest a single record holds).  Then the
 * ClientHello is walked: legacy_version 3.x, random, session id (<= 32),
 * cipher suites (even, >= 2 bytes), compression methods (>= 1), and the
 * extensions, whose lengths must add up exactly.
 * Refused (NP_BAD): any other record type (plain HTTP, SSLv2, an alert)
 * before the hello is complete, a handshake message that is not a
 * ClientHello, any length that runs past its container, an extension
 * type present twice (RFC 8446 4.2), a server_name extension whose list is
 * not exactly one entry of type host_name (0) (empty, two names, or an
 * entry of another type, before or after a host name: the proxy and the
 * server must not pick different entries), or that names an IP literal
 * (RFC 6066 3 forbids it) or an invalid name.
 * Reported: the host_name (normalized by np_host_parse), or no SNI; and
 * whether an encrypted_client_hello extension (0xfe0d, or the draft ESNI
 * 0xffce) is present: the visible SNI is then only the outer, public name
 * and the real destination is hidden, which the proxy treats as policy.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "np_parse.h"

#define NP_TLS_HELLO_MAX (4 + 16384)
#define NP_TLS_EXT_SERVER_NAME 0x0000
#define NP_TLS_EXT_ECH 0xfe0d
#define NP_TLS_EXT_ESNI_DRAFT 0xffce

struct np_tls_parser {
        int state;
        size_t in_off;          /* input bytes already used */
        uint8_t rec[5];         /* the current record header */
        size_t rec_have;        /* bytes of it so far */
        size_t rec_left;        /* payload bytes of the current record still to come */
        size_t msg_len;         /* bytes of the handshake message so far */
        uint8_t msg[NP_TLS_HELLO_MAX];
        /* results, on NP_DONE */
        bool has_sni;
        char sni[NP_HOST_MAX + 1];
        bool has_ech;
        size_t hello_end;       /* input bytes up to the end of the ClientHello */
        const char *why;        /* on NP_BAD: a static reason */
};

void np_tls_init(struct np_tls_parser *p);

/*
 * Parse buf[0..len), the bytes received from the client so far; between
 * calls the caller may only append (those bytes are forwarded upstream
 * unchanged once the proxy decides).  Returns NP_NEED_MORE, NP_DONE
 * (has_sni/sni, has_ech), or NP_BAD (why).  After NP_DONE or NP_BAD the
 * same answer is returned again.
 */
int np_tls_parse(struct np_tls_parser *p, const uint8_t *buf, size_t len);
