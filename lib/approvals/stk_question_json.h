/* SPDX-License-Identifier: MIT */
/*
 * The approval protocol shared by approval_exec and approval_webhook (and by
 * anything a security team puts behind them): one versioned JSON text for a
 * question, one for the answer.  Documented in stockade-approval_exec(8) and
 * stockade-approval_webhook(8); compiled into each module that lists it in
 * <name>_SHARED (see stk_remove_tree.h).
 *
 * Question, version 1 (one object, no newline inside, keys in this order):
 *   {"stockade_question":1,"kind":"command","argv":["git","push"],
 *    "cwd":"/src/app","profile":"default","reason":"perm_rules"}
 *   {"stockade_question":1,"kind":"egress","host":"example.com","port":443,
 *    "scheme":"connect","pid":1234,"profile":"default","reason":"net_proxy"}
 * A string the core did not give (a cwd it could not read) is null.
 *
 * Verdict: exactly one JSON object, optionally surrounded by whitespace:
 *   {"verdict":"allow"|"deny"|"ignore","reason":"free text"}
 * "verdict" is required, "reason" optional, no other key.  Anything else
 * (not JSON, not an object, trailing bytes, a NUL byte, invalid UTF-8, an
 * unknown or mistyped key, an unknown verdict, more than STK_VERDICT_MAX
 * bytes) is malformed, and the caller answers DENY.
 */
#pragma once
#include <stddef.h>

#include "stockade/module.h"

#define STK_QUESTION_VERSION 1
#define STK_VERDICT_MAX (64 * 1024) /* a verdict is a word and a sentence */

/* The question as JSON text (malloc()ed, NUL-terminated, no trailing
 * newline).  `profile` is the run's profile, used for egress questions (a
 * command question carries its request's own).  -EINVAL for a question
 * without its request/egress or of an unknown kind, -EILSEQ when a string
 * is not valid UTF-8 (the approver would not see what really runs, so the
 * question is not asked), -ENOMEM. */
int stk_question_json_encode(const struct stk_question *q, const char *profile, char **ret_text);

/* Parse a reply of `len` bytes (not NUL-terminated).  On success, 0 with
 * *ret_verdict STK_ALLOW, STK_DENY or STK_IGNORE and the reply's reason
 * copied into `reason` (truncated; "" when absent).  On a malformed reply,
 * -EBADMSG (-EMSGSIZE when too big) with *ret_verdict left untouched and
 * `why` saying what is wrong.  `reason` and `why` may be NULL when
 * their size is 0. */
int stk_verdict_json_parse(const char *buf, size_t len, enum stk_verdict *ret_verdict,
                           char *reason, size_t reason_size, char *why, size_t why_size);

/* The first bytes of buf, printable for a log line: C-style escapes for
 * quotes, backslashes and bytes outside printable ASCII, then "..." and the
 * full length when truncated.  Always NUL-terminates `out` (size > 0). */
void stk_json_excerpt(const char *buf, size_t len, char *out, size_t size);

/* The verdict word ("allow", "deny", "ignore", else "unset"), for logs. */
const char *stk_verdict_word(enum stk_verdict v);
