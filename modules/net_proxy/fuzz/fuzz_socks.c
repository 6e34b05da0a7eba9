/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the SOCKS5 greeting and request parsers.  Properties: consumed is
 * within the input; a DONE request is NEED_MORE on every shorter prefix
 * (the parser never decides on bytes it has not seen) and has a valid
 * destination; every refusal carries a reply code that formats.
 */
#include "fuzz.h"
#include "np_socks.h"

static void request(const uint8_t *buf, size_t len)
{
        struct np_socks_request req;
        size_t consumed = 0;
        uint8_t rep = 0xee, out[NP_SOCKS_REPLY_MAX];
        const char *why = NULL;
        int r = np_socks_request_parse(buf, len, &req, &consumed, &rep, &why);

        if (r == NP_BAD) {
                FUZZ_CHECK(why != NULL && rep != 0xee && rep != NP_SOCKS_OK);
                FUZZ_CHECK(np_socks_reply(rep, NULL, 0, out, sizeof(out)) == 10);
                return;
        }
        if (r != NP_DONE)
                return;
        FUZZ_CHECK(consumed <= len && consumed <= NP_SOCKS_REQUEST_MAX);
        FUZZ_CHECK(req.port != 0 && req.cmd == NP_SOCKS_CMD_CONNECT);
        FUZZ_CHECK(req.host.len == strlen(req.host.text) && req.host.len > 0);
        for (size_t k = 0; k < consumed; k++) {
                uint8_t *part = fuzz_copy(buf, k);
                struct np_socks_request r2;
                size_t c2;
                FUZZ_CHECK(np_socks_request_parse(part, k, &r2, &c2, &rep, &why) == NP_NEED_MORE);
                free(part);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        uint8_t *buf = fuzz_copy(data, size), reply[2];
        size_t consumed = 0, reply_len = 0;
        const char *why = NULL;
        int r = np_socks_greeting(buf, size, &consumed, reply, &reply_len, &why);

        if (r == NP_DONE) {
                FUZZ_CHECK(consumed <= size && reply_len == 2 && reply[1] == 0);
                request(buf + consumed, size - consumed);
        } else if (r == NP_BAD) {
                FUZZ_CHECK(why != NULL && (reply_len == 0 || (reply_len == 2 && reply[1] == 0xff)));
        }
        /* the request parser alone, on the raw input too */
        request(buf, size);
        free(buf);
        return 0;
}
