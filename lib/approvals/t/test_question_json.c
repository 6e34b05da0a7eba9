/* SPDX-License-Identifier: MIT */
/*
 * The approval protocol (lib/approvals/stk_question_json.c): questions
 * encode to the documented keys and parse back with a strict reader;
 * well-formed verdicts parse; every malformed reply is refused with a
 * reason; excerpts are printable and bounded; the man pages of both
 * approval modules show every key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "approvals/stk_question_json.h"
#include "unit.h"

static struct json_object *parse_strict(const char *text)
{
        struct json_tokener *tok = json_tokener_new();
        struct json_object *o;

        CU_ASSERT_PTR_NOT_NULL_FATAL(tok);
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        o = json_tokener_parse_ex(tok, text, (int) strlen(text));
        CU_ASSERT_EQUAL(json_tokener_get_error(tok), json_tokener_success);
        CU_ASSERT_EQUAL(json_tokener_get_parse_end(tok), strlen(text));
        json_tokener_free(tok);
        return o;
}

static const char *get_str(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static long long get_int(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
                return -12345;
        return json_object_get_int64(v);
}

static void test_encode_command(void)
{
        const char *argv[] = { "git", "push", "--force", "quote\" back\\slash\nnewline", "héllo", NULL };
        struct stk_request req = { argv, "/src/app", "ci" };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = "perm_rules" };
        struct json_object *o, *a;
        char *text = NULL;

        CU_ASSERT_EQUAL_FATAL(stk_question_json_encode(&q, "ignored", &text), 0);
        CU_ASSERT_PTR_NULL(strchr(text, '\n')); /* one line: a reader may go by lines */
        CU_ASSERT_EQUAL(strncmp(text, "{\"stockade_question\":1,\"kind\":\"command\",", 40), 0);
        o = parse_strict(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        CU_ASSERT_EQUAL(get_int(o, "stockade_question"), STK_QUESTION_VERSION);
        CU_ASSERT_STRING_EQUAL(get_str(o, "kind"), "command");
        CU_ASSERT_STRING_EQUAL(get_str(o, "cwd"), "/src/app");
        CU_ASSERT_STRING_EQUAL(get_str(o, "profile"), "ci"); /* the request's, not the argument */
        CU_ASSERT_STRING_EQUAL(get_str(o, "reason"), "perm_rules");
        CU_ASSERT_FATAL(json_object_object_get_ex(o, "argv", &a) && json_object_is_type(a, json_type_array));
        CU_ASSERT_EQUAL_FATAL(json_object_array_length(a), 5);
        for (size_t i = 0; i < 5; i++)
                CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(a, i)), argv[i]);
        CU_ASSERT_EQUAL(json_object_object_length(o), 6); /* nothing undocumented */
        json_object_put(o);
        free(text);
}

static void test_encode_egress(void)
{
        struct stk_egress e = { "registry.npmjs.org", 443, "connect", 4242 };
        struct stk_question q = { .kind = STK_QUESTION_EGRESS, .egress = &e, .reason = "net_proxy" };
        struct json_object *o;
        char *text = NULL;

        CU_ASSERT_EQUAL_FATAL(stk_question_json_encode(&q, "default", &text), 0);
        o = parse_strict(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        CU_ASSERT_EQUAL(get_int(o, "stockade_question"), 1);
        CU_ASSERT_STRING_EQUAL(get_str(o, "kind"), "egress");
        CU_ASSERT_STRING_EQUAL(get_str(o, "host"), "registry.npmjs.org");
        CU_ASSERT_EQUAL(get_int(o, "port"), 443);
        CU_ASSERT_STRING_EQUAL(get_str(o, "scheme"), "connect");
        CU_ASSERT_EQUAL(get_int(o, "pid"), 4242);
        CU_ASSERT_STRING_EQUAL(get_str(o, "profile"), "default");
        CU_ASSERT_STRING_EQUAL(get_str(o, "reason"), "net_proxy");
        CU_ASSERT_EQUAL(json_object_object_length(o), 8);
        json_object_put(o);
        free(text);
}

/* Absent strings are null, not "" and not a crash. */
static void test_encode_nulls(void)
{
        const char *argv[] = { "true", NULL };
        struct stk_request req = { argv, NULL, NULL };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = NULL };
        char *text = NULL;

        CU_ASSERT_EQUAL_FATAL(stk_question_json_encode(&q, NULL, &text), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"cwd\":null"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"reason\":null"));
        free(text);
}

