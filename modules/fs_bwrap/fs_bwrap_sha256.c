/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4) for the bwrap_sha256 pin.  Our own ~80 lines rather
 * than libcrypto: loading libcrypto with the module cost about 4 ms on every
 * run (bench/startup), for a hash most policies never ask for.  Checked
 * against the FIPS test vectors and sha256sum in t/test_fs_bwrap_host.c.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fs_bwrap_internal.h"

struct sha256 {
        uint32_t h[8];
        uint64_t len;           /* bytes hashed */
        unsigned char block[64];
        size_t used;
};

static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
        return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char p[64])
{
        uint32_t w[64], v[8];

        for (int i = 0; i < 16; i++)
                w[i] = (uint32_t) p[4 * i] << 24 | (uint32_t) p[4 * i + 1] << 16 | (uint32_t) p[4 * i + 2] << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
                uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        memcpy(v, h, sizeof(v));
        for (int i = 0; i < 64; i++) {
                uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
                              ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
                uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
                              ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
                memmove(v + 1, v, 7 * sizeof(uint32_t));
                v[4] += t1;
                v[0] = t1 + t2;
        }
        for (int i = 0; i < 8; i++)
                h[i] += v[i];
}

static void update(struct sha256 *c, const unsigned char *p, size_t n)
{
        c->len += n;
        while (n > 0) {
                size_t take = 64 - c->used < n ? 64 - c->used : n;
                memcpy(c->block + c->used, p, take);
                c->used += take;
                p += take;
                n -= take;
                if (c->used == 64) {
                        compress(c->h, c->block);
                        c->used = 0;
                }
        }
}

static void finish(struct sha256 *c, unsigned char out[32])
{
        uint64_t bits = c->len * 8;
        unsigned char pad = 0x80, len[8];

        update(c, &pad, 1);
        pad = 0;
        while (c->used != 56)
                update(c, &pad, 1);
        for (int i = 0; i < 8; i++)
                len[i] = (unsigned char) (bits >> (56 - 8 * i));
        update(c, len, 8);
        for (int i = 0; i < 32; i++)
                out[i] = (unsigned char) (c->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* Hash through the fd (pread: the offset stays where fexecve wants it), so
 * the file checked is the file executed, whatever happens to the path. */
int fs_bwrap_sha256_fd(int fd, char ret_hex[65])
{
        static const char hex[] = "0123456789abcdef";
        struct sha256 c = { .h = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 } };
        unsigned char buf[65536], md[32];
        off_t off = 0;

        for (;;) {
                ssize_t n = pread(fd, buf, sizeof(buf), off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                update(&c, buf, (size_t) n);
                off += n;
        }
        finish(&c, md);
        for (int i = 0; i < 32; i++) {
                ret_hex[2 * i] = hex[md[i] >> 4];
                ret_hex[2 * i + 1] = hex[md[i] & 15];
        }
        ret_hex[64] = '\0';
        return 0;
}
