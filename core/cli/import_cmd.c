/* SPDX-License-Identifier: MIT */
/*
 * `stockade import srt|codex [FILE] [--profile P] [--output FILE] [--force]
 * [--dry-run]`: a peer's sandbox settings as a user-layer file.
 *
 * sandbox-runtime's ~/.srt-settings.json (JSON) and Codex's config.toml
 * (toml.c) are read into one tree; each known key maps to a setting, to a
 * note that stockade is stricter there (tightened), or to a note that it has
 * no equivalent.  Nothing maps to something looser than the peer's setting
 * says.  The file is written only when the whole input was understood, and
 * then loaded as the user layer of the profile: a setting the system layer
 * does not let the user loosen is refused there, the file removed again,
 * and the status 241.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>

#include "cli.h"
#include "common/stk_buf.h"
#include "run/core.h"
#include "toml.h"
#include "util/util.h"

#define IMPORT_MAX_BYTES (4 * 1024 * 1024)

struct list {
        char **v;
        size_t n;
};

struct import {
        const char *peer, *source;
        struct list write, read_only, hide, allow, deny, env_deny, env_allow;
        const char *net_mode, *approval; /* NULL: not set */
        struct stk_buf mapped, tightened, none;
        bool bad;                        /* an input error was reported */
};

static void note(struct stk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct stk_buf *b, const char *fmt, ...)
{
        va_list ap;
        char line[1024];

        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        stk_buf_printf(b, "  %s\n", line);
}

static int list_add(struct list *l, const char *s)
{
        char **v;

        for (size_t i = 0; i < l->n; i++)
                if (streq(l->v[i], s))
                        return 0;
        v = realloc(l->v, (l->n + 1) * sizeof(char *));
        if (!v)
                return -ENOMEM;
        l->v = v;
        l->v[l->n] = strdup(s);
        return l->v[l->n] ? (int) ++l->n * 0 : -ENOMEM;
}

static void list_free(struct list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
}

static void import_done(struct import *im)
{
        struct list *lists[] = { &im->write, &im->read_only, &im->hide, &im->allow, &im->deny, &im->env_deny,
                                 &im->env_allow };

        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                list_free(lists[i]);
        stk_buf_done(&im->mapped);
        stk_buf_done(&im->tightened);
        stk_buf_done(&im->none);
}

static void bad_input(struct import *im, const char *key, const char *want)
{
        fprintf(stderr, "stockade: import %s: %s: %s: expected %s\n", im->peer, im->source, key, want);
        im->bad = true;
}

/* The strings of array `v` at `key`; false (reported) when it is not one. */
static bool strings_of(struct import *im, const char *key, struct json_object *v)
{
        if (!json_object_is_type(v, json_type_array))
                goto bad;
        for (size_t i = 0; i < json_object_array_length(v); i++)
                if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
                        goto bad;
        return true;
bad:
        bad_input(im, key, "an array of strings");
        return false;
}

static bool bool_of(struct import *im, const char *key, struct json_object *v, bool *ret)
{
        if (!json_object_is_type(v, json_type_boolean)) {
                bad_input(im, key, "true or false");
                return false;
        }
        *ret = json_object_get_boolean(v);
        return true;
}

/* A peer's path as a stockade one: "." and relative paths are the
 * workspace's (both peers resolve them against the working directory, the
 * workspace), ~ stays, a $ is doubled (stockade reads ${NAME}).  NULL for
 * a glob, which stockade does not take. */
static char *stockade_path(const char *p)
{
        _cleanup_(stk_buf_done) struct stk_buf b = { 0 };

        if (!*p || strpbrk(p, "*?["))
                return NULL;
        if (p[0] != '/' && p[0] != '~') {
                stk_buf_adds(&b, "${WORKSPACE}");
                while (p[0] == '.' && (p[1] == '/' || p[1] == '\0'))
                        p += p[1] ? 2 : 1;
                if (*p)
                        stk_buf_addc(&b, '/');
        }
        for (; *p; p++)
                stk_buf_adds(&b, *p == '$' ? "$$" : (char[]) { *p, 0 });
        return stk_buf_take(&b);
}

