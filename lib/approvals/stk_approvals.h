/* SPDX-License-Identifier: MIT */
/*
 * The remembered approvals: the answers "always" and "never" that
 * approval_tty keeps, and that `stockade approvals` lists and revokes.  One
 * implementation of the file format for both (compiled into the module via
 * approval_tty_SHARED and into the core binary).
 *
 * The file, $XDG_STATE_HOME/stockade/approvals by default, is text, one
 * decision a line:
 *
 *     allow command git push origin main
 *     deny egress example.com:443
 *
 * A command's key is its argv, each word shell-quoted (stk_appr_command_key:
 * bare when it is made of safe characters, '...' when printable, $'...' with
 * \xHH escapes otherwise) and joined by one space; the key is canonical, so
 * a decision matches exactly that argv.  A destination's key is host:port
 * (lowercase host, an IPv6 literal in brackets).  Lines starting with '#'
 * are comments; they are not kept when the file is rewritten.
 *
 * Trust: the file and its directory must belong to the effective user and be
 * writable by nobody else.  An untrusted file is still read, but only for
 * its DENY lines (stk_appr_decide); it is never rewritten.
 *
 * Writers hold an flock on "<file>.lock" in the same directory and replace
 * the file atomically (a temp file in the same directory, fsync, rename,
 * fsync of the directory), so a reader needs no lock: it sees the old file
 * or the new one, never half of one.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stk_appr_kind {
        STK_APPR_COMMAND = 1,
        STK_APPR_EGRESS,
};

enum stk_appr_decision {
        STK_APPR_NONE = 0,      /* nothing remembered (or only an untrusted ALLOW) */
        STK_APPR_ALLOW,
        STK_APPR_DENY,
};

struct stk_appr_entry {
        bool allow;
        enum stk_appr_kind kind;
        char *key;
};

struct stk_appr_list {
        struct stk_appr_entry *v;
        size_t n;
};

#define STK_APPR_MAX_FILE (1024 * 1024) /* a bigger state file is refused */

/* ---- keys ---------------------------------------------------------------- */
/* One argv word shell-quoted (canonical form, ASCII printable only, so it
 * is also safe to show on a terminal). */
int stk_appr_quote_word(const char *word, char **ret);
/* argv[0..] quoted and joined by single spaces; -EINVAL for an empty argv. */
int stk_appr_command_key(const char *const *argv, char **ret);
/* The reverse: the words of a command key; -EINVAL unless it is exactly what
 * stk_appr_command_key would write. */
int stk_appr_split_command_key(const char *key, char ***ret_words);
/* host:port; -EINVAL for a host that is not a DNS name or an IP literal. */
int stk_appr_egress_key(const char *host, uint16_t port, char **ret);
/* -EINVAL unless the key is in canonical form for its kind. */
int stk_appr_key_valid(enum stk_appr_kind kind, const char *key);
const char *stk_appr_kind_name(enum stk_appr_kind kind);
/* Any text made safe to print on a terminal: printable ASCII kept, every
 * other byte (escape sequences, bidi controls in UTF-8) as \xHH. */
int stk_appr_printable(const char *text, char **ret);

/* ---- the list and its text ------------------------------------------------ */
/* -EBADMSG with *ret_bad_line (1-based) for a malformed line. */
int stk_appr_parse(const char *text, size_t len, struct stk_appr_list *ret, unsigned *ret_bad_line);
int stk_appr_format(const struct stk_appr_list *l, char **ret);
void stk_appr_list_free(struct stk_appr_list *l);
/* Replace every line for kind+key by one. */
int stk_appr_list_set(struct stk_appr_list *l, enum stk_appr_kind kind, const char *key, bool allow);
int stk_appr_list_remove(struct stk_appr_list *l, size_t index);
/* What the list says about kind+key.  A DENY wins over an ALLOW (a file
 * edited by hand may hold both); ALLOWs count only when trust_allows. */
enum stk_appr_decision stk_appr_decide(const struct stk_appr_list *l, enum stk_appr_kind kind, const char *key,
                                       bool trust_allows);

/* ---- paths ------------------------------------------------------------- */
/* $XDG_STATE_HOME/stockade/approvals, else HOME/.local/state/stockade/approvals
 * (HOME: the argument, else $HOME, else the password database). */
int stk_appr_default_path(const char *home, char **ret);
/* realpath() of the longest existing prefix, the rest appended as written:
 * where the path is (or would be once created). */
int stk_appr_canonical(const char *path, char **ret);

/* ---- the file ------------------------------------------------------------ */
struct stk_appr_store {
        int dirfd;              /* the state file's directory */
        int lockfd;             /* >= 0 while the writer lock is held */
        char *name;             /* the file's name in it */
        char *path;
        bool trusted;           /* directory, and file once read, ours and private */
        char why[256];          /* why not trusted */
};

/* Open the directory of `path` (creating it 0700 when `create`); -ENOENT if
 * it does not exist and !create.  Checks the directory's trust. */
int stk_appr_open(const char *path, bool create, struct stk_appr_store *ret);
/* Take the writer lock, trying for at most timeout_ms (-ETIMEDOUT). */
int stk_appr_lock(struct stk_appr_store *s, int timeout_ms);
/* Read and parse the file (absent: an empty list); checks the file's trust.
 * -EBADMSG with *ret_bad_line for a malformed file. */
int stk_appr_read(struct stk_appr_store *s, struct stk_appr_list *ret, unsigned *ret_bad_line);
/* Replace the file with the list: lock held (-ENOLCK) and trusted (-EPERM). */
int stk_appr_write(struct stk_appr_store *s, const struct stk_appr_list *l);
void stk_appr_close(struct stk_appr_store *s);

/* What approval_tty does with it: the remembered decision for kind+key
 * (*ret_ignored_allow: an ALLOW was there but the file is not trusted), and
 * one decision remembered.  `why` gets the reason of an untrusted file or a
 * malformed line. */
int stk_appr_recall(const char *path, enum stk_appr_kind kind, const char *key, enum stk_appr_decision *ret,
                    bool *ret_ignored_allow, char *why, size_t why_size);
int stk_appr_remember(const char *path, enum stk_appr_kind kind, const char *key, bool allow, char *why,
                      size_t why_size);
