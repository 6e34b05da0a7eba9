/* SPDX-License-Identifier: MIT */
/*
 * Fuzz np_body_feed.  Input: one option byte (framing, limits, split),
 * then for Content-Length 2 bytes of length, then the body stream.
 * Properties: feeding it in one call or in pieces gives the same answer
 * and the same number of body bytes; consumed never exceeds what was fed;
 * a finished tracker stays finished.
 */
#include "fuzz.h"
#include "np_body.h"

static int feed_all(struct np_body *b, const uint8_t *buf, size_t len, size_t step, size_t *total)
{
        int r = NP_NEED_MORE;

        *total = 0;
        for (size_t off = 0; off < len && r == NP_NEED_MORE; off += step) {
                size_t n = len - off < step ? len - off : step, used = 0;
                uint8_t *piece = fuzz_copy(buf + off, n);
                r = np_body_feed(b, piece, n, &used);
                FUZZ_CHECK(used <= n);
                FUZZ_CHECK(r != NP_NEED_MORE || used == n);
                *total += used;
                free(piece);
        }
        return r;
}

static void init(struct np_body *b, uint8_t opt, uint64_t length)
{
        static const struct np_body_limits lims[2] = { { 4096, 16384 }, { 8, 24 } };

        if (opt & 1)
                np_body_init_chunked(b, &lims[(opt >> 1) & 1]);
        else
                np_body_init_length(b, length);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct np_body one, pieces;
        size_t t1 = 0, t2 = 0, step, used;
        uint64_t length = 0;

        if (size < 3)
                return 0;
        length = (uint64_t)data[1] << 8 | data[2];
        step = 1 + (data[0] >> 2);
        init(&one, data[0], length);
        init(&pieces, data[0], length);
        int r1 = feed_all(&one, data + 3, size - 3, size, &t1);
        int r2 = feed_all(&pieces, data + 3, size - 3, step, &t2);
        FUZZ_CHECK(r1 == r2);
        FUZZ_CHECK(t1 == t2); /* on BAD: the offending byte's offset */
        FUZZ_CHECK(r1 != NP_BAD || one.why != NULL);
        if (r1 != NP_NEED_MORE) {
                FUZZ_CHECK(np_body_feed(&one, data, size, &used) == r1 && used == 0);
        }
        if (r1 == NP_DONE && !(data[0] & 1))
                FUZZ_CHECK(t1 == length);
        return 0;
}
