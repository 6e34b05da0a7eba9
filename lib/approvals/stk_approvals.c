/* SPDX-License-Identifier: MIT */
/* The remembered approvals: keys and the text format (stk_approvals.h);
 * the file itself is in stk_approvals_store.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/stk_buf.h"
#include "common/stk_util.h"
#include "stk_approvals.h"

static const char header[] =
        "# stockade approvals: the answers \"always\" and \"never\" given to approval_tty.\n"
        "# One decision a line: allow|deny command|egress KEY.  A command's KEY is its\n"
        "# argv, each word shell-quoted; a destination's KEY is host:port.\n"
        "# Change it with `stockade approvals list|revoke|clear`; comments are not kept.\n";

/* Text is built in a struct stk_buf (lib/common/stk_buf.h). */

/* Hand the string over (an empty one rather than NULL), or -ENOMEM. */
static int sb_take(struct stk_buf *b, char **ret)
{
        *ret = stk_buf_take(b);
        return *ret ? 0 : -ENOMEM;
}

/* ---- command keys --------------------------------------------------------- */

/* Characters no shell gives a meaning to inside a word (shlex.quote's set). */
static bool safe_char(unsigned char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("_@%+=:,./-", c));
}

static bool printable(unsigned char c)
{
        return c >= 0x20 && c < 0x7f;
}

static void put_hex(struct stk_buf *b, unsigned char c)
{
        static const char hex[] = "0123456789abcdef";
        char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

        stk_buf_add(b, e, sizeof(e));
}

/* $'...': every byte outside printable ASCII escaped, so the key stays on
 * one line and shows on a terminal as what it is. */
static void quote_ansi_c(struct stk_buf *b, const char *w)
{
        stk_buf_adds(b, "$'");
        for (const unsigned char *p = (const unsigned char *) w; *p; p++) {
                if (*p == '\\' || *p == '\'') {
                        stk_buf_addc(b, '\\');
                        stk_buf_addc(b, (char) *p);
                } else if (*p == '\n')
                        stk_buf_adds(b, "\\n");
                else if (*p == '\t')
                        stk_buf_adds(b, "\\t");
                else if (*p == '\r')
                        stk_buf_adds(b, "\\r");
                else if (printable(*p))
                        stk_buf_addc(b, (char) *p);
                else
                        put_hex(b, *p);
        }
        stk_buf_addc(b, '\'');
}

static void quote_word(struct stk_buf *b, const char *w)
{
        bool all_safe = *w != '\0', all_printable = true;

        for (const unsigned char *p = (const unsigned char *) w; *p; p++) {
                all_safe &= safe_char(*p);
                all_printable &= printable(*p);
        }
        if (all_safe) {
                stk_buf_adds(b, w);
        } else if (all_printable) {
                stk_buf_addc(b, '\'');
                for (const char *p = w; *p; p++)
                        if (*p == '\'')
                                stk_buf_adds(b, "'\\''"); /* close, an escaped quote, reopen */
                        else
                                stk_buf_addc(b, *p);
                stk_buf_addc(b, '\'');
        } else
                quote_ansi_c(b, w);
}

int stk_appr_quote_word(const char *word, char **ret)
{
        struct stk_buf b = { 0 };

        quote_word(&b, word);
        return sb_take(&b, ret);
}

int stk_appr_command_key(const char *const *argv, char **ret)
{
        struct stk_buf b = { 0 };

        if (!argv || !argv[0])
                return -EINVAL;
        for (size_t i = 0; argv[i]; i++) {
                if (i > 0)
                        stk_buf_addc(&b, ' ');
                quote_word(&b, argv[i]);
        }
        return sb_take(&b, ret);
}

/* One escape of $'...' at *p (after the backslash); advances *p. */
static int unescape_one(const char **p, struct stk_buf *w)
{
        char c = **p;
        int hi, lo;

        if (c == '\0')
                return -EINVAL;
        (*p)++;
        switch (c) {
        case '\\': case '\'': stk_buf_addc(w, c); return 0;
        case 'n': stk_buf_addc(w, '\n'); return 0;
        case 't': stk_buf_addc(w, '\t'); return 0;
        case 'r': stk_buf_addc(w, '\r'); return 0;
        case 'x':
                hi = stk_hex_value((*p)[0]);
                lo = hi < 0 ? -1 : stk_hex_value((*p)[1]);
                if (lo < 0 || (hi == 0 && lo == 0)) /* no NUL inside an argv word */
                        return -EINVAL;
                stk_buf_addc(w, (char) (hi * 16 + lo));
                *p += 2;
                return 0;
        default:
                return -EINVAL;
        }
}

