/* SPDX-License-Identifier: MIT */
/*
 * stockade doctor: can each shipped profile run here?  A profile is loaded
 * the way `stockade run --profile NAME` loads it (every layer, this
 * workspace), its modules are loaded, initialised and probed, and then:
 * every required/requisite line must be usable here, and the usable
 * enforcement lines must cover what the settings require (minus
 * best_effort), exactly the check `run` makes before the command starts.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "run/core.h"
#include "doctor_internal.h"
#include "os/os.h"
#include "util/util.h"

/* What a module needs from this machine: the doctor checks to read when
 * its probe fails.  Unknown modules get no hint beyond their own log. */
static const struct {
        const char *module;
        const char *checks[6];
} module_needs[] = {
        { "fs_bwrap", { "bwrap", "bwrap_run", "userns", "apparmor_userns", "max_user_namespaces", NULL } },
        { "fs_landlock", { "landlock", NULL } },
        { "net_seccomp", { "seccomp", NULL } },
};

/* Stderr (core_log, host log, policy diagnostics) goes to a file while a
 * profile loads, so that it lands in the report, and --json stays one
 * object with nothing around it. */
struct capture {
        int fd, saved;
};

static void capture_begin(struct capture *c)
{
        fflush(stderr);
        /* -v: log live instead, so that nothing (a crash report either) is
         * lost in a buffer if the load goes wrong */
        c->fd = core_log_level > STK_LOG_WARNING ? -1 : os_anon_fd("doctor");
        c->saved = c->fd >= 0 ? fcntl(2, F_DUPFD_CLOEXEC, 3) : -1;
        if (c->saved < 0 || dup2(c->fd, 2) < 0) {
                /* no capture: the messages go to stderr, which is still correct */
                closep(&c->saved);
                closep(&c->fd);
                c->saved = c->fd = -1;
        }
}

static struct json_object *capture_end(struct capture *c)
{
        struct json_object *a = json_object_new_array();
        char buf[8192];
        ssize_t n;

        if (c->fd < 0)
                return a;
        fflush(stderr);
        (void) dup2(c->saved, 2); /* fd 2 was ours a moment ago: cannot fail but for EINTR */
        closep(&c->saved);
        n = pread(c->fd, buf, sizeof(buf) - 1, 0);
        closep(&c->fd);
        buf[n > 0 ? n : 0] = '\0';
        for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                json_object_array_add(a, json_object_new_string(line));
        return a;
}

/* "see the userns, apparmor_userns checks" for the checks a module needs
 * that did not pass; NULL if they all did (or the module is unknown). */
static char *module_fix(const char *module, struct json_object *checks)
{
        char buf[512] = "";

        for (size_t i = 0; i < ELEMENTSOF(module_needs); i++) {
                if (!streq(module_needs[i].module, module))
                        continue;
                for (size_t k = 0; module_needs[i].checks[k]; k++) {
                        struct json_object *c = doctor_find(checks, module_needs[i].checks[k]);
                        if (c && doctor_status_of(c) != DOCTOR_OK)
                                snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? ", " : "",
                                         module_needs[i].checks[k]);
                }
        }
        char *r = NULL;
        if (buf[0] && asprintf(&r, "see the %s check(s) above", buf) < 0)
                return NULL;
        return r;
}

