/* SPDX-License-Identifier: MIT */
/*
 * An SBPL reader strict enough that a typo in fs_seatbelt's profile fails
 * here, on Linux, rather than on a user's Mac: sandbox-exec stops at an
 * unknown operation or filter ("unbound variable"), at a stray parenthesis,
 * at an unterminated string.  It knows only the subset the module emits,
 * and each operation and filter name on its lists is one Apple's own
 * profiles use (the .sb files of /System/Library/Sandbox/Profiles, Chromium's and
 * Codex's seatbelt profiles).  Its own tests feed it broken profiles.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_check.h"
#include "unit.h"

enum tok_kind { T_END, T_OPEN, T_CLOSE, T_STRING, T_REGEX, T_ATOM };

struct tok {
        enum tok_kind kind;
        char text[512];
};

struct rd {
        const char *s;
        size_t i;
        unsigned line;
        struct tok t;
        const char *const *params;
        size_t n_params;
        bool used[256];
        char *why;
        size_t why_size;
        int err;
};

static const char *const operations[] = {
        "default", "file*", "file-read*", "file-read-data", "file-read-metadata", "file-read-xattr",
        "file-write*", "file-write-data", "file-write-create", "file-write-unlink", "file-write-mode",
        "file-write-owner", "file-write-times", "file-write-flags", "file-write-setugid", "file-write-xattr",
        "file-ioctl", "file-link", "file-clone", "file-map-executable", "file-revoke",
        "process*", "process-exec", "process-exec*", "process-fork", "process-info*", "signal",
        "sysctl*", "sysctl-read", "sysctl-write", "mach*", "mach-lookup", "mach-host*", "mach-register",
        "ipc-posix-sem", "ipc-posix-shm", "network*", "network-outbound", "network-inbound", "network-bind",
        "system-socket", "pseudo-tty", "user-preference-read", "iokit-open",
        NULL,
};

static const char *const targets[] = { "self", "same-sandbox", "children", NULL };
static const char *const protocols[] = { "ip", "ip4", "ip6", "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6",
                                         "unix-socket", NULL };

static bool in(const char *w, const char *const *list)
{
        for (; *list; list++)
                if (strcmp(w, *list) == 0)
                        return true;
        return false;
}

static void __attribute__((format(printf, 2, 3))) fail(struct rd *r, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (r->err)
                return;
        r->err = -1;
        n = snprintf(r->why, r->why_size, "line %u: ", r->line);
        va_start(ap, fmt);
        if (n >= 0 && (size_t) n < r->why_size)
                vsnprintf(r->why + n, r->why_size - (size_t) n, fmt, ap);
        va_end(ap);
        r->t.kind = T_END; /* stop reading */
}

static void skip_space(struct rd *r)
{
        for (;;) {
                char c = r->s[r->i];
                if (c == '\n')
                        r->line++;
                if (c == ' ' || c == '\t' || c == '\n')
                        r->i++;
                else if (c == ';')
                        while (r->s[r->i] && r->s[r->i] != '\n')
                                r->i++;
                else
                        return;
        }
}

/* A "..." literal (after the quote); SBPL strings take \" and \\ escapes. */
static void read_string(struct rd *r, enum tok_kind kind)
{
        size_t n = 0;

        for (;;) {
                char c = r->s[r->i++];
                if (c == '\0' || c == '\n') {
                        fail(r, "unterminated string");
                        return;
                }
                if (c == '"')
                        break;
                if (c == '\\') {
                        c = r->s[r->i++];
                        if (c != '"' && c != '\\') {
                                fail(r, "unknown escape \\%c in a string", c);
                                return;
                        }
                }
                if (n + 1 >= sizeof(r->t.text)) {
                        fail(r, "string too long");
                        return;
                }
                r->t.text[n++] = c;
        }
        r->t.text[n] = '\0';
        r->t.kind = kind;
}

static void next(struct rd *r)
{
        char c;
        size_t n = 0;

        if (r->err)
                return;
        skip_space(r);
        c = r->s[r->i];
        r->t.text[0] = '\0';
        if (c == '\0') {
                r->t.kind = T_END;
                snprintf(r->t.text, sizeof(r->t.text), "the end");
        } else if (c == '(' || c == ')') {
                r->i++;
                r->t.kind = c == '(' ? T_OPEN : T_CLOSE;
                snprintf(r->t.text, sizeof(r->t.text), "%c", c);
        } else if (c == '"') {
                r->i++;
                read_string(r, T_STRING);
        } else if (c == '#' && r->s[r->i + 1] == '"') {
                r->i += 2;
                read_string(r, T_REGEX);
        } else if (strchr("#'`,[]{}\\|", c)) {
                fail(r, "unexpected '%c'", c);
        } else {
                while (r->s[r->i] && !strchr(" \t\n();\"", r->s[r->i]) && n + 1 < sizeof(r->t.text))
                        r->t.text[n++] = r->s[r->i++];
                r->t.text[n] = '\0';
                r->t.kind = T_ATOM;
        }
}

