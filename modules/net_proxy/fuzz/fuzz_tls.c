/* SPDX-License-Identifier: MIT */
/*
 * Fuzz np_tls_parse.  Input: one option byte (split step), then the bytes
 * a client sends.  Properties: the whole buffer and the buffer grown step
 * by step give the same answer and the same SNI/ECH/end; the end is within
 * the input; a reported SNI is a normalized host name, and it comes from a
 * server_name list of exactly one host_name entry (the list's bytes, as the
 * reassembled hello holds them, are that one entry and nothing else).
 */
#include "fuzz.h"
#include "np_match.h"
#include "np_tls.h"

static struct np_tls_parser whole, grow;

/* The server_name extension data for `sni` as one host_name entry, in
 * the raw form `raw_len` bytes long (the name as sent may have had upper
 * case and one trailing dot, which normalizing removed). */
static bool sole_entry_in(const struct np_tls_parser *p, const char *sni)
{
        size_t n = strlen(sni);

        for (size_t raw_len = n; raw_len <= n + 1; raw_len++) {
                uint8_t want[5] = { (uint8_t)((raw_len + 3) >> 8), (uint8_t)(raw_len + 3), 0,
                                    (uint8_t)(raw_len >> 8), (uint8_t)raw_len };
                for (size_t i = 0; i + 5 + raw_len <= p->msg_len; i++) {
                        if (memcmp(p->msg + i, want, 5) != 0)
                                continue;
                        size_t k = 0;
                        while (k < n && (p->msg[i + 5 + k] | 0x20) == (sni[k] | 0x20))
                                k++;
                        if (k == n && (raw_len == n || p->msg[i + 5 + n] == '.'))
                                return true;
                }
        }
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        size_t len, step;
        uint8_t *buf;
        int rw, rg = NP_NEED_MORE;

        if (size < 1)
                return 0;
        step = 1 + data[0] * 7;
        buf = fuzz_copy(data + 1, size - 1);
        len = size - 1;
        np_tls_init(&whole);
        rw = np_tls_parse(&whole, buf, len);
        np_tls_init(&grow);
        for (size_t k = 0; rg == NP_NEED_MORE; k += step) {
                rg = np_tls_parse(&grow, buf, k < len ? k : len);
                if (k >= len)
                        break;
        }
        FUZZ_CHECK(rw == rg);
        if (rw == NP_DONE) {
                char norm[NP_HOST_MAX + 1];
                FUZZ_CHECK(whole.hello_end <= len && whole.hello_end == grow.hello_end);
                FUZZ_CHECK(whole.has_sni == grow.has_sni && whole.has_ech == grow.has_ech);
                FUZZ_CHECK(strcmp(whole.sni, grow.sni) == 0);
                if (whole.has_sni) {
                        FUZZ_CHECK(np_host_normalize(whole.sni, norm, sizeof(norm)) == (int)strlen(whole.sni));
                        FUZZ_CHECK(strcmp(norm, whole.sni) == 0);
                        FUZZ_CHECK(np_host_is_ip(whole.sni, NULL) == 0);
                        FUZZ_CHECK(sole_entry_in(&whole, whole.sni));
                }
        } else if (rw == NP_BAD) {
                FUZZ_CHECK(whole.why != NULL);
        }
        free(buf);
        return 0;
}