static void test_encode_refuses(void)
{
        const char *bad_utf8[] = { "echo", "\xff\xfe", NULL };
        const char *overlong[] = { "echo", "\xc0\xaf", NULL };     /* "/" spelt overlong */
        const char *surrogate[] = { "echo", "\xed\xa0\x80", NULL }; /* U+D800 */
        const char *cut[] = { "echo", "caf\xc3", NULL };
        const char *const *cases[] = { bad_utf8, overlong, surrogate, cut };
        struct stk_egress e = { "h\xff", 80, "http", 0 };
        struct stk_question q = { .kind = STK_QUESTION_COMMAND };
        char *text = NULL;

        CU_ASSERT_EQUAL(stk_question_json_encode(&q, NULL, &text), -EINVAL); /* no request */
        q.kind = (enum stk_question_kind) 7;
        CU_ASSERT_EQUAL(stk_question_json_encode(&q, NULL, &text), -EINVAL);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct stk_request req = { cases[i], "/", "p" };
                q = (struct stk_question) { .kind = STK_QUESTION_COMMAND, .request = &req, .reason = "r" };
                CU_ASSERT_EQUAL(stk_question_json_encode(&q, NULL, &text), -EILSEQ);
        }
        q = (struct stk_question) { .kind = STK_QUESTION_EGRESS, .egress = &e, .reason = "r" };
        CU_ASSERT_EQUAL(stk_question_json_encode(&q, NULL, &text), -EILSEQ);
        CU_ASSERT_PTR_NULL(text); /* untouched on failure */
}

static int parse(const char *reply, enum stk_verdict *v, char *reason, char *why)
{
        return stk_verdict_json_parse(reply, strlen(reply), v, reason, 128, why, 160);
}

static void test_parse_good(void)
{
        static const struct { const char *text; enum stk_verdict want; const char *reason; } good[] = {
                { "{\"verdict\":\"allow\"}", STK_ALLOW, "" },
                { "{\"verdict\":\"deny\",\"reason\":\"not on a Friday\"}", STK_DENY, "not on a Friday" },
                { "{\"reason\":\"no opinion\",\"verdict\":\"ignore\"}", STK_IGNORE, "no opinion" },
                { "  {\"verdict\" : \"allow\"}\n", STK_ALLOW, "" },   /* echo adds a newline */
                { "{\"verdict\":\"allow\"}\r\n\t ", STK_ALLOW, "" },
                { "{\"verdict\":\"deny\",\"reason\":\"caf\\u00e9 \\\"quoted\\\"\"}", STK_DENY, "caf\\xc3\\xa9 \\\"quoted\\\"" },
        };

        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                enum stk_verdict v = STK_VERDICT_UNSET;
                char reason[128] = "x", why[160] = "";
                int r = parse(good[i].text, &v, reason, why);
                if (r != 0)
                        fprintf(stderr, "\n  good reply %zu refused: %s", i, why);
                CU_ASSERT_EQUAL(r, 0);
                CU_ASSERT_EQUAL(v, good[i].want);
                CU_ASSERT_STRING_EQUAL(reason, good[i].reason);
        }
}

static void test_parse_malformed(void)
{
        static const struct { const char *text; const char *why; } bad[] = {
                { "", "empty" },
                { "allow", "not one JSON value" },
                { "yes\n", "not one JSON value" },
                { "{\"verdict\":\"allow\"} trailing", "trailing bytes" },
                { "{\"verdict\":\"allow\"}{\"verdict\":\"deny\"}", "trailing bytes" },
                { "{\"verdict\":\"allow\"}\n{\"verdict\":\"allow\"}\n", "trailing bytes" },
                { "tru", "truncated" },
                { "{\"verdict\":\"allow\"", "truncated" },
                { "{'verdict':'allow'}", "not one JSON value" },
                { "{\"verdict\":\"allow\",}", "not one JSON value" },
                { "[\"allow\"]", "not a JSON object" },
                { "\"allow\"", "not a JSON object" },
                { "null", "not a JSON object" },
                { "{}", "no \"verdict\"" },
                { "{\"verdict\":true}", "not a string" },
                { "{\"verdict\":1}", "not a string" },
                { "{\"verdict\":null}", "not a string" },
                { "{\"verdict\":[\"allow\"]}", "not a string" },
                { "{\"verdict\":\"ALLOW\"}", "unknown verdict \"ALLOW\"" },
                { "{\"verdict\":\"yes\"}", "unknown verdict" },
                { "{\"verdict\":\"ask\"}", "unknown verdict" },
                { "{\"verdict\":\"allow \"}", "unknown verdict" },
                { "{\"verdict\":\"allow\\u0000x\"}", "unknown verdict" },
                { "{\"verdict\":\"allow\",\"reason\":42}", "\"reason\" is not a string" },
                { "{\"verdict\":\"allow\",\"approved_by\":\"bob\"}", "unknown key \"approved_by\"" },
                { "{\"verdict\":\"al\xff\"}", "not one JSON value" }, /* invalid UTF-8 */
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                enum stk_verdict v = STK_VERDICT_UNSET;
                char why[160] = "";
                int r = parse(bad[i].text, &v, NULL, why);
                if (r != -EBADMSG || !strstr(why, bad[i].why))
                        fprintf(stderr, "\n  bad reply %zu (%s): r=%d why=\"%s\"", i, bad[i].text, r, why);
                CU_ASSERT_EQUAL(r, -EBADMSG);
                CU_ASSERT_EQUAL(v, STK_VERDICT_UNSET); /* untouched */
                CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
        }
}

