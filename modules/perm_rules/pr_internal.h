/* SPDX-License-Identifier: MIT */
/*
 * perm_rules internals, shared by the module, its parser and its unit tests.
 *
 *   pr_lex.c    words, operators, redirections, here-documents: the shell's lexer
 *   pr_expand.c $ ${ } $( ) $(( )) ` ` "..." $'...' inside a word
 *   pr_parse.c  the shell grammar: a command string -> its simple commands
 *   pr_rules.c  patterns: parsing, validation, matching one simple command
 *   pr_wrap.c   wrappers (env, sudo, timeout, ...) and shell options
 *   pr_check.c  the walk: every simple command, through wrappers and nested
 *               shells, judged; the worst verdict wins
 *   perm_rules.c the module: arguments, hooks, logging, audit, explain
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "stockade/module.h"
#include "common/stk_buf.h"
#include "common/stk_compat.h"

/* Limits.  A hostile command string must exhaust neither the stack nor
 * memory: past any of them the answer is ASK, never a crash or an ALLOW. */
#define PR_MAX_SCRIPT        (256 * 1024) /* bytes in one shell string */
#define PR_MAX_DEPTH         64           /* nesting: ( ), { }, $( ), if, ${ }, ... */
#define PR_MAX_SHELLS        8            /* nested `sh -c` */
#define PR_MAX_HOPS          32           /* wrappers around one command */
#define PR_MAX_CMDS          2048         /* simple commands in one decision */
#define PR_MAX_WORDS         4096         /* words in one simple command */
#define PR_MAX_HEREDOCS      16           /* here-documents pending on one line */
#define PR_MAX_PATTERN_WORDS 64
#define PR_MAX_ENTRIES       256          /* decisions kept for the log and audit */

/* ---- words and simple commands (pr_lex.c, pr_parse.c) -------------------- */

enum pr_word_flags {
        PR_W_QUOTED = 1u << 0, /* some part quoted or escaped: never a reserved word */
        PR_W_DYN    = 1u << 1, /* holds an expansion: its text is known only at run time */
        PR_W_SPLIT  = 1u << 2, /* ... unquoted (or a glob): it may become zero or many words */
        PR_W_ASSIGN = 1u << 3, /* NAME=value, NAME+=value, NAME[i]=value, unquoted name */
};

struct pr_word {
        char *text;     /* after quote removal; expansions kept as written */
        unsigned flags;
};

struct pr_cmd {
        struct pr_word *words;  /* the command, assignments removed */
        size_t n_words, cap_words;
        char **assigns;         /* NAME=value before the command (or alone) */
        size_t n_assigns, cap_assigns;
        const char *opaque;     /* set: what the parser could not see through (static text) */
        bool stdin_literal;     /* stdin is a here-document or here-string of the string */
        char **writes;          /* literal files its redirections write (or, alone, a compound's) */
        size_t n_writes;
        bool write_dyn;         /* ... and one named by an expansion */
};

struct pr_cmdlist {
        struct pr_cmd *cmds;
        size_t n, cap;
        bool overflow;          /* more than PR_MAX_CMDS: some were dropped */
};

/* Split a shell command string into its simple commands: across ; && || |
 * & newlines, inside ( ) { } $( ) ` ` <( ) and compound commands, with
 * quotes and escapes removed.  What cannot be seen through is an entry with
 * `opaque` set (a syntax error, `$((x))`, a too deep nesting, ...).
 * Returns 0, or -ENOMEM. */
int pr_split(const char *script, struct pr_cmdlist *out);
void pr_cmdlist_done(struct pr_cmdlist *l);
int pr_cmdlist_push(struct pr_cmdlist *l, struct pr_cmd *c);   /* takes c's contents */
int pr_cmdlist_opaque(struct pr_cmdlist *l, const char *why);
void pr_cmd_done(struct pr_cmd *c);
void pr_word_done(struct pr_word *w);

/* ---- the parser's state, shared by pr_lex.c and pr_parse.c ---------------- */

/* Words are built in a struct stk_buf (lib/common/stk_buf.h). */

enum pr_tok { PR_T_EOF, PR_T_WORD, PR_T_NEWLINE, PR_T_OP, PR_T_REDIR };
enum pr_op {
        PR_OP_SEMI, PR_OP_AMP, PR_OP_AND, PR_OP_OR, PR_OP_PIPE,
        PR_OP_LPAREN, PR_OP_RPAREN, PR_OP_CASE_END, /* ;; ;& ;;& */
};

