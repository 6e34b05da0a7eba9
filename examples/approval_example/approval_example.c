/* SPDX-License-Identifier: MIT */
/*
 * approval_example: an approval policy a security team might write, built
 * out of tree against the installed stockade SDK (see README.md).
 *
 * When a permission line answers ASK for a command, stockade asks the
 * approval hooks in stack order.  This one says:
 *
 *   - ALLOW if the user running stockade is listed in `users`, and it is
 *     one of the `days`, within `hours`, on this machine's clock;
 *   - DENY otherwise, with a log line that says which rule failed;
 *   - IGNORE for network (egress) questions: they are not this policy's
 *     business, so they go on to the next approver (or become a DENY).
 *
 *   - { phase: permission, control: optional, module: approval_example,
 *       args: { users: [ann, bob], hours: "09-18", days: [mon, tue, wed, thu, fri] } }
 *
 * Everything a module needs from stockade comes through `struct stk_host`
 * (stockade-module(3)); nothing here links against stockade.
 */
#define _POSIX_C_SOURCE 200809L /* localtime_r, getpwuid_r */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stockade/module.h>

/* The host table is the same for the whole run; init keeps it. */
static const struct stk_host *host;

/* Every argument is STK_ARG_TRUSTED: only the system and user policy layers
 * may set it.  A project's .stockade.yaml comes from a repository that may
 * be hostile; it must not add itself to `users` or move the clock. */
static const struct stk_arg_spec example_args[] = {
        { .name = "users", .type = STK_ARG_LIST, .flags = STK_ARG_TRUSTED,
          .help = "login names whose commands may be approved (required)" },
        { .name = "hours", .type = STK_ARG_STRING, .flags = STK_ARG_TRUSTED,
          .help = "\"HH-HH\": from (inclusive) to (exclusive), local time; default \"09-18\"" },
        { .name = "days", .type = STK_ARG_LIST, .flags = STK_ARG_TRUSTED,
          .help = "mon tue wed thu fri sat sun; default mon to fri" },
        { .name = "now", .type = STK_ARG_STRING, .flags = STK_ARG_TRUSTED,
          .help = "TESTS ONLY: \"YYYY-MM-DD HH:MM\" used instead of the clock" },
        { .name = NULL },
};

static const char *const day_names[7] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" };

/* One line's rules, parsed from its arguments. */
struct rules {
        int from, to;                /* hours: from <= hour < to */
        unsigned days;               /* bit N: day_names[N] */
        const char *const *users;
};

/* A moment, as the rules see it. */
struct moment {
        int wday, hour, minute;
};

static int parse_hours(const char *s, struct rules *r)
{
        char tail;

        if (sscanf(s, "%2d-%2d%c", &r->from, &r->to, &tail) != 2 || r->from < 0 || r->to > 24 || r->from >= r->to)
                return -EINVAL;
        return 0;
}

static int parse_days(const char *const *list, unsigned *ret)
{
        *ret = 0;
        if (!list[0]) {
                *ret = 0x3e; /* mon to fri */
                return 0;
        }
        for (size_t i = 0; list[i]; i++) {
                size_t d = 0;
                while (d < 7 && strcmp(list[i], day_names[d]) != 0)
                        d++;
                if (d == 7)
                        return -EINVAL;
                *ret |= 1u << d;
        }
        return 0;
}

/* Day of the week, 0 = Sunday (Sakamoto's method): no time zone, no libc
 * extension, so a test's `now` means the same everywhere. */
static int weekday(int y, int m, int d)
{
        static const int t[12] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };

        if (m < 3)
                y -= 1;
        return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7;
}

/* A test's "YYYY-MM-DD HH:MM". */
static int parse_now(const char *s, struct moment *ret)
{
        int y, mo, d;
        char tail;

        if (sscanf(s, "%4d-%2d-%2d %2d:%2d%c", &y, &mo, &d, &ret->hour, &ret->minute, &tail) != 5 ||
            mo < 1 || mo > 12 || d < 1 || d > 31 || ret->hour < 0 || ret->hour > 23 ||
            ret->minute < 0 || ret->minute > 59)
                return -EINVAL;
        ret->wday = weekday(y, mo, d);
        return 0;
}

/* The clock, or the line's `now` (tests only: it makes them deterministic;
 * read_rules has checked it). */
static int current_moment(struct stk_ctx *ctx, struct moment *ret)
{
        const char *fake = host->arg_string(ctx, "now");
        struct tm tm;
        time_t t;

        if (fake)
                return parse_now(fake, ret);
        t = time(NULL);
        if (t == (time_t) -1 || !localtime_r(&t, &tm))
                return errno ? -errno : -EIO; /* no clock: an error, logged by the core, never an ALLOW */
        *ret = (struct moment) { tm.tm_wday, tm.tm_hour, tm.tm_min };
        return 0;
}

/* This line's arguments as rules; a log line names the first that is
 * wrong.  Run by init (first line) and probe (every line), so that a typo
 * is reported before anything runs, not when the first question comes. */
