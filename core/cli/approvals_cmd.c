/* SPDX-License-Identifier: MIT */
/*
 * `stockade approvals list|revoke|clear`: the answers approval_tty remembers
 * ("always", "never").  The file format, its trust rules, the lock and the
 * atomic replace are the module's own code (lib/approvals/stk_approvals*.c,
 * linked into the core too), so both sides read and write one format.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "run/core.h"
#include "util/util.h"
#include "approvals/stk_approvals.h"

#define LOCK_TIMEOUT_MS 5000

static void usage_approvals(FILE *f)
{
        fprintf(f,
                "usage: stockade approvals [--file PATH] list\n"
                "       stockade approvals [--file PATH] revoke N | KEY...\n"
                "       stockade approvals [--file PATH] clear\n"
                "\n"
                "The answers \"always\" and \"never\" that approval_tty remembers, by default in\n"
                "$XDG_STATE_HOME/stockade/approvals.  revoke takes the number `list` shows, or\n"
                "the line's text (\"command git push origin main\", \"egress example.com:443\").\n");
}

/* The file and its list, for one subcommand; ENOENT: nothing remembered. */
static int open_list(const char *path, bool for_writing, struct stk_appr_store *s, struct stk_appr_list *l)
{
        unsigned bad_line = 0;
        int r = stk_appr_open(path, false, s);

        if (r < 0) {
                if (r != -ENOENT)
                        fprintf(stderr, "stockade approvals: %s: %s\n", path, strerror(-r));
                return r;
        }
        if (for_writing && (r = stk_appr_lock(s, LOCK_TIMEOUT_MS)) < 0)
                fprintf(stderr, "stockade approvals: locking %s.lock: %s\n", path, strerror(-r));
        if (r >= 0 && (r = stk_appr_read(s, l, &bad_line)) < 0) {
                if (r == -EBADMSG)
                        fprintf(stderr, "stockade approvals: %s:%u: not a decision line\n", path, bad_line);
                else
                        fprintf(stderr, "stockade approvals: %s: %s\n", path, strerror(-r));
        }
        if (r >= 0 && for_writing && !s->trusted) {
                fprintf(stderr, "stockade approvals: refusing to rewrite it: %s\n", s->why);
                r = -EPERM;
        }
        if (r < 0)
                stk_appr_close(s);
        return r;
}

static int cmd_list(const char *path)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        int r = open_list(path, false, &s, &l);

        if (r == -ENOENT || (r >= 0 && l.n == 0))
                printf("# %s: nothing remembered\n", path);
        else if (r >= 0) {
                printf("# %s\n", path);
                for (size_t i = 0; i < l.n; i++)
                        printf("%3zu  %-5s %s %s\n", i + 1, l.v[i].allow ? "allow" : "deny",
                               stk_appr_kind_name(l.v[i].kind), l.v[i].key);
                if (!s.trusted)
                        fprintf(stderr, "stockade approvals: warning: its \"allow\" lines are not used: %s\n", s.why);
        }
        if (r >= 0) {
                stk_appr_list_free(&l);
                stk_appr_close(&s);
        }
        return r >= 0 || r == -ENOENT ? 0 : 1;
}

/* The entry `what` names: a number from `list`, or "[allow|deny] KIND KEY". */
static int find_entry(const struct stk_appr_list *l, const char *what)
{
        char *end;
        unsigned long n = strtoul(what, &end, 10);

        if (what[0] >= '1' && what[0] <= '9' && *end == '\0')
                return n <= l->n ? (int) n - 1 : -ENOENT;
        for (size_t i = 0; i < l->n; i++) {
                const char *verdict = l->v[i].allow ? "allow " : "deny ", *kind = stk_appr_kind_name(l->v[i].kind);
                const char *rest = strncmp(what, verdict, strlen(verdict)) == 0 ? what + strlen(verdict) : what;
                size_t k = strlen(kind);

                if (strncmp(rest, kind, k) == 0 && rest[k] == ' ' && streq(rest + k + 1, l->v[i].key))
                        return (int) i;
        }
        return -ENOENT;
}

/* `revoke command git push` typed as the command would be run: the words
 * after "command" are the argv, quoted here as the file has it. */
static int find_argv(const struct stk_appr_list *l, char **words)
{
        _cleanup_free_ char *key = NULL;

        if (!streq(words[0], "command") || !words[1] ||
            stk_appr_command_key((const char *const *) words + 1, &key) < 0)
                return -ENOENT;
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].kind == STK_APPR_COMMAND && streq(l->v[i].key, key))
                        return (int) i;
        return -ENOENT;
}