static void add_problem(struct json_object *list, const char *fix, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void add_problem(struct json_object *list, const char *fix, const char *fmt, ...)
{
        struct json_object *o = json_object_new_object();
        char what[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        json_object_object_add(o, "what", json_object_new_string(what));
        if (fix)
                json_object_object_add(o, "fix", json_object_new_string(fix));
        json_object_array_add(list, o);
}

static bool enforces(const struct core_line *l)
{
        return l->phase == STK_PHASE_PRE_EXEC || l->phase == STK_PHASE_IN_SANDBOX;
}

static struct json_object *line_json(const struct core_line *l, const struct stk_ctx *c)
{
        struct json_object *o = json_object_new_object();
        char buf[512];

        json_object_object_add(o, "phase", json_object_new_string(core_phase_name(l->phase)));
        json_object_object_add(o, "control", json_object_new_string(core_control_name(l->control)));
        json_object_object_add(o, "module", json_object_new_string(l->module));
        snprintf(buf, sizeof(buf), "%s:%u:%u", l->origin.file ? l->origin.file : "?", l->origin.line, l->origin.column);
        json_object_object_add(o, "origin", json_object_new_string(buf));
        if (!c)
                return o;
        json_object_object_add(o, "usable", json_object_new_boolean(c->probe_r >= 0));
        if (c->probe_r < 0)
                json_object_object_add(o, "error", json_object_new_string(strerror(-c->probe_r)));
        (void) core_covers_describe(c->covers, buf, sizeof(buf)); /* truncation only shortens */
        json_object_object_add(o, "covers", json_object_new_string(buf));
        return o;
}

/* Each line's probe; returns the covers of the usable enforcement lines. */
static uint32_t judge_lines(const struct core_run *run, struct json_object *checks, struct json_object *lines,
                            struct json_object *problems, struct json_object *warnings)
{
        uint32_t have = 0;

        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                const struct stk_ctx *c = &run->ctxs[i];
                json_object_array_add(lines, line_json(l, c));
                if (c->probe_r >= 0) {
                        if (enforces(l))
                                have |= c->covers;
                        continue;
                }
                _cleanup_free_ char *fix = module_fix(l->module, checks);
                char dflt[256];
                snprintf(dflt, sizeof(dflt), "run `stockade explain -v --profile %s` for the module's own message",
                         run->policy->profile);
                bool must = l->control == CORE_REQUIRED || l->control == CORE_REQUISITE;
                add_problem(must ? problems : warnings, fix ? fix : dflt,
                            "%s (%s, %s, %s:%u) cannot run here: %s%s", l->module, core_phase_name(l->phase),
                            core_control_name(l->control), l->origin.file, l->origin.line, strerror(-c->probe_r),
                            must ? "" : "; the stack goes on without it");
        }
        return have;
}

/* The settings behind cover bits, for "which setting fails". */
static void cover_settings(uint32_t bits, char *buf, size_t size)
{
        static const struct { uint32_t bits; const char *setting; } map[] = {
                { STK_COVER_WRITE, "write" },
                { STK_COVER_READ_ONLY, "read_only/git/protected paths" },
                { STK_COVER_HIDE, "hide" },
                { STK_COVER_PRIVATE_TMP, "private_tmp" },
                { STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT | STK_COVER_NET_UNIX, "network.mode" },
                { STK_COVER_PROC_OTHERS, "a sandbox (other processes' /proc)" },
        };
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (bits & map[i].bits)
                        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ", " : "", map[i].setting);
}

static void judge_run(const struct core_run *run, struct json_object *checks, struct json_object *o,
                      struct json_object *problems, struct json_object *warnings)
{
        struct json_object *lines = json_object_new_array();
        uint32_t need = core_required_covers(&run->settings.pub);
        uint32_t have = judge_lines(run, checks, lines, problems, warnings);
        uint32_t missing = need & ~have & ~run->settings.pub.best_effort;
        uint32_t accepted = need & ~have & run->settings.pub.best_effort;
        char buf[512], settings[256];

        json_object_object_add(o, "lines", lines);
        (void) core_covers_describe(need, buf, sizeof(buf));
        json_object_object_add(o, "required_covers", json_object_new_string(buf));
        (void) core_covers_describe(have, buf, sizeof(buf));
        json_object_object_add(o, "covered_here", json_object_new_string(buf));
        (void) core_covers_describe(missing, buf, sizeof(buf));
        json_object_object_add(o, "missing", json_object_new_string(buf));
        json_object_object_add(o, "sandbox", json_object_new_boolean(need != 0));
        (void) core_covers_describe(accepted, buf, sizeof(buf));
        json_object_object_add(o, "not_enforced_best_effort", json_object_new_string(buf));
        /* a gap the policy accepts is still a gap: said, never silent (issue 13 §4) */
        if (accepted)
                add_problem(warnings, "use a stack that enforces it here (the bwrap one, where user namespaces work)",
                            "not enforced here, accepted as best_effort: %s", buf);
        if (missing) {
                cover_settings(missing, settings, sizeof(settings));
                add_problem(problems, "make the failing module usable (above), add a module that enforces it, or list "
                            "it under settings.best_effort", "nothing usable here enforces %s (settings: %s)", buf, settings);
        }
}