struct pr_token {
        enum pr_tok kind;
        int op;            /* enum pr_op */
        bool heredoc;      /* PR_T_REDIR: << or <<- */
        bool herestring;   /* PR_T_REDIR: <<< */
        bool input;        /* PR_T_REDIR: < << <<< <& <> (fd 0 unless other_fd) */
        bool output;       /* PR_T_REDIR: > >> >| &> &>> <> >&FILE: its target is written */
        bool dup;          /* PR_T_REDIR: >& or <&: a number or - is a descriptor, not a file */
        bool other_fd;     /* PR_T_REDIR: an IO number other than 0 before it (3<<EOF) */
        bool strip_tabs;   /* <<- */
        struct pr_word word;
};

struct pr_heredoc {
        char *delim;
        bool strip_tabs, expand;
};

#define PR_MAX_VARS 32
struct pr_names {
        char v[PR_MAX_VARS][32];
        size_t n;
        bool overflow;
};
struct pr_vars {                 /* pr_vars.c */
        struct pr_names numeric; /* for-loop variables over numbers */
        struct pr_names tainted; /* names bound some other way */
        struct pr_names pending; /* numeric names arithmetic read */
};

struct pr_parser {
        const char *s;
        size_t len, pos;
        int depth;
        struct pr_cmdlist *out;
        const char *error;   /* first syntax error (static text) */
        bool oom;
        bool have_peek;
        struct pr_token peek;
        struct pr_heredoc heredocs[PR_MAX_HEREDOCS];
        size_t n_heredocs;
        struct pr_vars vars;
};

/* pr_lex.c */
int pr_lex(struct pr_parser *p, struct pr_token *ret);
char pr_at(const struct pr_parser *p, size_t k);  /* the char k ahead, continuations skipped, or NUL */
void pr_adv(struct pr_parser *p, size_t k);       /* k chars on, continuations skipped */
void pr_adv_escape(struct pr_parser *p);          /* past a backslash and the char it quotes */
void pr_norm(struct pr_parser *p);                /* past line continuations at pos */
bool pr_lex_arith_command(struct pr_parser *p);  /* after a `(` token: `((...))`? */
/* pr_expand.c: each appends the expansion to b and returns pr_word_flags */
unsigned pr_lex_dollar(struct pr_parser *p, struct stk_buf *b, bool in_dquotes);
unsigned pr_lex_backtick(struct pr_parser *p, struct stk_buf *b, bool in_dquotes);
unsigned pr_lex_dquote(struct pr_parser *p, struct stk_buf *b);
void pr_scan_arith(struct pr_parser *p, bool brackets);  /* after `$((`, `((` or `$[` */
bool pr_numeric_expansion(const char *s, size_t n);
void pr_lex_heredoc_body(struct pr_parser *p);
void pr_lex_skip_blanks(struct pr_parser *p);
int pr_enter(struct pr_parser *p);                /* one level deeper, or an error */
void pr_leave(struct pr_parser *p);
void pr_fail(struct pr_parser *p, const char *why);
void pr_opaque(struct pr_parser *p, const char *why);
void pr_token_done(struct pr_token *t);
/* pr_vars.c */
void pr_vars_taint(struct pr_parser *p, const char *word);
void pr_vars_taint_name(struct pr_parser *p, const char *name, size_t len);
void pr_vars_loop(struct pr_parser *p, const struct pr_word *name, const struct pr_word *words, size_t n);
bool pr_vars_defer(struct pr_parser *p, const char *name, size_t len);   /* a read set aside? */
void pr_vars_resolve(struct pr_parser *p);
/* pr_parse.c */
void pr_parse_list(struct pr_parser *p);
void pr_parse_subst(struct pr_parser *p);         /* after `$(` or `<(`: up to `)` */
void pr_parse_nested(struct pr_parser *p, const char *script, bool heredoc_body);

/* ---- rules (pr_rules.c) -------------------------------------------------- */

enum pr_kind { PR_DENY = 0, PR_ASK, PR_ALLOW, PR_NKINDS };

struct pr_pattern {
        char *text;      /* as written */
        char **globs;    /* one fnmatch(3) glob per word, the trailing bare `*` left out */
        size_t n;
        bool rest;       /* ended with a bare `*`: any number of further words */
        struct pr_set {  /* {a,b}: each element matches an option or operand after the fixed words */
                char **elems;
                size_t n;
        } *sets;
        size_t n_sets;   /* set: rest is true, and globs[0..n) are the fixed words before the sets */
        size_t set_at;   /* globs before the first set */
};

