/* SPDX-License-Identifier: MIT */
/*
 * `stockade log [--since T] [--denied] [--run ID] [--json] [FILE]`: the
 * audit log (JSON Lines, core/run/audit.c) as a timeline a person reads,
 * filtered.  Without FILE, the file the policy's `audit:` names (the same
 * --profile/--policy/--workspace as run).  A line that is not a record is
 * reported as FILE:LINE:COL and skipped; the status is then 1, so a script
 * notices a damaged log.  --json prints the selected records unchanged.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <time.h>
#include <json-c/json.h>

#include "cli.h"
#include "run/core.h"
#include "util/util.h"

#define LOG_LINE_MAX (1024 * 1024) /* a record is a few KiB; more is not ours */
#define LOG_SCHEMA_VERSION 1        /* the "v" this reader knows */

void cli_tokener_freep(struct json_tokener **t)
{
        if (*t)
                json_tokener_free(*t);
}

static void fclosep(FILE **f)
{
        if (*f)
                (void) fclose(*f); /* read only: nothing to lose */
}

struct log_filter {
        char since[32];   /* ISO 8601 UTC, compared as text; "" for all */
        const char *run;  /* a prefix of the run id, or NULL */
        bool denied, json;
};

static void usage_log(FILE *f)
{
        fprintf(f,
                "usage: stockade log [--since T] [--denied] [--run ID] [--json] [FILE]\n"
                "                    [--profile P] [--policy FILE] [--workspace DIR]\n"
                "  FILE         the audit log (default: the policy's `audit:` setting)\n"
                "  --since T    records from T on: 2026-12-02, 2026-12-02T16:45[:SS] (UTC),\n"
                "               or an age: 30s, 10m, 2h, 7d\n"
                "  --denied     only what was refused: denied runs, deny verdicts, refusals\n"
                "  --run ID     only the run whose id starts with ID (4 characters or more)\n"
                "  --json       the selected records as they are, one a line\n");
}

/* "30s" "10m" "2h" "7d": *ret the time that long ago, as the log writes it. */
static bool parse_age(const char *s, char ret[static 32])
{
        static const struct { char unit; long seconds; } units[] = {
                { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
        };
        char *end;
        long n;
        time_t t;
        struct tm tm;

        if (!isdigit((unsigned char) s[0]))
                return false;
        errno = 0;
        n = strtol(s, &end, 10);
        if (errno || end[0] == '\0' || end[1] != '\0' || n > 100L * 365 * 86400)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (units[i].unit != end[0])
                        continue;
                t = time(NULL) - (time_t) (n * units[i].seconds);
                if (!gmtime_r(&t, &tm))
                        return false;
                return strftime(ret, 32, "%Y-%m-%dT%H:%M:%S", &tm) > 0;
        }
        return false;
}

/* A date, or a date and a time to the minute or second (a space for the T):
 * a prefix of what the log writes, so text order is time order. */
static bool parse_date(const char *s, char ret[static 32])
{
        static const char shape[] = "dddd-dd-ddTdd:dd:dd";
        size_t n = strlen(s);

        if (n != 10 && n != 16 && n != 19)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i] == ' ' && shape[i] == 'T' ? 'T' : s[i];
                if (shape[i] == 'd' ? !isdigit((unsigned char) c) : c != shape[i])
                        return false;
                ret[i] = c;
        }
        ret[n] = '\0';
        return true;
}

static const char *str_field(struct json_object *rec, const char *key)
{
        struct json_object *v;

        return json_object_object_get_ex(rec, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v) : NULL;
}

/* Refused: a denied run, a deny verdict, or a record that counts refusals. */
static bool is_denied(struct json_object *rec)
{
        const char *verdict = str_field(rec, "verdict"), *outcome = str_field(rec, "outcome");
        struct json_object *v;

        return (verdict && (streq(verdict, "deny") || streq(verdict, "denied"))) ||
               (outcome && streq(outcome, "denied")) ||
               (json_object_object_get_ex(rec, "refused", &v) && json_object_get_int64(v) > 0);
}