static const char *summary_of(const struct core_run *run, bool loaded, enum doctor_status s, char *buf, size_t size)
{
        size_t used = 0;

        if (!run)
                return loaded ? "cannot run here: its stack cannot be set up" : "cannot run here: the profile does not load";
        if (s == DOCTOR_FAIL)
                return "cannot run here";
        if (core_required_covers(&run->settings.pub) == 0)
                return "can run here, with NO sandbox: the command gets all of its user's rights";
        used = (size_t) snprintf(buf, size, "can run here, enforced by");
        for (size_t i = 0; i < run->policy->n_lines && used < size; i++) {
                const struct core_line *l = &run->policy->lines[i];
                bool seen = false;
                if (!enforces(l) || run->ctxs[i].probe_r < 0)
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = enforces(&run->policy->lines[k]) && run->ctxs[k].probe_r >= 0 &&
                               streq(run->policy->lines[k].module, l->module);
                if (!seen)
                        used += (size_t) snprintf(buf + used, size - used, " %s", l->module);
        }
        return buf;
}

static struct json_object *profile_report(const struct core_open_opts *opts, const char *name, struct json_object *checks)
{
        struct json_object *o = json_object_new_object(), *problems = json_object_new_array();
        struct json_object *warnings = json_object_new_array();
        struct core_policy *p = NULL;
        struct core_run *run = NULL;
        struct capture cap;
        int r, st = 0;
        char buf[512];

        capture_begin(&cap);
        r = core_load_policy(opts, &p);
        if (r >= 0) {
                /* doctor runs nothing: no audit file is created or appended to */
                free(p->audit);
                p->audit = NULL;
                st = core_open_run(p, &run);
        }
        json_object_object_add(o, "name", json_object_new_string(name));
        snprintf(buf, sizeof(buf), "run `stockade check %s%s` and fix the file it names", opts->policy_file ? "" : "--profile ",
                 name);
        if (r < 0)
                add_problem(problems, buf,
                            "the policy does not load: %s", strerror(-r));
        else if (st != 0)
                add_problem(problems, "see the log lines below: a module is missing, refused or failed to start",
                            "the stack cannot be set up (`stockade run` would exit %d)", st);
        else
                judge_run(run, checks, o, problems, warnings);
        enum doctor_status s = json_object_array_length(problems) ? DOCTOR_FAIL :
                               json_object_array_length(warnings) ? DOCTOR_WARN : DOCTOR_OK;
        json_object_object_add(o, "status", json_object_new_string(doctor_status_name(s)));
        json_object_object_add(o, "summary", json_object_new_string(summary_of(run, r >= 0, s, buf, sizeof(buf))));
        json_object_object_add(o, "can_run", json_object_new_boolean(s != DOCTOR_FAIL));
        json_object_object_add(o, "problems", problems);
        json_object_object_add(o, "warnings", warnings);
        core_run_free(run);
        core_policy_free(p);
        json_object_object_add(o, "log", capture_end(&cap));
        return o;
}

char **doctor_profile_names(void)
{
        char **v = calloc(1, sizeof(char *));

        for (size_t i = 0; v && core_embedded_profiles[i].name; i++) {
                const char *file = core_embedded_profiles[i].name;
                size_t n = strlen(file);
                if (n > 5 && streq(file + n - 5, ".yaml"))
                        n -= 5;
                if (n >= 128)
                        continue; /* not a profile name the CLI would accept either */
                if (strv_push_take(&v, strndup(file, n)) < 0)
                        v = strv_free(v);
        }
        return v;
}

struct json_object *doctor_profiles(struct json_object *checks, const char *policy_file)
{
        struct json_object *a = json_object_new_array();
        _cleanup_strv_ char **names = doctor_profile_names();

        for (size_t i = 0; names && names[i]; i++)
                json_object_array_add(a, profile_report(&(struct core_open_opts) { .profile = names[i], .broad_workspace = CORE_BROAD_SKIP }, names[i], checks));
        if (policy_file)
                json_object_array_add(a, profile_report(&(struct core_open_opts) { .policy_file = policy_file, .broad_workspace = CORE_BROAD_SKIP }, policy_file,
                                                        checks));
        return a;
}