static int read_rules(struct stk_ctx *ctx, struct rules *r)
{
        const char *hours = host->arg_string(ctx, "hours"), *now = host->arg_string(ctx, "now");
        struct moment m;

        r->users = host->arg_list(ctx, "users"); /* never NULL: absent is empty */
        if (!r->users[0]) {
                host->log(ctx, STK_LOG_ERROR, "users: list at least one login name");
                return -EINVAL;
        }
        if (parse_hours(hours ? hours : "09-18", r) < 0) {
                host->log(ctx, STK_LOG_ERROR, "hours \"%s\": expected \"HH-HH\" with 0 <= from < to <= 24", hours);
                return -EINVAL;
        }
        if (parse_days(host->arg_list(ctx, "days"), &r->days) < 0) {
                host->log(ctx, STK_LOG_ERROR, "days: use mon, tue, wed, thu, fri, sat, sun");
                return -EINVAL;
        }
        if (now && parse_now(now, &m) < 0) {
                host->log(ctx, STK_LOG_ERROR, "now \"%s\": expected \"YYYY-MM-DD HH:MM\"", now);
                return -EINVAL;
        }
        return 0;
}

/* Who runs stockade, from the kernel's uid, not from $USER: the
 * environment is the caller's to set. */
static int current_user(char *buf, size_t size)
{
        struct passwd pw, *found = NULL;
        char scratch[4096];
        int r = getpwuid_r(getuid(), &pw, scratch, sizeof(scratch), &found);

        if (r != 0)
                return -r;
        if (!found)
                return -ENOENT; /* a uid with no name cannot be on the list */
        if (snprintf(buf, size, "%s", pw.pw_name) >= (int) size)
                return -ENAMETOOLONG;
        return 0;
}

static int example_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct rules r;

        /* Every slot used here exists since ABI 1.0.  A module that uses a
         * newer one checks h->size first (stockade-module(3), COMPATIBILITY). */
        if (!STK_HAS(h, stk_host, settings))
                return -EPROTO;
        host = h;
        *ret_data = NULL; /* no per-run state: the rules are read per line */
        return read_rules(ctx, &r);
}

static int example_probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct rules r;

        *ret_covers = 0; /* an approver enforces nothing in the sandbox */
        return read_rules(ctx, &r);
}

static int user_listed(const char *user, const char *const *users)
{
        for (size_t i = 0; users[i]; i++)
                if (strcmp(user, users[i]) == 0)
                        return 1;
        return 0;
}

/* The rules applied to one command question. */
static enum stk_verdict decide(struct stk_ctx *ctx, const struct rules *r, const char *user, const struct moment *m,
                               const char *cmd)
{
        if (!user_listed(user, r->users)) {
                host->log(ctx, STK_LOG_WARNING, "%s: user %s is not on the approval list", cmd, user);
                return STK_DENY;
        }
        if (!(r->days & (1u << m->wday))) {
                host->log(ctx, STK_LOG_WARNING, "%s: no approvals on %s", cmd, day_names[m->wday]);
                return STK_DENY;
        }
        if (m->hour < r->from || m->hour >= r->to) {
                host->log(ctx, STK_LOG_WARNING, "%s: it is %02d:%02d, approvals only from %02d:00 to %02d:00", cmd,
                          m->hour, m->minute, r->from, r->to);
                return STK_DENY;
        }
        host->log(ctx, STK_LOG_INFO, "%s: approved for %s (%s %02d:%02d)", cmd, user, day_names[m->wday], m->hour,
                  m->minute);
        return STK_ALLOW;
}

/* The approval hook.  It runs in the supervisor's single-threaded event
 * loop, so it must answer quickly and never wait for anything unbounded
 * (a network call needs a timeout; see approval_webhook for one). */
static int example_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret_verdict)
{
        struct rules r;
        struct moment m;
        char user[256];
        int err;

        if (q->kind != STK_QUESTION_COMMAND) {
                *ret_verdict = STK_IGNORE; /* network questions: the next approver's */
                return 0;
        }
        /* A negative return is an error: the core logs it and asks the next
         * approver; with none left the answer is DENY.  Never ALLOW. */
        err = read_rules(ctx, &r);
        if (err >= 0)
                err = current_moment(ctx, &m);
        if (err >= 0)
                err = current_user(user, sizeof(user));
        if (err < 0)
                return err;
        *ret_verdict = decide(ctx, &r, user, &m, q->request && q->request->argv[0] ? q->request->argv[0] : "?");
        return 0;
}

/* ABI 1.1: what this line would do, for `stockade explain --details`.
 * The text is malloc()ed here and freed by the core. */
static int example_explain(struct stk_ctx *ctx, char **ret_text)
{
        struct rules r;
        char days[64] = "", text[256];
        size_t n = 0, users = 0;
        int err = read_rules(ctx, &r);

        if (err < 0)
                return err;
        for (int d = 0; d < 7; d++)
                if (r.days & (1u << d))
                        n += (size_t) snprintf(days + n, sizeof(days) - n, "%s%s", n ? "," : "", day_names[d]);
        while (r.users[users])
                users++;
        snprintf(text, sizeof(text), "allow commands of %zu listed user(s) on %s from %02d:00 to %02d:00, "
                 "deny the rest; egress questions: ignore", users, days, r.from, r.to);
        *ret_text = strdup(text);
        return *ret_text ? 0 : -ENOMEM;
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("approval_example"),
        .summary = "approve commands of listed users during working hours (an SDK example)",
        .args = example_args,
        .init = example_init,
        .probe = example_probe,
        .approve = example_approve,
        .explain = example_explain,
};