static bool selected(const struct log_filter *f, struct json_object *rec)
{
        const char *t = str_field(rec, "time"), *run = str_field(rec, "run");

        if (f->since[0] && (!t || strcmp(t, f->since) < 0))
                return false;
        if (f->run && (!run || strncmp(run, f->run, strlen(f->run)) != 0))
                return false;
        return !f->denied || is_denied(rec);
}

/* argv as one line, each word quoted only when it must be. */
static void print_argv(FILE *out, struct json_object *argv)
{
        for (size_t i = 0; i < json_object_array_length(argv); i++) {
                const char *w = json_object_get_string(json_object_array_get_idx(argv, i));
                bool plain = w && *w && strcspn(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") == strlen(w);

                fputs(i ? " " : "", out);
                if (plain) {
                        fputs(w, out);
                        continue;
                }
                fputc('\'', out);
                for (const char *p = w ? w : ""; *p; p++)
                        fputs(*p == '\'' ? "'\\''" : *p == '\n' ? "\\n" : (char[]) { *p, 0 }, out);
                fputc('\'', out);
        }
}

/* The fields every record has are shown in columns; what is left, as
 * key=value (strings bare, the rest as JSON). */
static bool is_column(const char *key)
{
        static const char *const columns[] = { "v", "time", "run", "type", "argv", "stack", NULL };

        for (size_t i = 0; columns[i]; i++)
                if (streq(key, columns[i]))
                        return true;
        return false;
}

static void print_record(FILE *out, struct json_object *rec)
{
        const char *t = str_field(rec, "time"), *run = str_field(rec, "run"), *type = str_field(rec, "type");
        struct json_object *argv;
        char when[24];

        /* 2026-12-02T16:45:24.199Z -> 2026-12-02 16:45:24.199 */
        snprintf(when, sizeof(when), "%.23s", t ? t : "?");
        if (strlen(when) > 10 && when[10] == 'T')
                when[10] = ' ';
        fprintf(out, "%-23s  %.8s  %-9s", when, run ? run : "-", type ? type : "?");
        json_object_object_foreach(rec, key, val) {
                if (is_column(key))
                        continue;
                const char *text = json_object_is_type(val, json_type_string) ? json_object_get_string(val) : NULL;
                if (!text)
                        text = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                else if (!*text || strpbrk(text, " \t\n\"")) /* one field stays one word */
                        text = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                fprintf(out, " %s=%s", key, text);
        }
        if (json_object_object_get_ex(rec, "argv", &argv) && json_object_is_type(argv, json_type_array)) {
                fputs("  $ ", out);
                print_argv(out, argv);
        }
        fputc('\n', out);
}

/* One line: 0 (printed or filtered out), 1 reported as damaged. */
static int log_line(const char *file, unsigned long lineno, const char *line, size_t len,
                    const struct log_filter *f, bool *warned_version)
{
        _cleanup_(cli_tokener_freep) struct json_tokener *tok = json_tokener_new();
        struct json_object *rec;
        struct json_object *v;

        if (!tok)
                return -ENOMEM;
        rec = json_tokener_parse_ex(tok, line, (int) len);
        if (!rec || !json_object_is_type(rec, json_type_object) ||
            json_tokener_get_parse_end(tok) != len) {
                size_t col = json_tokener_get_parse_end(tok) + 1;
                fprintf(stderr, "stockade: %s:%lu:%zu: not an audit record (%s): \"%.40s%s\"\n", file, lineno, col,
                        rec ? "not one JSON object"
                            : json_tokener_get_error(tok) == json_tokener_continue ? "the line ends inside it"
                            : json_tokener_error_desc(json_tokener_get_error(tok)),
                        line, len > 40 ? "..." : "");
                json_object_put(rec);
                return 1;
        }
        if (json_object_object_get_ex(rec, "v", &v) && json_object_get_int(v) > LOG_SCHEMA_VERSION && !*warned_version) {
                fprintf(stderr, "stockade: %s:%lu: records of schema version %d; this stockade reads %d, "
                        "fields it does not know are shown as they are\n", file, lineno, json_object_get_int(v),
                        LOG_SCHEMA_VERSION);
                *warned_version = true;
        }
        if (selected(f, rec)) {
                if (f->json)
                        printf("%.*s\n", (int) len, line);
                else
                        print_record(stdout, rec);
        }
        json_object_put(rec);
        return 0;
}

static int log_file(const char *file, const struct log_filter *f)
{
        _cleanup_(fclosep) FILE *in = fopen(file, "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        unsigned long lineno = 0;
        bool damaged = false, warned_version = false;

        if (!in) {
                fprintf(stderr, "stockade: cannot read the audit log %s: %s\n", file, strerror(errno));
                return 1;
        }
        while ((n = getline(&line, &cap, in)) >= 0) {
                lineno++;
                if (n > 0 && line[n - 1] == '\n')
                        line[--n] = '\0';
                if (n == 0)
                        continue;
                if (n > LOG_LINE_MAX) {
                        fprintf(stderr, "stockade: %s:%lu: a line of %zd bytes is not an audit record\n", file, lineno, n);
                        damaged = true;
                        continue;
                }
                int r = log_line(file, lineno, line, (size_t) n, f, &warned_version);
                if (r < 0) {
                        fprintf(stderr, "stockade: reading %s: %s\n", file, strerror(-r));
                        return 1;
                }
                damaged |= r > 0;
        }
        if (ferror(in)) {
                fprintf(stderr, "stockade: reading %s: %s\n", file, strerror(errno));
                return 1;
        }
        return damaged ? 1 : 0;
}

/* Without FILE: the audit log the policy names. */
static int policy_audit_file(const struct core_open_opts *o, char **ret)
{
        struct core_policy *p = NULL;

        if (core_load_policy(o, &p) < 0)
                return STK_EXIT_POLICY;
        if (!p->audit) {
                fprintf(stderr, "stockade: no audit log: the policy sets no `audit:` (see stockade.yaml(5)); "
                        "name the file: stockade log FILE\n");
                core_policy_free(p);
                return STK_EXIT_USAGE;
        }
        *ret = strdup(p->audit);
        core_policy_free(p);
        return *ret ? 0 : 1;
}

int cli_log(int argc, char **argv)
{
        static const struct option options[] = {
                { "since", required_argument, NULL, 's' },
                { "denied", no_argument, NULL, 'd' },
                { "run", required_argument, NULL, 'r' },
                { "json", no_argument, NULL, 'j' },
                { "profile", required_argument, NULL, 'p' },
                { "policy", required_argument, NULL, 'P' },
                { "workspace", required_argument, NULL, 'w' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct log_filter f = { 0 };
        struct core_open_opts o = { 0 };
        _cleanup_free_ char *file = NULL;
        int c, r;

        optind = 1;
        while ((c = getopt_long(argc, argv, "+s:dr:jp:P:w:h", options, NULL)) != -1) {
                switch (c) {
                case 's':
                        if (!parse_date(optarg, f.since) && !parse_age(optarg, f.since)) {
                                fprintf(stderr, "stockade: log: --since \"%s\": expected a date (2026-12-02, "
                                        "2026-12-02T16:45) or an age (30s, 10m, 2h, 7d)\n", optarg);
                                return STK_EXIT_USAGE;
                        }
                        break;
                case 'd': f.denied = true; break;
                case 'r':
                        if (strlen(optarg) < 4 || strspn(optarg, "0123456789abcdef") != strlen(optarg)) {
                                fprintf(stderr, "stockade: log: --run \"%s\": expected 4 or more hex digits of a run id\n",
                                        optarg);
                                return STK_EXIT_USAGE;
                        }
                        f.run = optarg;
                        break;
                case 'j': f.json = true; break;
                case 'p': o.profile = optarg; break;
                case 'P': o.policy_file = optarg; break;
                case 'w': o.workspace = optarg; break;
                case 'h': usage_log(stdout); return 0;
                default: usage_log(stderr); return STK_EXIT_USAGE;
                }
        }
        if (argc - optind > 1) {
                usage_log(stderr);
                return STK_EXIT_USAGE;
        }
        if (optind < argc) {
                file = strdup(argv[optind]);
                if (!file)
                        return 1;
        } else if ((r = policy_audit_file(&o, &file)) != 0)
                return r;
        return log_file(file, &f);
}