/* Bytes json-c never sees: a NUL inside, and more than the cap. */
static void test_parse_nul_and_size(void)
{
        static const char with_nul[] = "{\"verdict\":\"allow\"}\0{\"verdict\":\"deny\"}";
        enum stk_verdict v = STK_VERDICT_UNSET;
        char why[160] = "", *big;
        size_t n = STK_VERDICT_MAX + 1;

        CU_ASSERT_EQUAL(stk_verdict_json_parse(with_nul, sizeof(with_nul) - 1, &v, NULL, 0, why, sizeof(why)), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "NUL"));
        big = malloc(n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        memset(big, ' ', n);
        memcpy(big, "{\"verdict\":\"allow\"}", 19); /* well-formed, then too much space */
        CU_ASSERT_EQUAL(stk_verdict_json_parse(big, n, &v, NULL, 0, why, sizeof(why)), -EMSGSIZE);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "larger than 65536"));
        CU_ASSERT_EQUAL(stk_verdict_json_parse(big, n - 1, &v, NULL, 0, why, sizeof(why)), 0); /* at the cap: fine */
        CU_ASSERT_EQUAL(v, STK_ALLOW);
        free(big);
}

static void test_excerpt(void)
{
        char out[64], big[300];

        stk_json_excerpt("{\"a\":\n\x01\xff}", 9, out, sizeof(out));
        CU_ASSERT_STRING_EQUAL(out, "{\\\"a\\\":\\n\\x01\\xff}");
        memset(big, 'x', sizeof(big));
        stk_json_excerpt(big, sizeof(big), out, sizeof(out));
        CU_ASSERT(strlen(out) < sizeof(out));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "... (300 bytes)"));
        stk_json_excerpt(big, sizeof(big), out, 4); /* too small for the tail: still terminated */
        CU_ASSERT(strlen(out) < 4);
        stk_json_excerpt("", 0, out, sizeof(out));
        CU_ASSERT_STRING_EQUAL(out, "");
}

/* Both man pages document the protocol: every key and verdict word. */
static void test_man_pages(void)
{
        static const char *const pages[] = { "../../modules/approval_exec/stockade-approval_exec.8",
                                             "../../modules/approval_webhook/stockade-approval_webhook.8" };
        static const char *const words[] = { "stockade_question", "kind", "command", "egress", "argv", "cwd",
                                             "profile", "reason", "host", "port", "scheme", "pid", "verdict",
                                             "allow", "deny", "ignore", "65536" };

        for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
                char path[512], *text = NULL;
                size_t len = 0;
                FILE *f;

                snprintf(path, sizeof(path), "%.*s/../%s", (int) (strrchr(__FILE__, '/') - __FILE__), __FILE__, pages[p]);
                f = fopen(path, "re");
                CU_ASSERT_PTR_NOT_NULL_FATAL(f);
                text = calloc(1, 1 << 17);
                CU_ASSERT_PTR_NOT_NULL_FATAL(text);
                len = fread(text, 1, (1 << 17) - 1, f);
                fclose(f);
                CU_ASSERT(len > 1000);
                for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
                        char quoted[64];
                        snprintf(quoted, sizeof(quoted), "%s", words[w]);
                        if (!strstr(text, quoted))
                                fprintf(stderr, "\n  %s does not mention %s", pages[p], words[w]);
                        CU_ASSERT_PTR_NOT_NULL(strstr(text, quoted));
                }
                free(text);
        }
}

UNIT_SUITE(question_json,
           UNIT_TEST(test_encode_command),
           UNIT_TEST(test_encode_egress),
           UNIT_TEST(test_encode_nulls),
           UNIT_TEST(test_encode_refuses),
           UNIT_TEST(test_parse_good),
           UNIT_TEST(test_parse_malformed),
           UNIT_TEST(test_parse_nul_and_size),
           UNIT_TEST(test_excerpt),
           UNIT_TEST(test_man_pages))