/* One shell word at *p, up to a space or the end; advances *p. */
static int unquote_word(const char **p, struct stk_buf *w)
{
        const char *s = *p;
        bool quoted = false;
        int r = 0;

        while (r >= 0 && *s && *s != ' ') {
                if (*s == '\'') {
                        const char *end = strchr(s + 1, '\'');
                        if (!end)
                                return -EINVAL;
                        stk_buf_add(w, s + 1, (size_t) (end - s - 1));
                        s = end + 1;
                        quoted = true;
                } else if (s[0] == '$' && s[1] == '\'') {
                        for (s += 2; r >= 0 && *s && *s != '\''; )
                                if (*s == '\\') {
                                        s++;
                                        r = unescape_one(&s, w);
                                } else
                                        stk_buf_addc(w, *s++);
                        if (*s != '\'')
                                return -EINVAL;
                        s++;
                        quoted = true;
                } else if (*s == '\\' && printable((unsigned char) s[1])) {
                        stk_buf_addc(w, s[1]);
                        s += 2;
                } else if (safe_char((unsigned char) *s))
                        stk_buf_addc(w, *s++);
                else
                        return -EINVAL;
        }
        *p = s;
        if (r < 0 || (!quoted && w->len == 0))
                return -EINVAL;
        return 0;
}

static void words_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

static int words_push(char ***v, size_t *n, char *s)
{
        char **nv = realloc(*v, (*n + 2) * sizeof(char *));

        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[(*n)++] = s;
        nv[*n] = NULL;
        *v = nv;
        return 0;
}

