/* SPDX-License-Identifier: MIT */
/* approval_tty internals, shared with its CUnit tests (not exported). */
#pragma once
#include <stdbool.h>

#include "stockade/module.h"

#define ATTY_DEFAULT_TTY "/dev/tty"
#define ATTY_DEFAULT_TIMEOUT 30
#define ATTY_MAX_TIMEOUT 3600
/* What every prompt line ends with, after what it approves ("Run git
 * push origin main", "Connect to example.com:443"); tests wait for it
 * before they answer. */
#define ATTY_PROMPT "? y = yes once, a = always, n = no, N = never"
/* SGR reset: the graphic attributes (concealed, colours) back to normal
 * before anything of ours is shown. */
#define ATTY_RESET "\033[0m"

enum atty_answer {
        ATTY_NO_ANSWER = 0,     /* timeout, end of file, a signal */
        ATTY_ONCE,
        ATTY_ALWAYS,
        ATTY_DENY,
        ATTY_NEVER,
};

/* y/yes/once, a/always, n/no, N/never (words in any case; the letters n
 * and N differ); ATTY_NO_ANSWER for anything else. */
enum atty_answer atty_parse_answer(const char *line);

/* What an answer approves: "run ARGV" (argv quoted as a key) or "connect
 * to HOST:PORT", printable. */
int atty_subject(const struct stk_question *q, char **ret);
/* The line the answer is typed on: "Run ARGV? y = ... (30 s): ". */
int atty_prompt_line(const char *subject, int timeout_s, char **ret);
/* What the prompt shows: who asks, the command (argv quoted) and where, or
 * the destination, then the prompt line; every byte that came from the
 * command made printable. */
int atty_question_text(const struct stk_question *q, int timeout_s, char **ret);

/* Ask on the terminal at tty_path.  0 with *ret (ATTY_NO_ANSWER when the
 * time ran out, the terminal hung up or a signal came); -errno when there
 * is no terminal to ask on (open failed, not a tty, a background job).
 * `again` is written after an answer that is none (the prompt line).
 * The terminal's mode and the signal handlers are restored on every path;
 * a signal that interrupted the prompt is raised again afterwards. */
int atty_ask(const char *tty_path, const char *question, const char *again, int timeout_s, enum atty_answer *ret);
/* Write a line to the terminal the question was on (best effort). */
void atty_tell(const char *tty_path, const char *text);