struct pr_rules {
        struct pr_pattern *pats[PR_NKINDS];
        size_t n[PR_NKINDS];
        enum stk_verdict dflt;   /* for a command no pattern matches */
        char **trusted;          /* trusted_sources: absolute globs (~ expanded) `source` may read */
        size_t n_trusted;
        bool interpreters_ask;   /* interpreters: ask: inline code (python3 -c, ...) is ASK */
};

/* Compile the argument lists.  On a policy error returns -EINVAL with
 * *ret_error a malloc()ed message naming the pattern. */
int pr_rules_compile(const char *const *deny, const char *const *ask, const char *const *allow,
                     const char *dflt, struct pr_rules *ret, char **ret_error);
void pr_rules_done(struct pr_rules *r);
/* trusted_sources: each glob absolute or `~/...` (expanded with `home`);
 * -EINVAL with *ret_error otherwise. */
int pr_rules_trust(struct pr_rules *r, const char *const *globs, const char *home, char **ret_error);
/* Both of the above and `interpreters: ask|allow`; frees r on failure. */
int pr_rules_options(struct pr_rules *r, const char *const *trusted, const char *home, const char *interpreters,
                     char **ret_error);
/* A literal path `source` may read without a verdict: absolute, no `.` or
 * `..` component, matching a trusted glob (FNM_PATHNAME). */
bool pr_rules_trusted(const struct pr_rules *r, const char *path);
int pr_pattern_parse(const char *text, struct pr_pattern *ret, const char **ret_why);
void pr_pattern_done(struct pr_pattern *p);

/* How a pattern relates to words whose expansions are unknown: `sure`
 * matches whatever they expand to, `may` for some expansion. */
bool pr_pattern_sure(const struct pr_pattern *p, const struct pr_word *w, size_t n);
bool pr_pattern_may(const struct pr_pattern *p, const struct pr_word *w, size_t n);

struct pr_judgement {
        enum stk_verdict verdict;        /* STK_VERDICT_UNSET: no deny/ask pattern (layer only) */
        const struct pr_pattern *pattern; /* NULL: the default */
        enum pr_kind kind;
        bool unsure;                     /* a deny pattern may match: ASK */
};
/* One simple command: deny beats ask beats allow beats the default. */
void pr_rules_judge(const struct pr_rules *r, const struct pr_word *w, size_t n, struct pr_judgement *ret);
/* A wrapper or shell layer (`sudo ...`, `bash -c ...`): deny and ask only. */
void pr_rules_judge_layer(const struct pr_rules *r, const struct pr_word *w, size_t n, struct pr_judgement *ret);
const char *pr_kind_name(enum pr_kind k);
const char *pr_verdict_name(enum stk_verdict v);
int pr_verdict_parse(const char *s, enum stk_verdict *ret);

/* ---- wrappers and shells (pr_wrap.c) ------------------------------------- */

enum pr_unwrap_kind {
        PR_UNWRAP_NONE,    /* not a wrapper */
        PR_UNWRAP_INNER,   /* the command starts at `start` */
        PR_UNWRAP_SELF,    /* runs no command of its own (`command -v x`): judge it as it is */
        PR_UNWRAP_EMPTY,   /* nothing runs (`exec` with only redirections) */
        PR_UNWRAP_OPAQUE,  /* cannot see through: ASK for `why` */
        PR_UNWRAP_SHELL,   /* runs a shell string: `shell`, or words start.. joined by blanks */
};

struct pr_unwrap {
        enum pr_unwrap_kind kind;
        size_t start;
        size_t assign_from, assign_to;  /* NAME=value operands (env, sudo) */
        bool xargs;                     /* the command gets words from stdin */
        const char *replace;            /* xargs -I: this string stands for a stdin line */
        const char *shell;              /* su -c STRING, flock -c STRING, ... */
        bool joined;                    /* watch, sg: the words from `start` joined */
        const char *why;
};
int pr_unwrap(const struct pr_word *w, size_t n, struct pr_unwrap *ret);

enum pr_shell_kind {
        PR_SHELL_NONE,     /* not a shell */
        PR_SHELL_STRING,   /* -c: the script is word `script` */
        PR_SHELL_FILE,     /* runs a script file: judge the command as it is */
        PR_SHELL_OPAQUE,   /* reads stdin, interactive, a language we do not parse, ... */
};
struct pr_shell {
        enum pr_shell_kind kind;
        size_t script;
        const char *why;
};
void pr_shell_args(const struct pr_word *w, size_t n, struct pr_shell *ret);
const char *pr_basename(const char *path);
bool pr_is_stream_path(const char *path);
/* For explain and the man-page test. */
const char *pr_wrapper_name(size_t i);
extern const char *const pr_parsed_shells[];  /* NULL-terminated */
bool pr_is_identifier(const char *s, size_t n);
const char *pr_risky_assignment(const char *assign);