static int split_words(const char *key, char ***ret)
{
        char **v = NULL;
        size_t n = 0;
        const char *p = key;
        int r = 0;

        while (r >= 0) {
                struct stk_buf w = { 0 };
                char *word;

                r = unquote_word(&p, &w);
                if (r >= 0)
                        r = sb_take(&w, &word);
                else
                        free(w.s);
                if (r >= 0)
                        r = words_push(&v, &n, word);
                if (r < 0 || *p == '\0')
                        break;
                p++; /* the one space between words */
        }
        if (r < 0) {
                words_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

int stk_appr_split_command_key(const char *key, char ***ret_words)
{
        char **words = NULL, *again = NULL;
        int r = split_words(key, &words);

        /* Only the canonical spelling: one argv, one key, one line to match. */
        if (r >= 0)
                r = stk_appr_command_key((const char *const *) words, &again);
        if (r >= 0 && strcmp(again, key) != 0)
                r = -EINVAL;
        free(again);
        if (r < 0) {
                words_free(words);
                return r;
        }
        *ret_words = words;
        return 0;
}

/* ---- egress keys ---------------------------------------------------------- */

static bool host_char(unsigned char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '-' || c == '_';
}

static bool ipv6_char(unsigned char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
}

int stk_appr_egress_key(const char *host, uint16_t port, char **ret)
{
        size_t len = host ? strlen(host) : 0;
        bool v6;
        char *k;

        if (len > 1 && host[0] == '[' && host[len - 1] == ']') {
                host++;
                len -= 2;
        }
        v6 = len > 0 && memchr(host, ':', len) != NULL;
        if (len == 0 || len > 253 || port == 0)
                return -EINVAL;
        for (size_t i = 0; i < len; i++)
                if (!(v6 ? ipv6_char((unsigned char) host[i]) : host_char((unsigned char) host[i])))
                        return -EINVAL;
        if (asprintf(&k, v6 ? "[%.*s]:%u" : "%.*s:%u", (int) len, host, (unsigned) port) < 0)
                return -ENOMEM;
        /* DNS names and hex digits are case-insensitive: one spelling. */
        for (char *c = k; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                        *c = (char) (*c - 'A' + 'a');
        *ret = k;
        return 0;
}

static int egress_key_valid(const char *key)
{
        const char *colon = strrchr(key, ':');
        char *host, *end, *again = NULL;
        unsigned long port;
        int r;

        if (!colon || colon[1] < '1' || colon[1] > '9')
                return -EINVAL;
        errno = 0;
        port = strtoul(colon + 1, &end, 10);
        if (errno || *end || port > 65535)
                return -EINVAL;
        host = strndup(key, (size_t) (colon - key));
        if (!host)
                return -ENOMEM;
        r = stk_appr_egress_key(host, (uint16_t) port, &again);
        if (r >= 0 && strcmp(again, key) != 0)
                r = -EINVAL;
        free(host);
        free(again);
        return r;
}

int stk_appr_key_valid(enum stk_appr_kind kind, const char *key)
{
        char **words = NULL;
        int r;

        if (kind == STK_APPR_EGRESS)
                return egress_key_valid(key);
        if (kind != STK_APPR_COMMAND)
                return -EINVAL;
        r = stk_appr_split_command_key(key, &words);
        words_free(words);
        return r;
}

const char *stk_appr_kind_name(enum stk_appr_kind kind)
{
        return kind == STK_APPR_COMMAND ? "command" : kind == STK_APPR_EGRESS ? "egress" : "?";
}

int stk_appr_printable(const char *text, char **ret)
{
        struct stk_buf b = { 0 };

        for (const unsigned char *p = (const unsigned char *) (text ? text : ""); *p; p++)
                if (printable(*p) && *p != '\\')
                        stk_buf_addc(&b, (char) *p);
                else
                        put_hex(&b, *p);
        return sb_take(&b, ret);
}

/* ---- the list ------------------------------------------------------------- */

void stk_appr_list_free(struct stk_appr_list *l)
{
        for (size_t i = 0; l && i < l->n; i++)
                free(l->v[i].key);
        if (l) {
                free(l->v);
                l->v = NULL;
                l->n = 0;
        }
}

static int list_push(struct stk_appr_list *l, bool allow, enum stk_appr_kind kind, const char *key)
{
        struct stk_appr_entry *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
        char *k = strdup(key);

        if (nv)
                l->v = nv;
        if (!nv || !k) {
                free(k);
                return -ENOMEM;
        }
        l->v[l->n++] = (struct stk_appr_entry) { allow, kind, k };
        return 0;
}

int stk_appr_list_remove(struct stk_appr_list *l, size_t index)
{
        if (index >= l->n)
                return -ENOENT;
        free(l->v[index].key);
        memmove(&l->v[index], &l->v[index + 1], (l->n - index - 1) * sizeof(l->v[0]));
        l->n--;
        return 0;
}

int stk_appr_list_set(struct stk_appr_list *l, enum stk_appr_kind kind, const char *key, bool allow)
{
        int r = stk_appr_key_valid(kind, key);

        if (r < 0)
                return r;
        for (size_t i = l->n; i-- > 0;)
                if (l->v[i].kind == kind && strcmp(l->v[i].key, key) == 0)
                        (void) stk_appr_list_remove(l, i); /* in range: cannot fail */
        return list_push(l, allow, kind, key);
}

enum stk_appr_decision stk_appr_decide(const struct stk_appr_list *l, enum stk_appr_kind kind, const char *key,
                                       bool trust_allows)
{
        bool allowed = false;

        for (size_t i = 0; i < l->n; i++) {
                if (l->v[i].kind != kind || strcmp(l->v[i].key, key) != 0)
                        continue;
                if (!l->v[i].allow)
                        return STK_APPR_DENY;
                allowed = true;
        }
        return allowed && trust_allows ? STK_APPR_ALLOW : STK_APPR_NONE;
}

/* ---- text ----------------------------------------------------------------- */

static const char *skip_word(const char *s, const char *word)
{
        size_t n = strlen(word);
        return strncmp(s, word, n) == 0 && s[n] == ' ' ? s + n + 1 : NULL;
}

/* "allow|deny command|egress KEY" */
static int parse_line(const char *line, struct stk_appr_list *l)
{
        const char *rest, *key;
        bool allow = false;
        enum stk_appr_kind kind = STK_APPR_COMMAND;

        if ((rest = skip_word(line, "allow")))
                allow = true;
        else if (!(rest = skip_word(line, "deny")))
                return -EBADMSG;
        if (!(key = skip_word(rest, "command"))) {
                kind = STK_APPR_EGRESS;
                if (!(key = skip_word(rest, "egress")))
                        return -EBADMSG;
        }
        if (stk_appr_key_valid(kind, key) < 0)
                return -EBADMSG;
        return list_push(l, allow, kind, key);
}

int stk_appr_parse(const char *text, size_t len, struct stk_appr_list *ret, unsigned *ret_bad_line)
{
        struct stk_appr_list l = { 0 };
        unsigned lineno = 0;
        int r = 0;

        if (memchr(text, '\0', len))
                r = -EBADMSG;
        for (size_t off = 0; r >= 0 && off < len; lineno++) {
                const char *nl = memchr(text + off, '\n', len - off);
                size_t n = nl ? (size_t) (nl - (text + off)) : len - off;
                char *line = strndup(text + off, n);

                if (!line) {
                        r = -ENOMEM;
                        break;
                }
                if (line[0] != '\0' && line[0] != '#')
                        r = parse_line(line, &l);
                free(line);
                off += n + 1;
        }
        if (r < 0) {
                stk_appr_list_free(&l);
                if (ret_bad_line)
                        *ret_bad_line = lineno ? lineno : 1;
                return r;
        }
        *ret = l;
        return 0;
}

int stk_appr_format(const struct stk_appr_list *l, char **ret)
{
        struct stk_buf b = { 0 };

        stk_buf_adds(&b, header);
        for (size_t i = 0; i < l->n; i++) {
                stk_buf_adds(&b, l->v[i].allow ? "allow " : "deny ");
                stk_buf_adds(&b, stk_appr_kind_name(l->v[i].kind));
                stk_buf_addc(&b, ' ');
                stk_buf_adds(&b, l->v[i].key);
                stk_buf_addc(&b, '\n');
        }
        return sb_take(&b, ret);
}
