/* SPDX-License-Identifier: MIT */
/*
 * The project layer may only tighten (stockade.yaml(5), "Layers"), for
 * every setting there is: the cases are driven by the list of settings
 * (enum core_key, through core_key_name), so a setting added without a
 * case here fails the test, and a setting's check that goes missing fails
 * its case (issue 20: "the project layer may lower git:" passed a mutation
 * audit, the hand-picked fixtures of test_policy.c covering other keys).
 *
 * For each key that can be loosened: a project file that loosens it is
 * refused with "may only tighten" naming the key, and the same file loads
 * once the floor grants that key (so the refusal was about that key and no
 * other).  For an ordered setting (git, network.mode, approval, the two
 * booleans) every pair of values is tried, generated from the names.
 * For a key whose additions only tighten, a project addition loads.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "util/util.h"
#include "unit.h"

/* A builtin floor, a workspace for the project file, $HOME and $TMPDIR. */
struct floor_fx {
        char root[PATH_MAX], builtin[PATH_MAX + 16], ws[PATH_MAX + 16], tmp[PATH_MAX + 16];
        char *diag;
        size_t diag_len;
};

static void put(const char *dir, const char *name, const char *text)
{
        char path[PATH_MAX * 2];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_FATAL(fputs(text, f) >= 0);
        CU_ASSERT_FATAL(fclose(f) == 0);
}

