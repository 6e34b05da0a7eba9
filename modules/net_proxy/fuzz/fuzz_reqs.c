/* SPDX-License-Identifier: MIT */
/*
 * Fuzz np_reqs: a client's byte stream judged request by request, as
 * np_stream.c drives it.  Input: one option byte (bit 0: a plain-HTTP
 * request, whose proxy head comes first, instead of a tunnel to a.test:80;
 * bits 1-2: which limits; the rest: the read size), then the bytes.  The
 * harness reads that many bytes at a time into a buffer of max_head bytes,
 * judges, "sends" the judged bytes (appends them to an output and drops
 * them from the buffer), and stops when the input is used up or the stream
 * ended.  Properties:
 *  - judged bytes pass unchanged and in order: the output is a prefix of
 *    the bytes after the head;
 *  - the read size changes nothing: the result, the output and the number
 *    of requests are those of reads as large as the buffer allows;
 *  - what passed passes again: the output judged afresh, in one piece, is
 *    judged whole, with the same number of requests and never refused
 *    (so a later head was looked for exactly where the earlier body ended);
 *  - a refusal says why.
 */
#include "fuzz.h"
#include "np_reqs.h"

static const struct np_http_limits limits[4] = {
        { 8192, 32768, 100 }, { 64, 256, 4 }, { 16, 64, 2 }, { 200, 1000, 10 },
};

struct run {
        int result;
        unsigned n;
        uint8_t *out;
        size_t out_len;
};

/* A stream set up as the option byte says; false when a plain request's
 * proxy head does not parse (nothing to fuzz past it). */
static bool setup(struct np_reqs *s, bool plain, const struct np_http_limits *lim, const char *in, size_t len,
                  size_t *head)
{
        struct np_http_parser p;
        struct np_host dest;

        *head = 0;
        if (!plain) {
                FUZZ_CHECK(np_host_parse("a.test", 6, &dest) == 0);
                np_reqs_init_tunnel(s, &dest, 80, lim);
                return true;
        }
        np_http_parser_init(&p, lim);
        if (np_http_parse(&p, in, len) != NP_DONE || p.req.is_connect)
                return false;
        np_reqs_init_body(s, &p.req);
        *head = p.req.head_len;
        return true;
}

/* The judged bytes out: appended to the output, dropped from the buffer. */
static void send_ok(struct np_reqs *s, struct run *r, char *buf, size_t *buf_len)
{
        size_t n = s->ok;

        memcpy(r->out + r->out_len, buf, n);
        r->out_len += n;
        memmove(buf, buf + n, *buf_len - n);
        *buf_len -= n;
        np_reqs_sent(s, n);
}

static void play(struct np_reqs *s, const char *in, size_t len, size_t step, size_t cap, struct run *r)
{
        char *buf = malloc(cap);
        size_t buf_len = 0, used = 0;
        int res = NP_NEED_MORE;

        FUZZ_CHECK(buf != NULL);
        r->out = malloc(len ? len : 1);
        r->out_len = 0;
        FUZZ_CHECK(r->out != NULL);
        for (;;) {
                res = np_reqs_judge(s, buf, buf_len);
                bool sent = s->ok > 0;
                send_ok(s, r, buf, &buf_len);
                if (res != NP_NEED_MORE)
                        break;
                if (sent)
                        continue; /* a head waits for the bytes before it to go out */
                size_t k = len - used < step ? len - used : step;
                k = k < cap - buf_len ? k : cap - buf_len;
                if (k == 0)
                        break; /* the input is used up (a full buffer is a refused head) */
                memcpy(buf + buf_len, in + used, k);
                buf_len += k;
                used += k;
        }
        if (res == NP_BAD)
                FUZZ_CHECK(s->why[0] != '\0');
        r->result = res;
        r->n = s->n;
        free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct np_reqs s, again;
        const struct np_http_limits *lim;
        struct run small, big;
        size_t head, len, step;
        char *in;
        bool plain;

        if (size < 1)
                return 0;
        plain = data[0] & 1;
        lim = &limits[(data[0] >> 1) & 3];
        step = 1 + (data[0] >> 3) * 13;
        in = fuzz_copy(data + 1, size - 1);
        len = size - 1;
        if (!setup(&s, plain, lim, in, len, &head)) {
                free(in);
                return 0;
        }
        play(&s, in + head, len - head, step, lim->max_head, &small);
        FUZZ_CHECK(setup(&s, plain, lim, in, len, &head));
        play(&s, in + head, len - head, lim->max_head, lim->max_head, &big);

        FUZZ_CHECK(small.out_len <= len - head && memcmp(small.out, in + head, small.out_len) == 0);
        FUZZ_CHECK(small.result == big.result && small.n == big.n);
        FUZZ_CHECK(small.out_len == big.out_len && memcmp(small.out, big.out, small.out_len) == 0);

        FUZZ_CHECK(setup(&again, plain, lim, in, len, &head));
        char *copy = fuzz_copy(small.out, small.out_len);
        int r = NP_NEED_MORE;
        size_t passed = 0;
        while (r == NP_NEED_MORE) {
                r = np_reqs_judge(&again, copy + passed, small.out_len - passed);
                if (again.ok == 0)
                        break;
                passed += again.ok;
                np_reqs_sent(&again, again.ok);
        }
        FUZZ_CHECK(r != NP_BAD);
        FUZZ_CHECK(passed == small.out_len && again.n == small.n);
        free(copy);
        free(small.out);
        free(big.out);
        free(in);
        return 0;
}