/* Each path of `v` into `l` as setting `setting`. */
static int map_paths(struct import *im, const char *key, struct json_object *v, struct list *l, const char *setting)
{
        if (!strings_of(im, key, v))
                return 0;
        for (size_t i = 0; i < json_object_array_length(v); i++) {
                const char *p = json_object_get_string(json_object_array_get_idx(v, i));
                _cleanup_free_ char *sp = stockade_path(p);
                if (!sp) {
                        note(&im->none, "%s \"%s\": a glob; stockade takes paths (left out)", key, p);
                        continue;
                }
                if (list_add(l, sp) < 0)
                        return -ENOMEM;
                note(&im->mapped, "%s \"%s\" -> %s: %s", key, p, setting, sp);
        }
        return 0;
}

/* Domains; an entry with a :port is left out (stockade's host patterns
 * have no port: taking the host alone would allow every port). */
static int map_domains(struct import *im, const char *key, struct json_object *v, struct list *l, const char *setting,
                       bool allow)
{
        if (!strings_of(im, key, v))
                return 0;
        for (size_t i = 0; i < json_object_array_length(v); i++) {
                const char *d = json_object_get_string(json_object_array_get_idx(v, i));
                const char *colon = strrchr(d, ':');
                if (colon && (d[0] != '[' || colon > strchr(d, ']'))) {
                        note(allow ? &im->tightened : &im->none, "%s \"%s\": a port-limited entry; %s", key, d,
                             allow ? "left out, so not allowed at all" : "left out");
                        continue;
                }
                if (!*d) {
                        bad_input(im, key, "host names, not an empty string");
                        return 0;
                }
                if (list_add(l, d) < 0)
                        return -ENOMEM;
                note(&im->mapped, "%s \"%s\" -> %s", key, d, setting);
        }
        return 0;
}

struct key_note {
        const char *key;
        bool tightened;  /* else: no equivalent */
        const char *why;
};

/* A key with nothing to write: its note, or false when unknown. */
static bool known_note(struct import *im, const struct key_note *notes, const char *prefix, const char *key)
{
        for (size_t i = 0; notes[i].key; i++) {
                if (!streq(notes[i].key, key))
                        continue;
                note(notes[i].tightened ? &im->tightened : &im->none, "%s%s: %s", prefix, key, notes[i].why);
                return true;
        }
        return false;
}

/* ---- sandbox-runtime ------------------------------------------------------- */

static const struct key_note srt_notes[] = {
        { "allowRead", true, "stockade has no re-allow inside a hidden path: what denyRead hides stays hidden" },
        { "allowUnixSockets", true, "unix sockets stay refused (srt ignores this on Linux too)" },
        { "allowAllUnixSockets", true, "unix sockets stay refused; best_effort: [net_unix] in a system file allows them" },
        { "allowLocalBinding", true, "binding ports stays refused outside a private network namespace" },
        { "deniedDomainReasons", false, "the proxy's refusal names the rule, with no text of the user's" },
        { "tlsTerminate", false, "the proxy does not decrypt TLS" },
        { "filterRequest", false, "the proxy does not decrypt TLS, so it has no requests to filter" },
        { "httpProxyPort", false, "net_proxy runs its own proxy; network.proxy_port in a system file names another" },
        { "socksProxyPort", false, "net_proxy runs its own proxy; network.proxy_port in a system file names another" },
        { "ignoreViolations", false, "stockade reports every refusal (the audit log, stockade log)" },
        { "enableWeakerNestedSandbox", true, "stockade does not weaken itself inside containers" },
        { "enableWeakerNetworkIsolation", true, "macOS only; nothing is weakened" },
        { "allowAppleEvents", true, "macOS only; nothing is weakened" },
        { "javaAgentJarPath", false, "the proxy needs no agent inside the JVM" },
        { "windows", false, "stockade runs on Linux and macOS" },
        { "ripgrep", false, "stockade finds protected paths itself" },
        { "mandatoryDenySearchDepth", false, "stockade finds protected paths itself" },
        { "allowPty", false, "a pseudo-terminal is always available" },
        { NULL, false, NULL },
};