static void expect(struct rd *r, enum tok_kind k, const char *what)
{
        if (r->t.kind != k)
                fail(r, "expected %s, found \"%s\"", what, r->t.text);
        else
                next(r);
}

static void param_ref(struct rd *r)
{
        size_t i;

        next(r); /* "param" */
        if (r->t.kind != T_STRING) {
                fail(r, "param needs a name string");
                return;
        }
        for (i = 0; i < r->n_params && strcmp(r->params[i], r->t.text) != 0; i++)
                ;
        if (i == r->n_params) {
                fail(r, "(param \"%s\") is not given with -D", r->t.text);
                return;
        }
        r->used[i] = true;
        next(r);
        expect(r, T_CLOSE, "')' after param");
}

/* A path: "/absolute" or (param "NAME"). */
static void path_value(struct rd *r)
{
        if (r->t.kind == T_STRING && r->t.text[0] == '/') {
                next(r);
        } else if (r->t.kind == T_OPEN) {
                next(r);
                if (r->t.kind != T_ATOM || strcmp(r->t.text, "param") != 0)
                        fail(r, "a path is a string or (param ...), not (%s ...)", r->t.text);
                else
                        param_ref(r);
        } else {
                fail(r, "expected a path, found \"%s\"", r->t.text);
        }
}

/* "localhost:PORT" or "*:*" and the like. */
static void address(struct rd *r)
{
        const char *colon = strchr(r->t.text, ':');
        char *end;
        long port;

        if (r->t.kind != T_STRING || !colon) {
                fail(r, "expected an address \"host:port\"");
                return;
        }
        if (strncmp(r->t.text, "localhost:", 10) != 0 && strncmp(r->t.text, "*:", 2) != 0) {
                fail(r, "Seatbelt addresses name localhost or *, not \"%s\"", r->t.text);
                return;
        }
        port = strtol(colon + 1, &end, 10);
        if (strcmp(colon + 1, "*") != 0 && (*end || end == colon + 1 || port < 1 || port > 65535)) {
                fail(r, "bad port in \"%s\"", r->t.text);
                return;
        }
        next(r);
}

static void filter(struct rd *r);

static void filter_args(struct rd *r, const char *name)
{
        if (!strcmp(name, "require-all") || !strcmp(name, "require-any")) {
                if (r->t.kind != T_OPEN)
                        fail(r, "%s needs filters", name);
                while (r->t.kind == T_OPEN)
                        filter(r);
        } else if (!strcmp(name, "require-not")) {
                filter(r);
        } else if (!strcmp(name, "literal") || !strcmp(name, "subpath") || !strcmp(name, "prefix")) {
                path_value(r);
        } else if (!strcmp(name, "regex")) {
                if (r->t.kind != T_REGEX || r->t.text[0] != '^')
                        fail(r, "regex needs a #\"^...\" literal");
                next(r);
        } else if (!strcmp(name, "global-name") || !strcmp(name, "sysctl-name") ||
                   !strcmp(name, "sysctl-name-prefix")) {
                if (r->t.kind != T_STRING || !r->t.text[0])
                        fail(r, "%s needs a string", name);
                next(r);
        } else if (!strcmp(name, "target")) {
                if (r->t.kind != T_ATOM || !in(r->t.text, targets))
                        fail(r, "unknown target \"%s\"", r->t.text);
                next(r);
        } else if (!strcmp(name, "remote") || !strcmp(name, "local")) {
                if (r->t.kind != T_ATOM || !in(r->t.text, protocols))
                        fail(r, "unknown protocol \"%s\"", r->t.text);
                next(r);
                if (r->t.kind == T_STRING)
                        address(r);
        } else {
                fail(r, "unknown filter \"%s\"", name);
        }
}

static void filter(struct rd *r)
{
        char name[sizeof(r->t.text)];

        expect(r, T_OPEN, "'(' of a filter");
        if (r->t.kind != T_ATOM) {
                fail(r, "a filter starts with its name");
                return;
        }
        memcpy(name, r->t.text, sizeof(name));
        next(r);
        filter_args(r, name);
        expect(r, T_CLOSE, "')' closing a filter");
}