static void floor_setup(struct floor_fx *fx)
{
        char tmpl[] = "/tmp/stk-floor-XXXXXX";

        memset(fx, 0, sizeof(*fx));
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
        CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tmpl, fx->root));
        snprintf(fx->builtin, sizeof(fx->builtin), "%s/builtin", fx->root);
        snprintf(fx->ws, sizeof(fx->ws), "%s/ws", fx->root);
        snprintf(fx->tmp, sizeof(fx->tmp), "%s/tmp", fx->root);
        CU_ASSERT_FATAL(mkdir(fx->builtin, 0755) == 0 && mkdir(fx->ws, 0755) == 0 && mkdir(fx->tmp, 0755) == 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void floor_teardown(struct floor_fx *fx)
{
        CU_ASSERT(nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
        free(fx->diag);
}

/* Load the builtin floor and the project file; diagnostics into fx->diag. */
static int floor_load(struct floor_fx *fx)
{
        struct core_policy_sources src = {
                .profile = "default", .builtin_dir = fx->builtin, .workspace = fx->ws,
                .cwd = fx->ws, .home = fx->root, .tmpdir = fx->tmp,
        };
        struct core_policy *p = NULL;
        int r;

        free(fx->diag);
        fx->diag = NULL;
        core_diag_stream = open_memstream(&fx->diag, &fx->diag_len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(core_diag_stream);
        r = core_policy_load(&src, &p);
        fclose(core_diag_stream);
        core_diag_stream = NULL;
        core_policy_free(p);
        return r;
}

/* The floor's settings, one value replaced: `key` set to `value` (both
 * NULL: as is).  Tight everywhere, so that every loosening is one. */
static void write_floor(struct floor_fx *fx, const char *grant, const char *key, const char *value)
{
        static const char *const keys[] = { "git", "private_tmp", "protect_defaults", "approval", "network.mode" };
        static const char *const tight[] = { "whole", "true", "true", "never", "off" };
        const char *v[ELEMENTSOF(keys)];
        char text[2048];

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                v[i] = key && streq(key, keys[i]) ? value : tight[i];
        snprintf(text, sizeof(text),
                 "stockade: 1\noverridable: { project: [%s] }\nsettings:\n"
                 "  workspace: ${CWD}\n  write: [\"${WORKSPACE}\"]\n"
                 "  git: %s\n  private_tmp: %s\n  protect_defaults: %s\n  approval: %s\n"
                 "  network: { mode: %s }\n"
                 "stack:\n  - { phase: pre-exec, control: required, module: fs_bwrap }\n",
                 grant ? grant : "", v[0], v[1], v[2], v[3], v[4]);
        put(fx->builtin, "default.yaml", text);
}

/* The project file: `body` after the version line. */
static void write_project(struct floor_fx *fx, const char *body)
{
        char text[1024];

        snprintf(text, sizeof(text), "stockade: 1\n%s", body);
        put(fx->ws, ".stockade.yaml", text);
}

/* The refusal names the project file, says "may only tighten" and names
 * the key a floor would grant. */
static bool refused_for(const struct floor_fx *fx, const char *key)
{
        char grant[128];

        snprintf(grant, sizeof(grant), "overridable: { project: [%s] }", key);
        return fx->diag && strstr(fx->diag, ".stockade.yaml:") &&
               strstr(fx->diag, "error: the project layer may only tighten") && strstr(fx->diag, grant);
}

/* One loosening: refused on the floor as is, accepted once the key is
 * granted (floor_key/floor_value: the floor's own value, if not tight). */
static void check_loosening(const char *key, const char *floor_key, const char *floor_value, const char *body)
{
        struct floor_fx fx;
        int r;

        floor_setup(&fx);
        write_floor(&fx, NULL, floor_key, floor_value);
        write_project(&fx, body);
        r = floor_load(&fx);
        CHECK(r == -EINVAL && refused_for(&fx, key), "%s: a project file\n%sloaded over a floor of %s=%s "
              "(%d) without the refusal \"may only tighten ... [%s]\": %s", key, body,
              floor_key ? floor_key : "-", floor_value ? floor_value : "-", r, key, fx.diag ? fx.diag : "");
        write_floor(&fx, key, floor_key, floor_value);
        r = floor_load(&fx);
        CHECK(r == 0, "%s: granted, the project file\n%sstill fails (%d): %s", key, body, r, fx.diag ? fx.diag : "");
        floor_teardown(&fx);
}

/* A project file that must load on the tight floor, ungranted. */
static void check_accepted(const char *key, const char *floor_key, const char *floor_value, const char *body)
{
        struct floor_fx fx;
        int r;

        floor_setup(&fx);
        write_floor(&fx, NULL, floor_key, floor_value);
        write_project(&fx, body);
        r = floor_load(&fx);
        CHECK(r == 0, "%s: the tightening project file\n%swas refused (%d): %s", key, body, r, fx.diag ? fx.diag : "");
        floor_teardown(&fx);
}

/* ---- ordered settings: every pair of values ---------------------------- */

/* Values from the tightest to the loosest, and how a project sets one. */
struct ordered {
        const char *key;
        const char *values[4]; /* NULL-terminated */
        const char *pre, *post; /* the project file around the value */
};

static void ordered_values(enum core_key k, struct ordered *o)
{
        int n = 0;

        *o = (struct ordered) { .key = core_key_name(k) };
        switch (k) {
        case CORE_KEY_GIT: /* the enum counts up in protection */
                for (int g = CORE_GIT_WHOLE; g >= CORE_GIT_OFF; g--)
                        o->values[n++] = core_git_name((enum core_git_protect) g);
                o->pre = "settings:\n  git: ", o->post = "\n";
                break;
        case CORE_KEY_NET_MODE: /* the enum counts up in reach */
                for (int m = STK_NET_OFF; m <= STK_NET_ON; m++)
                        o->values[n++] = core_network_name((enum stk_network) m);
                o->pre = "settings:\n  network: { mode: ", o->post = " }\n";
                break;
        case CORE_KEY_APPROVAL:
                o->values[0] = "never", o->values[1] = "on-request";
                o->pre = "settings:\n  approval: ", o->post = "\n";
                break;
        case CORE_KEY_PRIVATE_TMP:
                o->values[0] = "true", o->values[1] = "false";
                o->pre = "settings:\n  private_tmp: ", o->post = "\n";
                break;
        case CORE_KEY_PROTECT_DEFAULTS:
                o->values[0] = "true", o->values[1] = "false";
                o->pre = "settings:\n  protect_defaults: ", o->post = "\n";
                break;
        default:
                o->key = NULL;
        }
}

/* From each value to each other: looser is refused, the same or tighter loads. */
static void check_ordered(const struct ordered *o)
{
        for (int from = 0; o->values[from]; from++)
                for (int to = 0; o->values[to]; to++) {
                        char body[256];

                        snprintf(body, sizeof(body), "%s%s%s", o->pre, o->values[to], o->post);
                        if (to > from)
                                check_loosening(o->key, o->key, o->values[from], body);
                        else
                                check_accepted(o->key, o->key, o->values[from], body);
                }
}

/* ---- the other settings: one project file each --------------------------- */

struct keyed_case {
        const char *key;
        bool loosens;     /* false: additions only tighten, the file must load */
        const char *body; /* the project file after its version line */
};

static const struct keyed_case keyed_cases[] = {
        { "workspace", true, "settings:\n  workspace: ${TMPDIR}\n" },
        { "write", true, "settings:\n  write: [\"${TMPDIR}\"]\n" },
        { "read_only", false, "settings:\n  read_only: [\"${WORKSPACE}/vendor\"]\n" },
        { "hide", false, "settings:\n  hide: [~/.kube]\n" },
        { "protect", false, "settings:\n  protect: [.envrc]\n" },
        { "network.allow", true, "settings:\n  network: { allow: [example.com] }\n" },
        { "network.deny", false, "settings:\n  network: { deny: [evil.example] }\n" },
        { "best_effort", true, "settings:\n  best_effort: [write]\n" },
        { "audit", true, "settings:\n  audit: ${TMPDIR}/audit.jsonl\n" },
        { "env.deny", false, "settings:\n  env: { deny: [AWS_*] }\n" },
        { "env.allow", true, "settings:\n  env: { allow: [AWS_SECRET_ACCESS_KEY] }\n" },
        { "network.proxy_port", true, "settings:\n  network: { proxy_port: 3128 }\n" },
};

/* A project's stack line may not end or decide a phase, granted or not. */
static void check_stack(void)
{
        static const char *const controls[] = { "sufficient", "optional" };

        for (size_t i = 0; i < ELEMENTSOF(controls); i++) {
                for (int granted = 0; granted < 2; granted++) {
                        struct floor_fx fx;
                        char body[256];
                        int r;

                        floor_setup(&fx);
                        write_floor(&fx, granted ? "stack" : NULL, NULL, NULL);
                        snprintf(body, sizeof(body), "stack:\n  - { phase: pre-exec, control: %s, module: fs_bwrap }\n",
                                 controls[i]);
                        write_project(&fx, body);
                        r = floor_load(&fx);
                        CHECK(r == -EINVAL && fx.diag && strstr(fx.diag, "a project stack line must be required or requisite"),
                              "stack: a %s project line %s loaded (%d): %s", controls[i],
                              granted ? "granted" : "ungranted", r, fx.diag ? fx.diag : "");
                        floor_teardown(&fx);
                }
        }
        check_accepted("stack", NULL, NULL, "stack:\n  - { phase: pre-exec, control: requisite, module: fs_bwrap }\n");
}

static void test_project_may_only_tighten_every_setting(void)
{
        for (int k = 0; k < CORE_KEY_MAX; k++) {
                const char *name = core_key_name((enum core_key) k);
                struct ordered o;
                int cases = 0;

                CU_ASSERT_PTR_NOT_NULL_FATAL(name);
                ordered_values((enum core_key) k, &o);
                if (o.key) {
                        check_ordered(&o);
                        cases++;
                }
                if (k == CORE_KEY_STACK) {
                        check_stack();
                        cases++;
                }
                for (size_t i = 0; i < ELEMENTSOF(keyed_cases); i++) {
                        if (!streq(keyed_cases[i].key, name))
                                continue;
                        if (keyed_cases[i].loosens)
                                check_loosening(name, NULL, NULL, keyed_cases[i].body);
                        else
                                check_accepted(name, NULL, NULL, keyed_cases[i].body);
                        cases++;
                }
                CHECK(cases > 0, "setting \"%s\" has no case here: add how a project would loosen it "
                      "(or that its additions only tighten)", name);
        }
}

UNIT_SUITE(test_floor,
           UNIT_TEST(test_project_may_only_tighten_every_setting))