static int srt_filesystem(struct import *im, struct json_object *fs)
{
        int r = 0;

        json_object_object_foreach(fs, key, v) {
                char full[128];
                snprintf(full, sizeof(full), "filesystem.%s", key);
                if (streq(key, "allowWrite"))
                        r = map_paths(im, full, v, &im->write, "write");
                else if (streq(key, "denyWrite"))
                        r = map_paths(im, full, v, &im->read_only, "read_only");
                else if (streq(key, "denyRead"))
                        r = map_paths(im, full, v, &im->hide, "hide");
                else if (!known_note(im, srt_notes, "filesystem.", key))
                        note(&im->none, "%s: unknown to this import (left out)", full);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int srt_network(struct import *im, struct json_object *net)
{
        struct json_object *allowed;
        int r = 0;

        json_object_object_foreach(net, key, v) {
                char full[128];
                snprintf(full, sizeof(full), "network.%s", key);
                if (streq(key, "allowedDomains"))
                        r = map_domains(im, full, v, &im->allow, "network.allow", true);
                else if (streq(key, "deniedDomains"))
                        r = map_domains(im, full, v, &im->deny, "network.deny", false);
                else if (!known_note(im, srt_notes, "network.", key))
                        note(&im->none, "%s: unknown to this import (left out)", full);
                if (r < 0)
                        return r;
        }
        if (json_object_object_get_ex(net, "allowedDomains", &allowed)) {
                im->net_mode = im->allow.n ? "proxy" : "off";
                note(&im->mapped, "network.allowedDomains -> network.mode: %s%s", im->net_mode,
                     im->allow.n ? " (the egress proxy applies allow and deny)" : " (no domain allowed)");
        }
        return 0;
}

static int import_srt(struct import *im, struct json_object *root)
{
        int r = 0;

        json_object_object_foreach(root, key, v) {
                if (streq(key, "filesystem") || streq(key, "network")) {
                        if (!json_object_is_type(v, json_type_object)) {
                                bad_input(im, key, "an object");
                                continue;
                        }
                        r = streq(key, "filesystem") ? srt_filesystem(im, v) : srt_network(im, v);
                } else if (!known_note(im, srt_notes, "", key))
                        note(&im->none, "%s: unknown to this import (left out)", key);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- Codex ------------------------------------------------------------------ */

static const struct key_note codex_notes[] = {
        { "exclude_tmpdir_env_var", true, "stockade gives the command a private /tmp; the host's temp dirs are not written" },
        { "exclude_slash_tmp", true, "stockade gives the command a private /tmp; the host's temp dirs are not written" },
        { "default_permissions", false, "permission profiles are not read: set sandbox_mode, or write the user file by hand" },
        { "permissions", false, "permission profiles are not read: set sandbox_mode, or write the user file by hand" },
        { "set", false, "stockade does not add variables to the command's environment" },
        { "ignore_default_excludes", true, "stockade's own list of secret variables stays" },
        { NULL, false, NULL },
};

static int codex_sandbox_mode(struct import *im, const char *mode, struct json_object *ww, const char *profile)
{
        struct json_object *net;
        bool on;

        if (streq(mode, "danger-full-access")) {
                note(&im->none, "sandbox_mode = \"danger-full-access\": not imported; run --profile full-access "
                     "when you mean it");
                return 0;
        }
        if (streq(mode, "read-only")) {
                if (streq(profile, "read-only"))
                        note(&im->mapped, "sandbox_mode = \"read-only\" -> the read-only profile");
                else
                        note(&im->none, "sandbox_mode = \"read-only\": a user file can only add writable roots; "
                             "import with --profile read-only, and run --profile read-only");
                return 0;
        }
        if (!streq(mode, "workspace-write")) {
                bad_input(im, "sandbox_mode", "read-only, workspace-write or danger-full-access");
                return 0;
        }
        if (list_add(&im->write, "${WORKSPACE}") < 0)
                return -ENOMEM;
        note(&im->mapped, "sandbox_mode = \"workspace-write\" -> write: ${WORKSPACE}");
        if (!ww)
                return 0;
        if (!json_object_is_type(ww, json_type_object)) {
                bad_input(im, "sandbox_workspace_write", "a table");
                return 0;
        }
        json_object_object_foreach(ww, key, v) {
                int r = 0;
                if (streq(key, "writable_roots"))
                        r = map_paths(im, "sandbox_workspace_write.writable_roots", v, &im->write, "write");
                else if (streq(key, "network_access")) {
                        net = v;
                        if (bool_of(im, "sandbox_workspace_write.network_access", net, &on)) {
                                im->net_mode = on ? "on" : "off";
                                note(&im->mapped, "sandbox_workspace_write.network_access = %s -> network.mode: %s%s",
                                     on ? "true" : "false", im->net_mode,
                                     on ? " (consider mode: proxy with network.allow instead)" : "");
                        }
                } else if (!known_note(im, codex_notes, "sandbox_workspace_write.", key))
                        note(&im->none, "sandbox_workspace_write.%s: unknown to this import (left out)", key);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void codex_approval(struct import *im, struct json_object *v)
{
        static const struct { const char *codex, *stockade; bool tighter; } map[] = {
                { "untrusted", "on-request", false },
                { "on-request", "on-request", false },
                { "on-failure", "on-request", true },
                { "never", "never", false },
        };
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

        for (size_t i = 0; s && i < ELEMENTSOF(map); i++) {
                if (!streq(map[i].codex, s))
                        continue;
                im->approval = map[i].stockade;
                note(map[i].tighter ? &im->tightened : &im->mapped, "approval_policy = \"%s\" -> approval: %s%s", s,
                     map[i].stockade, map[i].tighter ? " (stockade never reruns a command outside the sandbox)" : "");
                return;
        }
        bad_input(im, "approval_policy", "untrusted, on-request, on-failure or never");
}

static int codex_env(struct import *im, struct json_object *pol)
{
        int r = 0;

        if (!json_object_is_type(pol, json_type_object)) {
                bad_input(im, "shell_environment_policy", "a table");
                return 0;
        }
        json_object_object_foreach(pol, key, v) {
                if (streq(key, "exclude") && strings_of(im, "shell_environment_policy.exclude", v)) {
                        for (size_t i = 0; r == 0 && i < json_object_array_length(v); i++) {
                                const char *g = json_object_get_string(json_object_array_get_idx(v, i));
                                r = list_add(&im->env_deny, g);
                                note(&im->mapped, "shell_environment_policy.exclude \"%s\" -> env.deny", g);
                        }
                } else if (streq(key, "include_only") && strings_of(im, "shell_environment_policy.include_only", v)) {
                        r = list_add(&im->env_deny, "*");
                        for (size_t i = 0; r == 0 && i < json_object_array_length(v); i++)
                                r = list_add(&im->env_allow, json_object_get_string(json_object_array_get_idx(v, i)));
                        note(&im->mapped, "shell_environment_policy.include_only -> env.deny: \"*\" and env.allow: "
                             "the %zu patterns (the secret patterns of the profile still apply)",
                             json_object_array_length(v));
                } else if (streq(key, "inherit")) {
                        const char *s = json_object_get_string(v);
                        if (s && streq(s, "none")) {
                                r = list_add(&im->env_deny, "*");
                                note(&im->mapped, "shell_environment_policy.inherit = \"none\" -> env.deny: \"*\"");
                        } else if (s && (streq(s, "all") || streq(s, "core")))
                                note(s[0] == 'a' ? &im->mapped : &im->none,
                                     "shell_environment_policy.inherit = \"%s\"%s", s,
                                     s[0] == 'a' ? ": the profile's own env.deny still applies"
                                                 : ": no fixed core set in stockade (left out)");
                        else
                                bad_input(im, "shell_environment_policy.inherit", "all, core or none");
                } else if (!known_note(im, codex_notes, "shell_environment_policy.", key))
                        note(&im->none, "shell_environment_policy.%s: unknown to this import (left out)", key);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The sandbox keys of `t` (the file, or one of its [profiles.NAME]). */
static int codex_table(struct import *im, struct json_object *t, const char *profile, size_t *others)
{
        struct json_object *mode, *ww = NULL;
        int r = 0;

        json_object_object_get_ex(t, "sandbox_workspace_write", &ww);
        json_object_object_foreach(t, key, v) {
                if (streq(key, "sandbox_mode")) {
                        if (!json_object_is_type(v, json_type_string))
                                bad_input(im, key, "a string");
                        else
                                r = codex_sandbox_mode(im, json_object_get_string(v), ww, profile);
                } else if (streq(key, "sandbox_workspace_write")) {
                        if (!json_object_object_get_ex(t, "sandbox_mode", &mode))
                                note(&im->none, "[sandbox_workspace_write]: Codex reads it only with sandbox_mode = "
                                     "\"workspace-write\" (left out)");
                } else if (streq(key, "approval_policy"))
                        codex_approval(im, v);
                else if (streq(key, "shell_environment_policy"))
                        r = codex_env(im, v);
                else if (streq(key, "profiles") || streq(key, "profile"))
                        ;
                else if (!known_note(im, codex_notes, "", key))
                        ++*others;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The top-level keys with those of [profiles.NAME] over them (Codex's
 * rule: a profile's key replaces the file's); a new reference. */
static struct json_object *codex_effective(struct json_object *root, struct json_object *chosen)
{
        struct json_object *merged = json_object_new_object();

        if (!merged)
                return NULL;
        json_object_object_foreach(root, key, v)
                if (!chosen || !json_object_object_get_ex(chosen, key, NULL))
                        json_object_object_add(merged, key, json_object_get(v));
        if (chosen) {
                json_object_object_foreach(chosen, pkey, pv)
                        json_object_object_add(merged, pkey, json_object_get(pv));
        }
        return merged;
}

static int import_codex(struct import *im, struct json_object *root, const char *codex_profile, const char *profile)
{
        struct json_object *profiles, *chosen = NULL, *named, *merged;
        size_t others = 0;
        const char *name = codex_profile;
        int r;

        if (!name && json_object_object_get_ex(root, "profile", &named) && json_object_is_type(named, json_type_string))
                name = json_object_get_string(named);
        if (name && (!json_object_object_get_ex(root, "profiles", &profiles) ||
                     !json_object_object_get_ex(profiles, name, &chosen) ||
                     !json_object_is_type(chosen, json_type_object))) {
                fprintf(stderr, "stockade: import codex: %s: no table [profiles.%s]\n", im->source, name);
                im->bad = true;
                return 0;
        }
        if (name)
                note(&im->mapped, "[profiles.%s]: its keys over the top-level ones", name);
        merged = codex_effective(root, chosen);
        if (!merged)
                return -ENOMEM;
        r = codex_table(im, merged, profile, &others);
        json_object_put(merged);
        if (others)
                note(&im->none, "%zu other keys (model, mcp_servers, ...): not sandbox settings, not read", others);
        return r;
}

/* ---- the file ----------------------------------------------------------------- */

static void yaml_string(struct stk_buf *b, const char *s)
{
        stk_buf_addc(b, '"');
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        stk_buf_addc(b, '\\');
                if ((unsigned char) *s < 0x20)
                        stk_buf_printf(b, "\\x%02x", (unsigned char) *s);
                else
                        stk_buf_addc(b, *s);
        }
        stk_buf_addc(b, '"');
}

static void yaml_list(struct stk_buf *b, const char *indent, const char *key, const struct list *l)
{
        if (!l->n)
                return;
        stk_buf_printf(b, "%s%s: [", indent, key);
        for (size_t i = 0; i < l->n; i++) {
                stk_buf_adds(b, i ? ", " : "");
                yaml_string(b, l->v[i]);
        }
        stk_buf_adds(b, "]\n");
}

static char *render(const struct import *im)
{
        struct stk_buf b = { 0 };
        char date[32];
        time_t now = time(NULL);
        struct tm tm;

        if (!gmtime_r(&now, &tm) || !strftime(date, sizeof(date), "%Y-%m-%d", &tm))
                snprintf(date, sizeof(date), "?");
        stk_buf_printf(&b, "# Written by `stockade import %s` from %s on %s.\n", im->peer, im->source, date);
        stk_buf_adds(&b, "# Lists add to the profile's; see stockade.yaml(5).\nstockade: 1\nsettings:\n");
        yaml_list(&b, "  ", "write", &im->write);
        yaml_list(&b, "  ", "read_only", &im->read_only);
        yaml_list(&b, "  ", "hide", &im->hide);
        if (im->net_mode || im->allow.n || im->deny.n) {
                stk_buf_adds(&b, "  network:\n");
                if (im->net_mode)
                        stk_buf_printf(&b, "    mode: %s\n", im->net_mode);
                yaml_list(&b, "    ", "allow", &im->allow);
                yaml_list(&b, "    ", "deny", &im->deny);
        }
        if (im->approval)
                stk_buf_printf(&b, "  approval: %s\n", im->approval);
        if (im->env_deny.n || im->env_allow.n) {
                stk_buf_adds(&b, "  env:\n");
                yaml_list(&b, "    ", "deny", &im->env_deny);
                yaml_list(&b, "    ", "allow", &im->env_allow);
        }
        if (!im->write.n && !im->read_only.n && !im->hide.n && !im->net_mode && !im->allow.n && !im->deny.n &&
            !im->approval && !im->env_deny.n && !im->env_allow.n)
                stk_buf_adds(&b, "  {}\n");
        return stk_buf_take(&b);
}

static void print_report(const struct import *im, const char *target, bool dry_run)
{
        const struct { const char *title; const struct stk_buf *b; } parts[] = {
                { "mapped", &im->mapped }, { "tightened (stockade is stricter here)", &im->tightened },
                { "no equivalent", &im->none },
        };

        printf("stockade import %s: %s -> %s%s\n", im->peer, im->source, target, dry_run ? " (dry run: not written)" : "");
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                if (parts[i].b->len)
                        printf("%s:\n%s", parts[i].title, parts[i].b->s);
}

static int read_input(const char *path, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        _cleanup_(stk_buf_done) struct stk_buf b = { .max = IMPORT_MAX_BYTES };
        char chunk[65536];
        ssize_t n;

        if (fd < 0)
                return -errno;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0)
                stk_buf_add(&b, chunk, (size_t) n);
        if (n < 0)
                return -errno;
        if (b.truncated)
                return -EFBIG;
        *ret_len = b.len;
        *ret = stk_buf_take(&b);
        return *ret ? 0 : -ENOMEM;
}

static int parse_input(struct import *im, const char *text, size_t len, struct json_object **ret)
{
        char err[512];

        if (streq(im->peer, "codex")) {
                if (toml_parse(text, len, im->source, ret, err, sizeof(err)) == 0)
                        return 0;
                fprintf(stderr, "stockade: import codex: %s\n", err);
                return -1;
        }
        _cleanup_(cli_tokener_freep) struct json_tokener *tok = json_tokener_new();
        if (!tok)
                return -1;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT); /* no trailing commas, no single quotes */
        *ret = json_tokener_parse_ex(tok, text, (int) len);
        if (*ret && json_tokener_get_parse_end(tok) == len && json_object_is_type(*ret, json_type_object))
                return 0;
        {
                size_t at = json_tokener_get_parse_end(tok), line = 1, col = 1;
                for (size_t i = 0; i < at && i < len; i++, col++)
                        if (text[i] == '\n') {
                                line++;
                                col = 0;
                        }
                fprintf(stderr, "stockade: import srt: %s:%zu:%zu: %s\n", im->source, line, col,
                        *ret ? "expected one JSON object"
                        : json_tokener_get_error(tok) == json_tokener_continue ? "the text ends inside the JSON"
                        : json_tokener_error_desc(json_tokener_get_error(tok)));
        }
        json_object_put(*ret);
        return -1;
}

/* ~/.srt-settings.json, $CODEX_HOME/config.toml (~/.codex/config.toml). */
static char *default_source(const char *peer)
{
        const char *home = getenv("HOME"), *codex_home = getenv("CODEX_HOME");
        char *p = NULL;

        if (streq(peer, "codex") && codex_home && *codex_home)
                return asprintf(&p, "%s/config.toml", codex_home) < 0 ? NULL : p;
        if (!home || !*home)
                return NULL;
        if (asprintf(&p, streq(peer, "srt") ? "%s/.srt-settings.json" : "%s/.codex/config.toml", home) < 0)
                return NULL;
        return p;
}

/* mkdir -p with `mode` for what it makes. */
static int make_dirs(const char *dir, mode_t mode)
{
        _cleanup_free_ char *copy = strdup(dir);

        if (!copy)
                return -ENOMEM;
        for (char *s = copy + 1;; s++) {
                if (*s != '/' && *s)
                        continue;
                char c = *s;
                *s = '\0';
                if (mkdir(copy, mode) < 0 && errno != EEXIST)
                        return -errno;
                if (!(*s = c))
                        return 0;
        }
}

/* $XDG_CONFIG_HOME/stockade/P.yaml (or ~/.config/...), its directory made
 * when `make` says so. */
static char *user_layer_file(const char *profile, bool make)
{
        const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        _cleanup_free_ char *dir = NULL;
        char *p = NULL;

        if (x && *x)
                dir = asprintf(&p, "%s/stockade", x) < 0 ? NULL : p;
        else if (home && *home)
                dir = asprintf(&p, "%s/.config/stockade", home) < 0 ? NULL : p;
        if (!dir)
                return NULL;
        int r = make ? make_dirs(dir, 0700) : 0;
        if (r < 0) {
                fprintf(stderr, "stockade: import: cannot make %s: %s\n", dir, strerror(-r));
                return NULL;
        }
        return asprintf(&p, "%s/%s.yaml", dir, profile) < 0 ? NULL : p;
}

/* The text in a new file beside `target`, then in its place: link() when it
 * must not replace one (atomic, EEXIST), rename() with --force. */
static int place(const char *target, const char *text, bool force)
{
        _cleanup_free_ char *tmp = NULL;
        int fd, r = 0;
        size_t len = strlen(text);

        if (asprintf(&tmp, "%s.import.XXXXXX", target) < 0)
                return -ENOMEM;
        fd = mkstemp(tmp);
        if (fd < 0)
                return -errno;
        if (write(fd, text, len) != (ssize_t) len || fchmod(fd, 0644) < 0 || fsync(fd) < 0)
                r = -errno ? -errno : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && (force ? rename(tmp, target) : link(tmp, target)) < 0)
                r = -errno;
        (void) unlink(tmp); /* after link(); gone already after rename() */
        return r;
}

/* Load the profile with the new user file, in an empty workspace of its own
 * (the check is about the file, not about where import was run). */
static int check_as_user_layer(const char *profile)
{
        char ws[] = "/tmp/stockade-import.XXXXXX";
        struct core_policy *p = NULL;
        int r;

        if (!mkdtemp(ws))
                return -errno;
        r = core_load_policy(&(struct core_open_opts) { .profile = profile, .workspace = ws }, &p);
        core_policy_free(p);
        (void) rmdir(ws);
        return r;
}

static void usage_import(FILE *f)
{
        fprintf(f,
                "usage: stockade import srt|codex [FILE] [--profile P] [--output FILE] [--force] [--dry-run]\n"
                "                                 [--codex-profile NAME]\n"
                "  srt     sandbox-runtime's settings (default ~/.srt-settings.json)\n"
                "  codex   Codex's config.toml (default $CODEX_HOME/config.toml, ~/.codex/config.toml)\n"
                "  --profile P        the user layer of profile P (default: default)\n"
                "  --output FILE      write FILE instead (not checked as a user layer)\n"
                "  --force            replace an existing file\n"
                "  --dry-run          print the file and the report, write nothing\n"
                "  --codex-profile N  Codex's [profiles.N] over its top-level keys\n");
}

struct import_opts {
        const char *peer, *source, *profile, *output, *codex_profile;
        bool force, dry_run, profile_given;
};

static int parse_import_opts(int argc, char **argv, struct import_opts *o)
{
        static const struct option options[] = {
                { "profile", required_argument, NULL, 'p' }, { "output", required_argument, NULL, 'o' },
                { "force", no_argument, NULL, 'f' },         { "dry-run", no_argument, NULL, 'n' },
                { "codex-profile", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "p:o:fnc:h", options, NULL)) != -1) {
                switch (c) {
                case 'p': o->profile = optarg; o->profile_given = true; break;
                case 'o': o->output = optarg; break;
                case 'f': o->force = true; break;
                case 'n': o->dry_run = true; break;
                case 'c': o->codex_profile = optarg; break;
                case 'h': usage_import(stdout); return 0;
                default: usage_import(stderr); return STK_EXIT_USAGE;
                }
        }
        if (optind >= argc || (!streq(argv[optind], "srt") && !streq(argv[optind], "codex")) || argc - optind > 2 ||
            (o->codex_profile && !streq(argv[optind], "codex")) || strpbrk(o->profile, "/.") ) {
                usage_import(stderr);
                return STK_EXIT_USAGE;
        }
        o->peer = argv[optind];
        o->source = optind + 1 < argc ? argv[optind + 1] : NULL;
        return -1; /* go on */
}

static int run_import(struct import *im, struct import_opts *o)
{
        _cleanup_free_ char *text = NULL, *yaml = NULL, *target = NULL;
        struct json_object *root = NULL;
        size_t len = 0;
        int r = read_input(im->source, &text, &len);

        if (r < 0) {
                fprintf(stderr, "stockade: import %s: cannot read %s: %s\n", im->peer, im->source,
                        r == -EFBIG ? "larger than 4 MiB" : strerror(-r));
                return 1;
        }
        if (parse_input(im, text, len, &root) < 0)
                return STK_EXIT_POLICY;
        r = streq(im->peer, "srt") ? import_srt(im, root) : import_codex(im, root, o->codex_profile, o->profile);
        json_object_put(root);
        if (r < 0 || im->bad) {
                if (r < 0)
                        fprintf(stderr, "stockade: import: %s\n", strerror(-r));
                fprintf(stderr, "stockade: import %s: nothing written\n", im->peer);
                return STK_EXIT_POLICY;
        }
        if (im->net_mode && streq(im->net_mode, "proxy") && !o->profile_given && streq(o->profile, "default")) {
                /* default has no egress proxy: allowed domains would reach nothing */
                o->profile = "proxy";
                note(&im->mapped, "network.mode: proxy needs the egress proxy: the proxy profile's user layer "
                     "(run stockade run --profile proxy)");
        }
        yaml = render(im);
        target = o->output ? strdup(o->output) : user_layer_file(o->profile, !o->dry_run);
        if (!yaml || !target)
                return 1;
        print_report(im, target, o->dry_run);
        if (o->dry_run) {
                printf("---\n%s", yaml);
                return 0;
        }
        r = place(target, yaml, o->force);
        if (r < 0) {
                fprintf(stderr, "stockade: import: cannot write %s: %s\n", target,
                        r == -EEXIST ? "it exists (--force replaces it, --output FILE writes elsewhere)" : strerror(-r));
                return 1;
        }
        if (!o->output && check_as_user_layer(o->profile) < 0) {
                (void) unlink(target);
                fprintf(stderr, "stockade: import: the profile %s refuses the imported file (above); removed %s\n",
                        o->profile, target);
                return STK_EXIT_POLICY;
        }
        return 0;
}

int cli_import(int argc, char **argv)
{
        struct import_opts o = { .profile = "default" };
        _cleanup_free_ char *source = NULL;
        struct import im = { 0 };
        int r = parse_import_opts(argc, argv, &o);

        if (r >= 0)
                return r;
        source = o.source ? strdup(o.source) : default_source(o.peer);
        if (!source) {
                fprintf(stderr, "stockade: import %s: no FILE and no HOME to find it in\n", o.peer);
                return STK_EXIT_USAGE;
        }
        im = (struct import) { .peer = o.peer, .source = source };
        r = run_import(&im, &o);
        import_done(&im);
        return r;
}