static int join_words(char **words, char **ret)
{
        char *s = NULL;

        for (size_t i = 0; words[i]; i++) {
                char *n;
                if (asprintf(&n, "%s%s%s", s ? s : "", s ? " " : "", words[i]) < 0) {
                        free(s);
                        return -ENOMEM;
                }
                free(s);
                s = n;
        }
        *ret = s;
        return s ? 0 : -EINVAL;
}

static int cmd_revoke(const char *path, char **words)
{
        _cleanup_free_ char *what = NULL;
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 };
        int i, r = join_words(words, &what);

        if (r < 0) {
                usage_approvals(stderr);
                return STK_EXIT_USAGE;
        }
        r = open_list(path, true, &s, &l);
        if (r == -ENOENT)
                fprintf(stderr, "stockade approvals: %s: nothing remembered\n", path);
        if (r < 0)
                return 1;
        i = find_entry(&l, what);
        if (i < 0)
                i = find_argv(&l, words);
        if (i < 0)
                fprintf(stderr, "stockade approvals: no remembered decision \"%s\" in %s (see `stockade approvals list`)\n",
                        what, path);
        else {
                printf("revoked: %s %s %s\n", l.v[i].allow ? "allow" : "deny", stk_appr_kind_name(l.v[i].kind),
                       l.v[i].key);
                r = stk_appr_list_remove(&l, (size_t) i);
                if (r >= 0)
                        r = stk_appr_write(&s, &l);
                if (r < 0)
                        fprintf(stderr, "stockade approvals: writing %s: %s\n", path, strerror(-r));
        }
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        return i >= 0 && r >= 0 ? 0 : 1;
}

static int cmd_clear(const char *path)
{
        struct stk_appr_store s;
        struct stk_appr_list l = { 0 }, empty = { 0 };
        unsigned bad_line;
        int r = stk_appr_open(path, false, &s);

        if (r == -ENOENT) {
                printf("# %s: nothing remembered\n", path);
                return 0;
        }
        if (r >= 0)
                r = stk_appr_lock(&s, LOCK_TIMEOUT_MS);
        /* A malformed file may be cleared (that is how to recover from
         * one); a file somebody else could write may not be touched. */
        if (r >= 0 && (r = stk_appr_read(&s, &l, &bad_line)) == -EBADMSG)
                r = 0;
        if (r >= 0 && !s.trusted) {
                fprintf(stderr, "stockade approvals: refusing to rewrite it: %s\n", s.why);
                r = -EPERM;
        } else if (r >= 0)
                r = stk_appr_write(&s, &empty);
        if (r >= 0)
                printf("cleared %zu remembered decision%s from %s\n", l.n, l.n == 1 ? "" : "s", path);
        else if (r != -EPERM)
                fprintf(stderr, "stockade approvals: %s: %s\n", path, strerror(-r));
        stk_appr_list_free(&l);
        stk_appr_close(&s);
        return r >= 0 ? 0 : 1;
}

int cli_approvals(int argc, char **argv)
{
        static const struct option options[] = {
                { "file", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        _cleanup_free_ char *dflt = NULL;
        const char *path = NULL, *sub;
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+f:h", options, NULL)) != -1) {
                if (c == 'h') {
                        usage_approvals(stdout);
                        return 0;
                }
                if (c != 'f') {
                        usage_approvals(stderr);
                        return STK_EXIT_USAGE;
                }
                path = optarg;
        }
        if (optind >= argc) {
                usage_approvals(stderr);
                return STK_EXIT_USAGE;
        }
        if (!path && stk_appr_default_path(NULL, &dflt) < 0) {
                fprintf(stderr, "stockade approvals: no state directory: set XDG_STATE_HOME or HOME\n");
                return 1;
        }
        path = path ? path : dflt;
        if (path[0] != '/') {
                fprintf(stderr, "stockade approvals: %s: not an absolute path\n", path);
                return STK_EXIT_USAGE;
        }
        sub = argv[optind];
        if (streq(sub, "list") && optind + 1 == argc)
                return cmd_list(path);
        if (streq(sub, "clear") && optind + 1 == argc)
                return cmd_clear(path);
        if (streq(sub, "revoke") && optind + 1 < argc)
                return cmd_revoke(path, argv + optind + 1);
        usage_approvals(stderr);
        return STK_EXIT_USAGE;
}