/* (allow|deny OPERATION... FILTER...) after its '('. */
static void rule(struct rd *r, bool *saw_default)
{
        bool deny = strcmp(r->t.text, "deny") == 0;
        unsigned n_ops = 0;

        if (r->t.kind != T_ATOM || (!deny && strcmp(r->t.text, "allow") != 0)) {
                fail(r, "a rule starts with allow or deny, not \"%s\"", r->t.text);
                return;
        }
        next(r);
        for (; r->t.kind == T_ATOM; next(r), n_ops++) {
                if (!in(r->t.text, operations)) {
                        fail(r, "unknown operation \"%s\"", r->t.text);
                        return;
                }
                if (!strcmp(r->t.text, "default") && (!deny || n_ops || *saw_default)) {
                        fail(r, "default belongs in one (deny default) only");
                        return;
                }
                *saw_default |= !strcmp(r->t.text, "default");
        }
        if (!n_ops)
                fail(r, "a rule needs an operation");
        if (!deny && !*saw_default)
                fail(r, "an allow before (deny default)");
        while (r->t.kind == T_OPEN)
                filter(r);
        expect(r, T_CLOSE, "')' closing a rule");
}

static void version(struct rd *r)
{
        expect(r, T_OPEN, "(version 1) first");
        if (r->t.kind != T_ATOM || strcmp(r->t.text, "version") != 0) {
                fail(r, "(version 1) must come first");
                return;
        }
        next(r);
        if (r->t.kind != T_ATOM || strcmp(r->t.text, "1") != 0)
                fail(r, "only (version 1) exists");
        next(r);
        expect(r, T_CLOSE, "')' after (version 1");
}

int sbpl_check(const char *text, const char *const *params, size_t n_params, char *why, size_t why_size)
{
        struct rd r = { .s = text, .line = 1, .params = params, .n_params = n_params, .why = why,
                        .why_size = why_size };
        bool saw_default = false;

        why[0] = '\0';
        if (n_params > sizeof(r.used)) {
                snprintf(why, why_size, "too many params for the checker");
                return -1;
        }
        next(&r);
        version(&r);
        while (!r.err && r.t.kind != T_END) {
                expect(&r, T_OPEN, "'(' of a rule");
                rule(&r, &saw_default);
        }
        if (!r.err && !saw_default)
                fail(&r, "no (deny default)");
        for (size_t i = 0; !r.err && i < n_params; i++)
                if (!r.used[i])
                        fail(&r, "-D %s is given but the profile never reads it", params[i]);
        return r.err;
}

/* ---- the checker's own tests ----------------------------------------------- */

static const char *const P[] = { "WRITE_0" };

/* 0 or -1; with SB_VERBOSE set, the reason for each rejection. */
static int check(const char *text)
{
        char why[256];
        int r = sbpl_check(text, P, 1, why, sizeof(why));

        if (r < 0 && getenv("SB_VERBOSE"))
                fprintf(stderr, "  (sbpl_check: %s)\n", why);
        return r;
}

#define HEAD "(version 1)\n(deny default)\n"
#define USE "(allow file-write* (subpath (param \"WRITE_0\")))\n"

static void test_accepts_good(void)
{
        CU_ASSERT_EQUAL(check(HEAD USE "; a comment with ( and \"\n(allow signal (target same-sandbox))\n"
                              "(allow file-write-data file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n"
                              "(allow network-outbound (remote tcp \"localhost:3128\"))\n"
                              "(deny file-write* (require-all (subpath \"/x\") (require-not (literal \"/x\"))))\n"), 0);
}

static void test_rejects_typos(void)
{
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-wirte*)\n"), -1);             /* operation */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* (subpth \"/x\"))\n"), -1); /* filter */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow signal (target same-sandbx))\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD USE "(alow file-read*)\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD "(allow file-write* (subpath (param \"WRITE_1\")))\n"), -1); /* not given */
        CU_ASSERT_EQUAL(check(HEAD "(allow file-read*)\n"), -1); /* WRITE_0 given, never read */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow network-outbound (remote tcp \"10.0.0.1:80\"))\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD USE "(allow network-outbound (remote tcp \"localhost:0\"))\n"), -1);
}

static void test_rejects_structure(void)
{
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read*\n"), -1);          /* unbalanced */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read*))\n"), -1);        /* one too many */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* (literal \"/x))\n"), -1); /* unterminated */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* (literal \"/x\\n\"))\n"), -1);
        CU_ASSERT_EQUAL(check("(deny default)\n(version 1)\n" USE), -1);     /* version first */
        CU_ASSERT_EQUAL(check("(version 2)\n(deny default)\n" USE), -1);
        CU_ASSERT_EQUAL(check("(version 1)\n" USE "(deny default)\n"), -1);  /* allow before deny default */
        CU_ASSERT_EQUAL(check("(version 1)\n" USE), -1);                     /* no deny default */
        CU_ASSERT_EQUAL(check(HEAD USE "(deny default)\n"), -1);             /* twice */
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* (require-not))\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* (literal \"relative\"))\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD USE "(allow file-read* '(literal \"/x\"))\n"), -1);
        CU_ASSERT_EQUAL(check(HEAD USE "(allow)\n"), -1);
}

UNIT_SUITE(fs_seatbelt_sbpl_checker,
           UNIT_TEST(test_accepts_good),
           UNIT_TEST(test_rejects_typos),
           UNIT_TEST(test_rejects_structure));
