/* SPDX-License-Identifier: MIT */
/*
 * Fuzz git's config parser (core/policy/gitconfig_parse.c) and the value
 * walk that names files (gitconfig_keys.c) with the same bytes; `make
 * fuzz FUZZ_TARGETS=gitconfig`.  Properties: a rejection says where and
 * why; every key is as git leaves one (section and name lowercased, the
 * name a letter then letters, digits and dashes); the entries written back
 * as a canonical file parse to the same entries; the value walk never
 * fails but for memory and names only non-empty words no longer than the
 * value.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h" /* modules/net_proxy/fuzz: the harnesses' shared checks */
#include "common/stk_buf.h"
#include "policy/gitconfig.h"

struct entries {
        struct stk_buf text;    /* key, NUL, value or "\1" for none, NUL */
        struct stk_buf canon;   /* the same entries as a config file */
        bool bad_name;          /* a key a NUL cut short: no canonical form */
        size_t n;
};

static void add_quoted(struct stk_buf *b, const char *s, bool subsection)
{
        stk_buf_addc(b, '"');
        for (; *s; s++) {
                const char *esc = *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : NULL;
                if (!subsection && !esc)
                        esc = *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : *s == '\b' ? "\\b" : NULL;
                if (esc)
                        stk_buf_adds(b, esc);
                else
                        stk_buf_addc(b, *s);
        }
        stk_buf_addc(b, '"');
}

static bool valid_name(const char *n)
{
        if (!(n[0] >= 'a' && n[0] <= 'z'))
                return false;
        for (; *n; n++)
                if (!((*n >= 'a' && *n <= 'z') || (*n >= '0' && *n <= '9') || *n == '-'))
                        return false;
        return true;
}

/* One entry written back: a header of its own (a file with a header per
 * entry is the same config), the name, the value quoted. */
static void write_back(struct entries *e, const struct gitcfg_item *it)
{
        struct gitcfg_key k;

        if (gitcfg_split_key(it->key, &k) < 0) {
                /* a key before any header: they come first, so no header is needed */
                k = (struct gitcfg_key) { .name = it->key };
        } else {
                stk_buf_addc(&e->canon, '[');
                stk_buf_add(&e->canon, k.section, k.section_len);
                if (k.sub) {
                        char *sub = strndup(k.sub, k.sub_len);
                        FUZZ_CHECK(sub);
                        stk_buf_addc(&e->canon, ' ');
                        add_quoted(&e->canon, sub, true);
                        free(sub);
                }
                stk_buf_adds(&e->canon, "]\n");
        }
        /* a NUL can cut a key short into one no file spells ("[]") */
        if (!valid_name(k.name) || (k.section && k.section_len == 0 && !k.sub))
                e->bad_name = true;
        stk_buf_addc(&e->canon, '\t');
        stk_buf_adds(&e->canon, k.name);
        if (it->value) {
                stk_buf_adds(&e->canon, " = ");
                add_quoted(&e->canon, it->value, false);
        }
        stk_buf_addc(&e->canon, '\n');
}

static bool ok_word_len;
static size_t value_len;

static int on_word(const char *word, bool sure, void *userdata)
{
        (void) sure;
        (void) userdata;
        ok_word_len &= word[0] != '\0' && strlen(word) <= value_len;
        return 0;
}

static bool never_exists(const char *word, void *userdata)
{
        (void) userdata;
        return word[0] == 'x'; /* some do, some do not: both branches walked */
}

static int collect(const struct gitcfg_item *it, void *userdata)
{
        struct entries *e = userdata;

        stk_buf_add(&e->text, it->key, strlen(it->key) + 1);
        stk_buf_add(&e->text, it->value ? it->value : "\1", strlen(it->value ? it->value : "\1") + 1);
        write_back(e, it);
        e->n++;
        if (it->value) {
                ok_word_len = true;
                value_len = strlen(it->value);
                FUZZ_CHECK(gitcfg_value_paths(it->key, it->value, never_exists, on_word, NULL) == 0);
                FUZZ_CHECK(gitcfg_command_paths(it->value, never_exists, on_word, NULL) == 0);
                FUZZ_CHECK(ok_word_len);
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_copy(data, size);
        struct entries e = { 0 }, again = { 0 };
        struct gitcfg_error err;
        int r = gitcfg_parse(text, size, collect, &e, &err);

        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL && err.why && err.line >= 1 && err.col >= 1);
        } else if (!e.bad_name && e.n > 0) {
                FUZZ_CHECK(e.canon.err == 0 && e.text.err == 0);
                FUZZ_CHECK(gitcfg_parse(e.canon.s, e.canon.len, collect, &again, &err) == 0);
                FUZZ_CHECK(again.text.len == e.text.len && memcmp(again.text.s, e.text.s, e.text.len) == 0);
        }
        stk_buf_done(&e.text);
        stk_buf_done(&e.canon);
        stk_buf_done(&again.text);
        stk_buf_done(&again.canon);
        free(text);
        return 0;
}
