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
 * For a key whose additions only tighten, a project addition loads.  For
 * what a project may never set (approval.exec, approval.webhook, a
 * sufficient or optional stack line), it is refused, granted or not.
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
        /* network.mode proxy, not off: with off, network.allow and
         * proxy_port would be refused as unenforced (issue 13 §6), not as
         * loosenings; the network.mode cases set their own floor values. */
        static const char *const tight[] = { "whole", "true", "true", "never", "proxy" };
        const char *v[ELEMENTSOF(keys)];
        char text[2048];

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                v[i] = key && streq(key, keys[i]) ? value : tight[i];
        snprintf(text, sizeof(text),
                 "stockade: 1\noverridable: { project: [%s] }\nsettings:\n"
                 "  workspace: ${CWD}\n  write: [\"${WORKSPACE}\"]\n"
                 "  git: %s\n  private_tmp: %s\n  protect_defaults: %s\n  approval: %s\n"
                 "  network: { mode: %s }\n"
                 /* an egress line: network.mode proxy is then enforced, not an error of its own */
                 "stack:\n  - { phase: pre-exec, control: required, module: fs_bwrap }\n"
                 "  - { phase: egress, control: required, module: net_proxy }\n",
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
        enum { TIGHTENS, LOOSENS, NEVER } kind; /* additions only tighten: the file loads;
                                                 * NEVER: refused even granted, saying `says` */
        const char *body; /* the project file after its version line */
        const char *says;
};

static const struct keyed_case keyed_cases[] = {
        { "workspace", LOOSENS, "settings:\n  workspace: ${TMPDIR}\n", NULL },
        { "write", LOOSENS, "settings:\n  write: [\"${TMPDIR}\"]\n", NULL },
        { "read_only", TIGHTENS, "settings:\n  read_only: [\"${WORKSPACE}/vendor\"]\n", NULL },
        { "hide", TIGHTENS, "settings:\n  hide: [~/.kube]\n", NULL },
        { "protect", TIGHTENS, "settings:\n  protect: [.envrc]\n", NULL },
        { "network.allow", LOOSENS, "settings:\n  network: { allow: [example.com] }\n", NULL },
        { "network.deny", TIGHTENS, "settings:\n  network: { deny: [evil.example] }\n", NULL },
        { "best_effort", LOOSENS, "settings:\n  best_effort: [write]\n", NULL },
        { "audit", LOOSENS, "settings:\n  audit: ${TMPDIR}/audit.jsonl\n", NULL },
        { "env.deny", TIGHTENS, "settings:\n  env: { deny: [AWS_*] }\n", NULL },
        { "env.allow", LOOSENS, "settings:\n  env: { allow: [AWS_SECRET_ACCESS_KEY] }\n", NULL },
        { "network.proxy_port", LOOSENS, "settings:\n  network: { proxy_port: 3128 }\n", NULL },
        /* the floor sets none: off; shared caches are the user's choice (issue 15) */
        { "caches", LOOSENS, "settings:\n  caches: shared\n", NULL },
        /* who answers questions: never a repository's choice */
        { "approval.exec", NEVER, "settings:\n  approval: { exec: /bin/true }\n",
          "\"approval.exec\" in the project layer" },
        { "approval.webhook", NEVER, "settings:\n  approval: { webhook: \"https://approvals.example.com/x\" }\n",
          "\"approval.webhook\" in the project layer" },
        /* a line that may end or decide a phase */
        { "stack", NEVER, "stack:\n  - { phase: pre-exec, control: sufficient, module: fs_bwrap }\n",
          "a project stack line must be required or requisite" },
        { "stack", NEVER, "stack:\n  - { phase: pre-exec, control: optional, module: fs_bwrap }\n",
          "a project stack line must be required or requisite" },
        { "stack", TIGHTENS, "stack:\n  - { phase: pre-exec, control: requisite, module: fs_bwrap }\n", NULL },
};

/* What a project may never set, granted or not: refused, saying so. */
static void check_never(const char *key, const char *body, const char *says)
{
        for (int granted = 0; granted < 2; granted++) {
                struct floor_fx fx;
                int r;

                floor_setup(&fx);
                write_floor(&fx, granted ? key : NULL, NULL, NULL);
                write_project(&fx, body);
                r = floor_load(&fx);
                CHECK(r == -EINVAL && fx.diag && strstr(fx.diag, says), "%s: the project file\n%s%s loaded (%d) "
                      "without \"%s\": %s", key, body, granted ? "granted" : "ungranted", r, says,
                      fx.diag ? fx.diag : "");
                floor_teardown(&fx);
        }
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
                for (size_t i = 0; i < ELEMENTSOF(keyed_cases); i++) {
                        if (!streq(keyed_cases[i].key, name))
                                continue;
                        if (keyed_cases[i].kind == LOOSENS)
                                check_loosening(name, NULL, NULL, keyed_cases[i].body);
                        else if (keyed_cases[i].kind == NEVER)
                                check_never(name, keyed_cases[i].body, keyed_cases[i].says);
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