/* ---- tools (pr_tools.c, pr_forms.c) -------------------------------------- */

/* Candidates of a flag set: options in canonical spelling and operands. */
struct pr_cand {
        const char *text;
        bool sure;          /* no expansion before it (which could be `--` or make it a value) */
};
struct pr_cands {
        struct pr_cand *v;
        size_t n, cap;
        char *pool;         /* "-X" strings for letters of unknown clusters */
        size_t pool_len, pool_cap;
};
/* The candidates of words[from..] (from is at least the tool's own words:
 * `rm`, `git push`).  Returns 0 or -ENOMEM. */
int pr_candidates(const struct pr_word *w, size_t n, size_t from, struct pr_cands *ret);
void pr_cands_done(struct pr_cands *c);

#define PR_MAX_FORMS 4
struct pr_form {
        struct pr_word *w;  /* texts borrowed from the command or static */
        size_t n;
};
struct pr_forms {
        struct pr_form f[PR_MAX_FORMS];
        size_t n;
        const char *ask;    /* set: the tool is told to run code of the string's choosing */
};
/* The command as its tool reads it: global options stripped, alternative
 * spellings mapped.  Returns 0 or -ENOMEM; no form when there is nothing
 * to add. */
int pr_tool_forms(const struct pr_word *w, size_t n, struct pr_forms *ret);
void pr_forms_done(struct pr_forms *f);

/* pr_code.c: options that run code of their value, interpreters. */
enum pr_code_kind { PR_CODE_NONE, PR_CODE_SHELL, PR_CODE_ASK };
struct pr_code {
        enum pr_code_kind kind;
        const char *shell;   /* PR_CODE_SHELL: the string to parse */
        const char *why;     /* PR_CODE_ASK */
};
/* The next code option in words[from..]; returns the index to go on from
 * (n when done). */
int pr_code_scan(const struct pr_word *w, size_t n, size_t from, struct pr_code *ret);
bool pr_known_runner(const char *prog);
/* Why an interpreter's command is ASK, or NULL.  stdin_literal: its
 * standard input is a here-document or here-string of the string. */
const char *pr_interpreter_check(const struct pr_word *w, size_t n, bool stdin_literal, bool ask_inline);

/* pr_writes.c: files written, then run, in one string. */
#define PR_MAX_WRITTEN 64
struct pr_written {
        char *paths[PR_MAX_WRITTEN];
        size_t n;
        bool dyn;        /* a write whose file is known only at run time */
        bool overflow;   /* more than PR_MAX_WRITTEN: every run is suspect */
};
void pr_written_add(struct pr_written *wr, const char *path);
void pr_written_from_words(struct pr_written *wr, const struct pr_word *w, size_t n);
/* Why running this command runs a file the string wrote, or NULL. */
const char *pr_runs_written(const struct pr_written *wr, const struct pr_word *w, size_t n);
void pr_written_done(struct pr_written *wr);
char *pr_path_join(const char *cwd, const char *path);            /* malloc()ed, or NULL */
const char *pr_path_under(const char *abs, const char *const *list); /* the entry abs is in, or NULL */

/* ---- the decision (pr_check.c) ------------------------------------------- */

struct pr_entry {
        char *command;          /* the simple command as the rules saw it */
        enum stk_verdict verdict;
        char *why;              /* the rule, or why it could not be seen through */
};

struct pr_result {
        enum stk_verdict verdict;
        struct pr_entry *entries;
        size_t n, cap;
        size_t dropped;         /* entries past PR_MAX_ENTRIES (still counted in verdict) */
        size_t n_cmds;          /* commands walked (shells and wrappers included): the limit */
        size_t n_simple;        /* simple commands judged by the rules */
        bool oom;
};

/* The verdict for a request's argv (a shell string is parsed; wrappers and
 * nested shells are seen through).  Returns 0 or -ENOMEM. */
int pr_decide(const struct pr_rules *rules, const char *const *argv, struct pr_result *ret);
/* The same, with the request's working directory and the run's protected
 * paths: a write target inside one is DENY. */
int pr_decide_in(const struct pr_rules *rules, const char *const *argv, const char *cwd,
                 const char *const *protected, struct pr_result *ret);
void pr_result_done(struct pr_result *r);
