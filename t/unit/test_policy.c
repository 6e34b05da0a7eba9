/* SPDX-License-Identifier: MIT */
/*
 * The stacked policy loader (core/policy*.c, stockade.yaml(5)): shipped
 * profiles, layering and trust, variables, and one malformed file per
 * diagnostic in t/policy-bad/, each asserted at its exact line:column.
 *
 * Every test builds its layers in a fresh mkdtemp() directory and captures
 * diagnostics through core_diag_stream.  Fixtures are found under the
 * source tree: $STK_SRCDIR, else the parent of the build directory, else
 * the current directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "util/util.h"
#include "unit.h"

#define SECRET "hunter2-do-not-echo"

struct fx {
        char root[PATH_MAX];
        char builtin[PATH_MAX + 16], system[PATH_MAX + 16], user[PATH_MAX + 16];
        char ws[PATH_MAX + 16], home[PATH_MAX + 16], tmp[PATH_MAX + 16];
        char *diag;
        size_t diag_len;
};

static bool has_fixtures(const char *dir)
{
        char p[PATH_MAX + 32];
        struct stat st;

        snprintf(p, sizeof(p), "%s/t/policy-bad", dir);
        return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *srcdir(void)
{
        static char dir[PATH_MAX];
        const char *env = getenv("STK_SRCDIR");

        if (dir[0])
                return dir;
        if (env && has_fixtures(env))
                snprintf(dir, sizeof(dir), "%s", env);
#ifdef STK_BUILD_DIR
        if (!dir[0]) {
                char b[PATH_MAX], *slash;
                snprintf(b, sizeof(b), "%s", STK_BUILD_DIR);
                slash = strrchr(b, '/');
                if (slash)
                        *slash = '\0';
                if (has_fixtures(b))
                        snprintf(dir, sizeof(dir), "%s", b);
        }
#endif
        if (!dir[0] && (!getcwd(dir, sizeof(dir)) || !has_fixtures(dir)))
                snprintf(dir, sizeof(dir), ".");
        return dir;
}

static char *pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *pathf(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return buf;
}
#define P(...) pathf((char[PATH_MAX * 2]) { 0 }, PATH_MAX * 2, __VA_ARGS__)

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_FATAL(fputs(text, f) >= 0);
        CU_ASSERT_FATAL(fclose(f) == 0);
}

static void write_filef(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_filef(const char *text, const char *fmt, ...)
{
        char path[PATH_MAX * 2];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(path, sizeof(path), fmt, ap);
        va_end(ap);
        write_file(path, text);
}

static void copy_file(const char *from, const char *to)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *in = fopen(from, "re");

        CHECK(in != NULL, "fixture %s is missing", from);
        if (!in)
                CU_FAIL_FATAL("missing fixture");
        CU_ASSERT_FATAL(getdelim(&text, &len, '\0', in) >= 0);
        fclose(in);
        write_file(to, text);
}

static void fx_setup(struct fx *fx)
{
        char tmpl[] = "/tmp/stk-policy-XXXXXX";
        char fixture[PATH_MAX + 64];

        memset(fx, 0, sizeof(*fx));
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
        CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tmpl, fx->root));
        snprintf(fx->builtin, sizeof(fx->builtin), "%s/builtin", fx->root);
        snprintf(fx->system, sizeof(fx->system), "%s/system", fx->root);
        snprintf(fx->user, sizeof(fx->user), "%s/user", fx->root);
        snprintf(fx->ws, sizeof(fx->ws), "%s/ws", fx->root);
        snprintf(fx->home, sizeof(fx->home), "%s/home", fx->root);
        snprintf(fx->tmp, sizeof(fx->tmp), "%s/tmp", fx->root);
        const char *dirs[] = { fx->builtin, fx->system, fx->user, fx->ws, fx->home, fx->tmp };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                CU_ASSERT_FATAL(mkdir(dirs[i], 0755) == 0);
        snprintf(fixture, sizeof(fixture), "%s/t/policy-good/base.yaml", srcdir());
        write_filef("", "%s/README", fx->builtin);
        copy_file(fixture, P("%s/default.yaml", fx->builtin));
        /* Something a hostile project would like to read and have quoted. */
        write_filef("stockade: 1\n" SECRET ": yes\n", "%s/secret.yaml", fx->root);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void fx_teardown(struct fx *fx)
{
        CU_ASSERT(nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
        free(fx->diag);
        fx->diag = NULL;
}

static struct core_policy_sources fx_src(const struct fx *fx)
{
        return (struct core_policy_sources) {
                .profile = "default",
                .builtin_dir = fx->builtin,
                .system_dir = fx->system,
                .user_dir = fx->user,
                .workspace = fx->ws,
                .cwd = fx->ws,
                .home = fx->home,
                .tmpdir = fx->tmp,
        };
}

static int fx_load(struct fx *fx, const struct core_policy_sources *src, struct core_policy **ret)
{
        int r;

        free(fx->diag);
        fx->diag = NULL;
        core_diag_stream = open_memstream(&fx->diag, &fx->diag_len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(core_diag_stream);
        r = core_policy_load(src, ret);
        fclose(core_diag_stream);
        core_diag_stream = NULL;
        return r;
}

static bool list_has(const struct core_list *l, const char *value)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].value, value))
                        return true;
        return false;
}


/* ---- malformed files: one per diagnostic --------------------------------- */

enum bad_as {
        AS_FILE,    /* `stockade check FILE`: the system layer */
        AS_USER,    /* copied to <user_dir>/default.yaml over t/policy-good/base.yaml */
        AS_PROJECT, /* copied to <workspace>/.stockade.yaml over base.yaml */
};

struct bad_case {
        const char *file;
        enum bad_as as;
        const char *where;      /* the file the error is in, if not `file` (includes) */
        unsigned line, column;
        const char *needle;     /* must appear in that diagnostic line */
};

/* The diagnostic line that starts with prefix, or NULL. */
static const char *find_diag(const char *diag, const char *prefix, size_t *ret_len)
{
        for (const char *l = diag; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, prefix, strlen(prefix)) == 0) {
                        const char *e = strchr(l, '\n');
                        *ret_len = e ? (size_t) (e - l) : strlen(l);
                        return l;
                }
        return NULL;
}

static void check_bad(const struct bad_case *c)
{
        char fixture[PATH_MAX + 64], where[PATH_MAX + 64], prefix[PATH_MAX + 128];
        const char *files[] = { fixture, NULL }, *line;
        struct core_policy *p = NULL;
        struct core_policy_sources src;
        struct fx fx;
        size_t len = 0;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        snprintf(fixture, sizeof(fixture), "%s/t/policy-bad/%s", srcdir(), c->file);
        snprintf(where, sizeof(where), "%s/t/policy-bad/%s", srcdir(), c->where ? c->where : c->file);
        if (c->as == AS_FILE)
                src.files = files;
        else {
                snprintf(where, sizeof(where), c->as == AS_USER ? "%s/default.yaml" : "%s/.stockade.yaml",
                         c->as == AS_USER ? fx.user : fx.ws);
                copy_file(fixture, where);
        }
        r = fx_load(&fx, &src, &p);
        CHECK(r == -EINVAL, "%s: load returned %d, expected -EINVAL", c->file, r);
        CU_ASSERT_PTR_NULL(p);
        snprintf(prefix, sizeof(prefix), "%s:%u:%u: error: ", where, c->line, c->column);
        line = find_diag(fx.diag, prefix, &len);
        CHECK(line, "%s: no diagnostic at %u:%u; got: %s", c->file, c->line, c->column, fx.diag);
        CHECK(line && memmem(line, len, c->needle, strlen(c->needle)),
              "%s: diagnostic at %u:%u lacks \"%s\"; got: %s", c->file, c->line, c->column, c->needle, fx.diag);
        CHECK(!strstr(fx.diag, SECRET), "%s: a file outside the workspace was quoted: %s", c->file, fx.diag);
        core_policy_free(p);
        fx_teardown(&fx);
}

#define BAD_CASES(X)                                                                                          \
        X(syntax, "syntax.yaml", AS_FILE, NULL, 5, 14, "YAML syntax: did not find expected ',' or ']'")      \
        X(flow_variable, "flow-variable.yaml", AS_FILE, NULL, 4, 12, "quote a value that has ${...}")         \
        X(duplicate_key, "duplicate-key.yaml", AS_FILE, NULL, 6, 3, "duplicate key \"hide\" (first at 4:3)")  \
        X(wrong_kind, "wrong-kind.yaml", AS_FILE, NULL, 4, 10, "\"write\" is a scalar; expected a sequence") \
        X(unknown_top_key, "unknown-top-key.yaml", AS_FILE, NULL, 3, 1, "unknown top-level key \"stak\"")     \
        X(unknown_settings_key, "unknown-settings-key.yaml", AS_FILE, NULL, 5, 3,                             \
          "unknown settings key \"wirte\"; expected one of workspace, write, read_only")                     \
        X(unknown_network_key, "unknown-network-key.yaml", AS_FILE, NULL, 4, 25, "unknown network key \"alow\"") \
        X(unknown_line_key, "unknown-line-key.yaml", AS_FILE, NULL, 6, 5, "unknown stack line key \"modul\"") \
        X(bad_git, "bad-git.yaml", AS_FILE, NULL, 4, 8, "bad git value \"partly\"; expected one of whole")     \
        X(bad_phase, "bad-phase.yaml", AS_FILE, NULL, 4, 14, "bad phase \"post-exec\"")                       \
        X(bad_control, "bad-control.yaml", AS_FILE, NULL, 4, 33, "bad control \"mandatory\"")                 \
        X(bad_bool, "bad-bool.yaml", AS_FILE, NULL, 4, 16, "expected true, false, yes or no")                 \
        X(bad_mode, "bad-mode.yaml", AS_FILE, NULL, 5, 11, "bad network.mode value \"open\"")                 \
        X(bad_approval, "bad-approval.yaml", AS_FILE, NULL, 4, 13, "bad approval value \"sometimes\"")        \
        X(bad_ask_limit, "bad-ask-limit.yaml", AS_FILE, NULL, 4, 44, "bad approval.ask_limit \"many\"")      \
        X(project_approval_exec, "project-approval-exec.yaml", AS_PROJECT, NULL, 4, 21,                      \
          "\"approval.exec\" in the project layer")                                                          \
        X(user_approval_exec, "user-approval-exec.yaml", AS_USER, NULL, 6, 11,                                \
          "overridable: { user: [approval.exec] }")                                                           \
        X(bad_cover, "bad-cover.yaml", AS_FILE, NULL, 4, 23, "unknown best_effort name \"everything\"")       \
        X(no_version, "no-version.yaml", AS_FILE, NULL, 2, 1, "missing \"stockade:\"")                        \
        X(wrong_version, "wrong-version.yaml", AS_FILE, NULL, 2, 11, "unsupported policy version \"2\"")      \
        X(bad_module, "bad-module.yaml", AS_FILE, NULL, 4, 51, "bad module name \"../evil\"")                 \
        X(long_module, "long-module.yaml", AS_FILE, NULL, 6, 13, "at most 64 characters")                     \
        X(missing_phase, "missing-phase.yaml", AS_FILE, NULL, 5, 5, "stack line without \"phase\"")           \
        X(missing_control, "missing-control.yaml", AS_FILE, NULL, 4, 5, "stack line without \"control\"")     \
        X(missing_module, "missing-module.yaml", AS_FILE, NULL, 4, 5, "stack line without \"module\"")        \
        X(anchor, "anchor.yaml", AS_FILE, NULL, 4, 9, "anchor &creds")                                        \
        X(alias, "alias.yaml", AS_FILE, NULL, 5, 14, "alias *creds")                                          \
        X(tag, "tag.yaml", AS_FILE, NULL, 4, 16, "tag !!bool")                                                \
        X(multi_doc, "multi-doc.yaml", AS_FILE, NULL, 4, 1, "a second YAML document")                         \
        X(empty, "empty.yaml", AS_FILE, NULL, 1, 1, "empty file")                                             \
        X(not_mapping, "not-mapping.yaml", AS_FILE, NULL, 2, 1, "the document is a sequence")                 \
        X(arg_mapping, "arg-mapping.yaml", AS_FILE, NULL, 7, 19, "argument \"deny\" is a mapping")            \
        X(duplicate_arg, "duplicate-arg.yaml", AS_FILE, NULL, 9, 7, "duplicate key \"deny\" (first at 8:7)") \
        X(protect_absolute, "protect-absolute.yaml", AS_FILE, NULL, 4, 21, "bad protect item \"/etc/passwd\"") \
        X(unknown_variable, "unknown-variable.yaml", AS_FILE, NULL, 6, 7, "unknown variable \"${NOPE}\"")     \
        X(lone_dollar, "lone-dollar.yaml", AS_FILE, NULL, 5, 7, "a lone \"$\" in \"$HOME/.ssh\"")             \
        X(relative_path, "relative-path.yaml", AS_FILE, NULL, 4, 36,                                          \
          "\"build/out\" is a relative path after expansion")                                                 \
        X(include_missing, "include-missing.yaml", AS_FILE, NULL, 3, 11, "cannot read include \"no-such-file.yaml\"") \
        X(include_cycle, "include-cycle-a.yaml", AS_FILE, "include-cycle-b.yaml", 6, 5,                       \
          "include-cycle-b.yaml -> ")                                                                         \
        X(include_deep, "include-deep.yaml", AS_FILE, "include-deep-8.yaml", 3, 11, "includes nested deeper than 8") \
        X(project_loosen_write, "project-loosen-write.yaml", AS_PROJECT, NULL, 6, 7,                          \
          "error: the project layer may only tighten: \"write\" adds a writable root; a system or user file " \
          "can allow it with overridable: { project: [write] }")                                             \
        X(project_loosen_network, "project-loosen-network.yaml", AS_PROJECT, NULL, 4, 20,                    \
          "\"network.mode\" raises the network mode")                                                         \
        X(project_loosen_private_tmp, "project-loosen-private-tmp.yaml", AS_PROJECT, NULL, 4, 16,             \
          "project layer may only tighten: \"private_tmp: false\"")                                          \
        X(project_audit, "project-audit.yaml", AS_PROJECT, NULL, 4, 10, "overridable: { project: [audit] }")  \
        X(project_overridable, "project-overridable.yaml", AS_PROJECT, NULL, 3, 1,                            \
          "\"overridable\" in the project layer")                                                            \
        X(project_sufficient, "project-sufficient.yaml", AS_PROJECT, NULL, 5, 35,                             \
          "a project stack line must be required or requisite, not \"sufficient\"")                          \
        X(project_include_outside, "project-include-outside.yaml", AS_PROJECT, NULL, 4, 5,                    \
          "include \"../secret.yaml\" is outside the workspace")                                             \
        X(user_loosen_workspace, "user-loosen-workspace.yaml", AS_USER, NULL, 4, 14,                          \
          "the user layer may only tighten: \"workspace\" changes the workspace")                            \
        X(user_sufficient, "user-sufficient.yaml", AS_USER, NULL, 5, 14, "overridable: { user: [stack] }")    \
        X(user_grant, "user-grant.yaml", AS_USER, NULL, 4, 28,                                                \
          "overridable.project grants \"workspace\", which the user layer may not loosen itself")            \
        X(user_overridable_user, "user-overridable-user.yaml", AS_USER, NULL, 4, 3,                           \
          "overridable.user in the user layer")

#define BAD_DEFINE(id, file, as, where, line, col, needle)                                                    \
        static void test_bad_##id(void)                                                                       \
        {                                                                                                     \
                static const struct bad_case c = { file, as, where, line, col, needle };                     \
                check_bad(&c);                                                                                \
        }
BAD_CASES(BAD_DEFINE)
#define BAD_REGISTER(id, ...) UNIT_TEST(test_bad_##id),

/* Several errors in one file are all reported, in file order. */
static void test_collects_errors(void)
{
        char fixture[PATH_MAX + 64];
        const char *files[] = { fixture, NULL };
        struct core_policy *p = NULL;
        struct core_policy_sources src;
        struct fx fx;
        size_t lines = 0;

        fx_setup(&fx);
        src = fx_src(&fx);
        snprintf(fixture, sizeof(fixture), "%s/t/policy-bad/collect.yaml", srcdir());
        src.files = files;
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        for (const char *c = fx.diag; c && *c; c++)
                lines += *c == '\n';
        CHECK(lines == 4, "expected 4 diagnostics, got: %s", fx.diag);
        CU_ASSERT_PTR_NOT_NULL(strstr(fx.diag, "collect.yaml:4:8: error: bad git value"));
        CU_ASSERT(strstr(fx.diag, ":4:8:") < strstr(fx.diag, ":5:16:"));
        CU_ASSERT(strstr(fx.diag, ":5:16:") < strstr(fx.diag, ":6:3:"));
        CU_ASSERT_PTR_NOT_NULL(strstr(fx.diag, "collect.yaml:8:51: error: bad module name \"Fs-Bwrap\""));
        fx_teardown(&fx);
}

/* ---- shipped profiles, from the embedded table --------------------------- */

static int load_shipped(struct fx *fx, const char *profile, struct core_policy **ret)
{
        struct core_policy_sources src = fx_src(fx);

        src.profile = profile;
        src.builtin_dir = NULL;
        src.system_dir = NULL;
        src.user_dir = NULL;
        src.no_project = 1;
        return fx_load(fx, &src, ret);
}

static bool has_line(const struct core_policy *p, enum stk_phase ph, enum core_control c, const char *module)
{
        for (size_t i = 0; i < p->n_lines; i++)
                if (p->lines[i].phase == ph && p->lines[i].control == c && streq(p->lines[i].module, module))
                        return true;
        return false;
}

/* bwrap where it can run, Landlock as its fallback, seccomp inside either. */
/* The stack of the profiles that include default.yaml: Linux's, or, in a
 * portable build, etc/darwin.stack's (the GNUmakefile swaps it in). */
/* Both also carry the approvers (issue 13 §5), approval_exec where it is
 * built. */
#if defined(__linux__) && !defined(STK_PORTABLE)
#define DEFAULT_STACK_LINES 9
static bool default_stack(const struct core_policy *p)
{
        return has_line(p, STK_PHASE_PRE_EXEC, CORE_SUFFICIENT, "fs_bwrap") &&
               has_line(p, STK_PHASE_PRE_EXEC, CORE_REQUIRED, "fs_landlock") &&
               has_line(p, STK_PHASE_IN_SANDBOX, CORE_REQUIRED, "fs_landlock") &&
               has_line(p, STK_PHASE_IN_SANDBOX, CORE_REQUIRED, "net_seccomp") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_exec") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_webhook") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_mcp") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_tty");
}
#else
#define DEFAULT_STACK_LINES 3
static bool default_stack(const struct core_policy *p)
{
        return has_line(p, STK_PHASE_PRE_EXEC, CORE_REQUIRED, "fs_seatbelt") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_webhook") &&
               has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_tty") && p->n_lines == 3;
}
#endif

static void test_profile_default(void)
{
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        r = load_shipped(&fx, "default", &p);
        CHECK(r == 0, "default: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_STRING_EQUAL(p->workspace, fx.ws);
                CU_ASSERT(p->write.n == 1 && streq(p->write.items[0].value, fx.ws));
                CU_ASSERT_STRING_EQUAL(p->write.items[0].origin.file, "<builtin>/default.yaml");
                CU_ASSERT_EQUAL(p->write.items[0].origin.layer, CORE_LAYER_BUILTIN);
                CU_ASSERT(list_has(&p->hide, P("%s/.ssh", fx.home)));
                CU_ASSERT(list_has(&p->hide, P("%s/.config/gh", fx.home)));
                CU_ASSERT_EQUAL(p->git, CORE_GIT_WHOLE);
                CU_ASSERT_EQUAL(p->private_tmp, 1);
                CU_ASSERT_EQUAL(p->protect_defaults, 1);
                CU_ASSERT_EQUAL(p->network, STK_NET_OFF);
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_ON_REQUEST);
                CU_ASSERT(default_stack(p));
                CU_ASSERT(p->overridable_user & (1u << CORE_KEY_NET_ALLOW));
                CU_ASSERT(!(p->overridable_user & (1u << CORE_KEY_WORKSPACE)));
                CU_ASSERT_EQUAL(p->overridable_project, 0);
                CU_ASSERT_PTR_NULL(p->audit);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_profile_workspace_write(void)
{
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        r = load_shipped(&fx, "workspace-write", &p);
        CHECK(r == 0, "workspace-write: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->git, CORE_GIT_SURFACES);
                CU_ASSERT_STRING_EQUAL(p->git_origin.file, "<builtin>/workspace-write.yaml");
                CU_ASSERT(default_stack(p));
                CU_ASSERT(p->n_files == 2 && streq(p->files[1].value, "<builtin>/default.yaml"));
                CU_ASSERT(list_has(&p->write, fx.ws));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_profile_ci(void)
{
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        r = load_shipped(&fx, "ci", &p);
        CHECK(r == 0, "ci: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_NEVER);
                CU_ASSERT(default_stack(p));
                CU_ASSERT_EQUAL(p->n_lines, DEFAULT_STACK_LINES); /* included once, not twice */
                CU_ASSERT_EQUAL(p->git, CORE_GIT_WHOLE);
                CU_ASSERT_STRING_EQUAL(p->profile, "ci");
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_profile_read_only(void)
{
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        r = load_shipped(&fx, "read-only", &p);
        CHECK(r == 0, "read-only: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->write.n, 0);
                CU_ASSERT_EQUAL(p->private_tmp, 1);
                CU_ASSERT_EQUAL(p->network, STK_NET_OFF);
                CU_ASSERT(list_has(&p->hide, P("%s/.aws", fx.home)));
                CU_ASSERT(default_stack(p));
                CU_ASSERT(!(p->overridable_user & (1u << CORE_KEY_WRITE)));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_profile_full_access(void)
{
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        r = load_shipped(&fx, "full-access", &p);
        CHECK(r == 0, "full-access: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT(p->write.n == 1 && streq(p->write.items[0].value, "/"));
                CU_ASSERT_EQUAL(p->network, STK_NET_ON);
                CU_ASSERT_EQUAL(p->private_tmp, 0);
                CU_ASSERT_EQUAL(p->git, CORE_GIT_OFF);
                CU_ASSERT_EQUAL(p->protect_defaults, 0);
                CU_ASSERT_EQUAL(p->n_lines, 0);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* builtin_dir reads the same files from disk (an uninstalled tree's etc/). */
static void test_profile_builtin_dir(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        src.builtin_dir = P("%s/etc", srcdir());
        src.system_dir = src.user_dir = NULL;
        src.profile = "workspace-write";
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "etc/workspace-write.yaml: %d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->git, CORE_GIT_SURFACES);
                CU_ASSERT(p->n_files == 2 && strstr(p->files[1].value, "/etc/default.yaml"));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_good_files(void)
{
        const char *names[] = { "base.yaml", "everything.yaml", "include-order.yaml", "include-order-part.yaml",
                                "man-synopsis.yaml", "man-user.yaml", "man-project.yaml" };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char fixture[PATH_MAX + 64];
                const char *files[] = { fixture, NULL };
                struct core_policy_sources src;
                struct core_policy *p = NULL;
                struct fx fx;
                int r;

                fx_setup(&fx);
                src = fx_src(&fx);
                snprintf(fixture, sizeof(fixture), "%s/t/policy-good/%s", srcdir(), names[i]);
                src.files = files;
                r = fx_load(&fx, &src, &p);
                CHECK(r == 0, "%s: %d: %s", names[i], r, fx.diag);
                core_policy_free(p);
                fx_teardown(&fx);
        }
}

static void test_everything(void)
{
        char fixture[PATH_MAX + 64];
        const char *files[] = { fixture, NULL };
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        snprintf(fixture, sizeof(fixture), "%s/t/policy-good/everything.yaml", srcdir());
        src.files = files;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "everything.yaml: %d: %s", r, fx.diag);
        if (!p) {
                fx_teardown(&fx);
                return;
        }
        CU_ASSERT(p->write.n == 2 && streq(p->write.items[0].value, fx.ws) &&
                  streq(p->write.items[1].value, P("%s/stockade-build", fx.tmp)));
        CU_ASSERT(list_has(&p->read_only, P("%s/.git", fx.ws)));
        CU_ASSERT(list_has(&p->hide, "/tmp/a$b"));
        CU_ASSERT(p->private_tmp == 1 && p->git == CORE_GIT_SURFACES && p->protect_defaults == 1);
        CU_ASSERT(p->protect.n == 2 && streq(p->protect.items[1].value, ".tool-versions"));
        CU_ASSERT(p->network == STK_NET_PROXY && list_has(&p->net_allow, "*.github.com") &&
                  list_has(&p->net_deny, "evil.example"));
        CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_NEVER);
        CU_ASSERT_EQUAL(p->best_effort, STK_COVER_NET_ABSTRACT | STK_COVER_PROCESS);
        CU_ASSERT(p->audit && streq(p->audit, P("%s/stockade-audit.jsonl", fx.tmp)));
        CU_ASSERT_EQUAL(p->n_lines, 7);
        CU_ASSERT(has_line(p, STK_PHASE_PERMISSION, CORE_OPTIONAL, "approval_tty"));
        CU_ASSERT(has_line(p, STK_PHASE_IN_SANDBOX, CORE_REQUIRED, "net_seccomp"));
        const struct core_line *l = &p->lines[0];
        CU_ASSERT(l->n_args == 1 && l->args[0].is_list && streq(l->args[0].name, "deny") &&
                  streq(l->args[0].list[0], "curl *|*sh") && !l->args[0].list[1]);
        CU_ASSERT(l->origin.line == 25 && l->origin.column == 5 && l->origin.layer == CORE_LAYER_SYSTEM);
        l = &p->lines[3];
        CU_ASSERT(l->n_args == 1 && !l->args[0].is_list && streq(l->args[0].scalar, "/usr/bin/bwrap"));
        CU_ASSERT(p->overridable_user == ((1u << CORE_KEY_WRITE) | (1u << CORE_KEY_NET_ALLOW) | (1u << CORE_KEY_STACK)));
        core_policy_free(p);
        fx_teardown(&fx);
}

/* ---- layers -------------------------------------------------------------- */

/* A system file layers over the built-in one of its name (issue 17): the
 * built-in's lines and lists stay, the site's come after. */
static void test_system_layers_over_builtin(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings:\n  git: surfaces\nstack:\n"
                    "  - { phase: pre-exec, control: required, module: fs_landlock }\n",
                    "%s/default.yaml", fx.system);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL_FATAL(p->n_lines, 2);
                CU_ASSERT_STRING_EQUAL(p->lines[0].module, "fs_bwrap");
                CU_ASSERT_EQUAL(p->lines[0].origin.layer, CORE_LAYER_BUILTIN);
                CU_ASSERT_STRING_EQUAL(p->lines[1].module, "fs_landlock");
                CU_ASSERT_EQUAL(p->lines[1].origin.layer, CORE_LAYER_SYSTEM);
                CU_ASSERT_EQUAL(p->git, CORE_GIT_SURFACES);
                CU_ASSERT(p->write.n > 0); /* the built-in write: is kept */
                CU_ASSERT(p->n_files == 2 && p->files[0].origin.layer == CORE_LAYER_BUILTIN &&
                          p->files[1].origin.layer == CORE_LAYER_SYSTEM);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* site.d/ applies to every profile but full-access, after PROFILE.yaml and
 * before PROFILE.d/ (issue 17). */
static void test_site_dropins(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(mkdir(P("%s/site.d", fx.system), 0755) == 0);
        CU_ASSERT_FATAL(mkdir(P("%s/default.d", fx.system), 0755) == 0);
        write_filef("stockade: 1\nsettings: { hide: [~/.profile-file] }\n", "%s/default.yaml", fx.system);
        write_filef("stockade: 1\nsettings: { hide: [~/.site] }\n", "%s/site.d/10-site.yaml", fx.system);
        write_filef("not yaml: [", "%s/site.d/README", fx.system);
        write_filef("stockade: 1\nsettings: { hide: [~/.own] }\n", "%s/default.d/00-own.yaml", fx.system);
        write_filef("stockade: 1\nsettings: { write: [/] }\n", "%s/full-access.yaml", fx.builtin);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                size_t n = p->hide.n;
                CU_ASSERT_FATAL(n >= 3);
                CU_ASSERT_STRING_EQUAL(p->hide.items[n - 3].value, P("%s/.profile-file", fx.home));
                CU_ASSERT_STRING_EQUAL(p->hide.items[n - 2].value, P("%s/.site", fx.home));
                CU_ASSERT_STRING_EQUAL(p->hide.items[n - 1].value, P("%s/.own", fx.home));
        }
        core_policy_free(p);
        p = NULL;
        src.profile = "full-access";
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->n_files, 1); /* the built-in alone: no site.d */
                for (size_t i = 0; i < p->hide.n; i++)
                        CU_ASSERT(!strstr(p->hide.items[i].value, ".site"));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* Drop-ins merge on top in byte order; other names are not read. */
static void test_dropins_append(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(mkdir(P("%s/default.d", fx.system), 0755) == 0);
        write_filef("stockade: 1\nsettings: { hide: [~/.b] }\n"
                    "stack: [ { phase: in-sandbox, control: required, module: net_seccomp } ]\n",
                    "%s/default.d/20-b.yaml", fx.system);
        write_filef("stockade: 1\nsettings: { hide: [~/.a, ~/.ssh] }\n"
                    "stack: [ { phase: pre-exec, control: sufficient, module: fs_landlock } ]\n",
                    "%s/default.d/10-a.yaml", fx.system);
        write_filef("not yaml: [", "%s/default.d/README", fx.system);
        write_filef("not yaml: [", "%s/default.d/.10-a.yaml.swp.yaml", fx.system);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL_FATAL(p->n_lines, 3);
                CU_ASSERT_STRING_EQUAL(p->lines[0].module, "fs_bwrap");
                CU_ASSERT_STRING_EQUAL(p->lines[1].module, "fs_landlock");
                CU_ASSERT_STRING_EQUAL(p->lines[2].module, "net_seccomp");
                CU_ASSERT_EQUAL(p->n_files, 3);
                CU_ASSERT_EQUAL_FATAL(p->hide.n, 3); /* ~/.ssh twice: kept once, first origin */
                CU_ASSERT_STRING_EQUAL(p->hide.items[0].value, P("%s/.ssh", fx.home));
                CU_ASSERT_EQUAL(p->hide.items[0].origin.layer, CORE_LAYER_BUILTIN);
                CU_ASSERT_STRING_EQUAL(p->hide.items[1].value, P("%s/.a", fx.home));
                CU_ASSERT_STRING_EQUAL(p->hide.items[2].value, P("%s/.b", fx.home));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* `files` (stockade check FILE) take the place of builtin and system. */
static void test_files_replace_base(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        const char *files[2];
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("this is not: [ read", "%s/default.yaml", fx.system);
        write_filef("stockade: 1\nsettings: { git: off }\n", "%s/only.yaml", fx.root);
        files[0] = P("%s/only.yaml", fx.root);
        files[1] = NULL;
        src.files = files;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->n_files, 1);
                CU_ASSERT_EQUAL(p->git, CORE_GIT_OFF);
                CU_ASSERT_EQUAL(p->n_lines, 0);
                CU_ASSERT_STRING_EQUAL(p->workspace, fx.ws); /* no workspace: in the file */
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* `include:` merges first, wherever the key stands. */
static void test_include_order(void)
{
        char fixture[PATH_MAX + 64];
        const char *files[] = { fixture, NULL };
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        snprintf(fixture, sizeof(fixture), "%s/t/policy-good/include-order.yaml", srcdir());
        src.files = files;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_NEVER);
                CU_ASSERT(p->n_lines == 2 && streq(p->lines[0].module, "part_line") &&
                          streq(p->lines[1].module, "own_line"));
                CU_ASSERT(p->n_files == 2 && strstr(p->files[1].value, "include-order-part.yaml"));
                CU_ASSERT(p->n_files == 2 && p->files[1].origin.line == 9 && p->files[1].origin.column == 11);
                CU_ASSERT(list_has(&p->hide, P("%s/.part", fx.home)));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* Tightening is always allowed in the user layer. */
static void test_user_tighten(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings:\n  hide: [~/.kube]\n  read_only: [\"${WORKSPACE}/.git\"]\n"
                    "  network: { mode: off, deny: [evil.example] }\n  private_tmp: true\n  approval: never\n"
                    "  protect: [.envrc]\n  audit: ~/audit.jsonl\n"
                    "stack:\n  - { phase: in-sandbox, control: required, module: net_seccomp }\n",
                    "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT(list_has(&p->hide, P("%s/.kube", fx.home)));
                CU_ASSERT(list_has(&p->read_only, P("%s/.git", fx.ws)));
                CU_ASSERT(list_has(&p->net_deny, "evil.example"));
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_NEVER);
                CU_ASSERT_EQUAL(p->approval_origin.layer, CORE_LAYER_USER);
                CU_ASSERT(p->n_lines == 2 && p->lines[1].origin.layer == CORE_LAYER_USER);
                CU_ASSERT(p->audit && streq(p->audit, P("%s/audit.jsonl", fx.home)));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* Loosening what the floor lists in overridable.user is allowed. */
static void test_user_loosen_granted(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings:\n  network: { mode: on }\n"
                    "  write: [\"${HOME}/.cache\"]\n  git: off\n  private_tmp: no\n  best_effort: [net_abstract]\n",
                    "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_EQUAL(p->network, STK_NET_ON);
                CU_ASSERT_EQUAL(p->network_origin.layer, CORE_LAYER_USER);
                CU_ASSERT_EQUAL(p->network_origin.line, 3);
                CU_ASSERT_EQUAL(p->network_origin.column, 20);
                CU_ASSERT(list_has(&p->write, P("%s/.cache", fx.home)));
                CU_ASSERT_EQUAL(p->git, CORE_GIT_OFF);
                CU_ASSERT_EQUAL(p->private_tmp, 0);
                CU_ASSERT_EQUAL(p->best_effort, STK_COVER_NET_ABSTRACT);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* approval.* (issue 13 §5): the user layer chooses its approver where the
 * lower layers grant approval.exec / approval.webhook. */
static void test_approval_user_chooses(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_EQUAL_FATAL(mkdir(P("%s/bin", fx.home), 0755), 0);
        write_filef("#!/bin/sh\n", "%s/bin/approver", fx.home);
        write_filef("stockade: 1\noverridable: { user: [approval, approval.exec, approval.webhook] }\n",
                    "%s/default.yaml", fx.system);
        write_filef("stockade: 1\nsettings:\n  approval: { mode: on-request, exec: ~/bin/approver, "
                    "webhook: \"https://approve.example/q\", tty: on, ask_limit: 10 }\n", "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_STRING_EQUAL(p->approval_exec, P("%s/bin/approver", fx.home));
                CU_ASSERT_EQUAL(p->approval_exec_origin.layer, CORE_LAYER_USER);
                CU_ASSERT_EQUAL(p->approval_exec_origin.line, 3);
                CU_ASSERT_STRING_EQUAL(p->approval_webhook, "https://approve.example/q");
                CU_ASSERT_EQUAL(p->approval_tty, CORE_APPROVAL_TTY_ON);
                CU_ASSERT_EQUAL(p->approval_ask_limit, 10);
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_ON_REQUEST);
        }
        core_policy_free(p);
        /* the scalar form still sets the mode alone */
        write_filef("stockade: 1\nsettings: { approval: never }\n", "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval == STK_APPROVAL_NEVER && !p->approval_exec && p->approval_tty == CORE_APPROVAL_TTY_AUTO &&
                  p->approval_ask_limit == CORE_APPROVAL_ASK_LIMIT_DEFAULT);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* One user file, expected to fail naming `want`. */
static void expect_user_refused(struct fx *fx, const char *user_file, const char *want)
{
        struct core_policy_sources src = fx_src(fx);
        struct core_policy *p = NULL;
        int r;

        write_filef(user_file, "%s/default.yaml", fx->user);
        r = fx_load(fx, &src, &p);
        CHECK(r == -EINVAL && fx->diag && strstr(fx->diag, want), "%s: %d: %s", user_file, r, fx->diag);
        core_policy_free(p);
}

/* Without the grants, a user may only tighten: no approver of its own, no
 * terminal where there was none, no more questions. */
static void test_approval_user_refused(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        write_filef("stockade: 1\noverridable: { user: [] }\nsettings: { approval: { tty: auto } }\n",
                    "%s/default.yaml", fx.system);
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { exec: /bin/true } }\n",
                            "overridable: { user: [approval.exec] }");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { webhook: \"https://x.example/\" } }\n",
                            "overridable: { user: [approval.webhook] }");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { tty: on } }\n", "\"approval.tty\" asks on");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { ask_limit: 4 } }\n", "approval.ask_limit");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { ask_limit: 0 } }\n", "1..100");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { tty: maybe } }\n", "one of off, auto, on");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { exec: \"\" } }\n", "empty approval.exec");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { ask: me } }\n", "ask");
        /* tightening needs no grant */
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings: { approval: { tty: off, ask_limit: 1 } }\n", "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval_tty == CORE_APPROVAL_TTY_OFF && p->approval_ask_limit == 1);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* approval.mcp off in the system layer forbids approval_mcp: a user
 * without the grant cannot turn it back on. */
static void test_approval_mcp_forbidden(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval_mcp == 1); /* on unless a layer says off */
        core_policy_free(p);
        p = NULL;
        write_filef("stockade: 1\noverridable: { user: [] }\nsettings: { approval: { mcp: off } }\n",
                    "%s/default.yaml", fx.system);
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { mcp: on } }\n", "\"approval.mcp\" asks");
        expect_user_refused(&fx, "stockade: 1\nsettings: { approval: { mcp: maybe } }\n", "one of off, on");
        write_filef("stockade: 1\nsettings: { approval: { mcp: off } }\n", "%s/default.yaml", fx.user);
        src = fx_src(&fx);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval_mcp == 0);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* A repository never picks who approves, whatever the user grants it. */
static void test_approval_project_refused(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\noverridable: { user: [approval.exec, approval.webhook] }\n", "%s/default.yaml",
                    fx.system);
        write_filef("stockade: 1\noverridable: { project: [approval.exec] }\n", "%s/default.yaml", fx.user);
        write_filef("stockade: 1\nsettings: { approval: { exec: /bin/true } }\n", "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == -EINVAL && strstr(fx.diag, "\"approval.exec\" in the project layer"), "%d: %s", r, fx.diag);
        core_policy_free(p);
        p = NULL;
        write_filef("stockade: 1\nsettings: { approval: { tty: off } }\n", "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval_tty == CORE_APPROVAL_TTY_OFF);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* approval.tty auto asks nobody in an agent's session (`stockade sh`, mcp,
 * serve); on does. */
static void test_approval_tty_session(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->approval_tty == CORE_APPROVAL_TTY_AUTO && core_approval_tty_asks(p));
        core_policy_free(p);
        src.session = 1;
        r = fx_load(&fx, &src, &p);
        CU_ASSERT(r == 0 && p && !core_approval_tty_asks(p));
        core_policy_free(p);
        write_filef("stockade: 1\nsettings: { approval: { tty: on } }\n", "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && core_approval_tty_asks(p));
        core_policy_free(p);
        fx_teardown(&fx);
}

/* A system file can grant "stack"; then a user's sufficient line is fine. */
static void test_user_stack_granted(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\noverridable: { user: [stack] }\nsettings: { workspace: \"${CWD}\" }\n",
                    "%s/default.yaml", fx.system);
        write_filef("stockade: 1\nstack:\n  - { phase: permission, control: sufficient, module: approval_tty }\n",
                    "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        /* after the built-in's line (the system file layers over it) */
        CU_ASSERT(p && p->n_lines == 2 && p->lines[1].control == CORE_SUFFICIENT);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* A project may add hidden paths, read-only islands, denied hosts and
 * required lines of its own. */
static void test_project_tighten(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings:\n  hide: [~/.kube]\n  read_only: [\"${WORKSPACE}/vendor\"]\n"
                    "  network: { deny: [evil.example], mode: off }\n  git: whole\n  approval: never\n"
                    "  write: [\"${WORKSPACE}\"]\n"
                    "stack:\n  - phase: permission\n    control: requisite\n    module: perm_rules\n"
                    "    args: { deny: [\"git push *\"] }\n",
                    "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT(list_has(&p->hide, P("%s/.kube", fx.home)));
                CU_ASSERT(list_has(&p->read_only, P("%s/vendor", fx.ws)));
                CU_ASSERT_EQUAL(p->write.n, 1); /* the same root again is no addition */
                CU_ASSERT_EQUAL(p->approval, STK_APPROVAL_NEVER);
                CU_ASSERT_EQUAL_FATAL(p->n_lines, 2);
                CU_ASSERT_EQUAL(p->lines[1].origin.layer, CORE_LAYER_PROJECT);
                CU_ASSERT_STRING_EQUAL(p->lines[1].origin.file, P("%s/.stockade.yaml", fx.ws));
                CU_ASSERT_EQUAL(p->lines[1].args[0].origin.layer, CORE_LAYER_PROJECT);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* A user can pass on a key it holds; then the project may loosen it. */
static void test_project_granted_by_user(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings:\n  network: { allow: [registry.npmjs.org] }\n",
                    "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == -EINVAL && strstr(fx.diag, ".stockade.yaml:3:22: error: the project layer may only tighten"),
              "ungranted: %d: %s", r, fx.diag);
        core_policy_free(p);
        p = NULL;
        /* an allow list means something only beside a proxy (policy_enforced.c) */
        /* a copy: the system layer's files pass the trust rule, and a clone
         * made under umask 002 is group-writable */
        copy_file(P("%s/t/policy-good/base.yaml", srcdir()), P("%s/base.yaml", fx.system));
        write_filef("stockade: 1\ninclude: [base.yaml]\nsettings: { network: { mode: proxy } }\n"
                    "stack: [{ phase: egress, control: required, module: net_proxy }]\n", "%s/default.yaml", fx.system);
        write_filef("stockade: 1\noverridable: { project: [network.allow] }\n", "%s/default.yaml", fx.user);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "granted: %d: %s", r, fx.diag);
        CU_ASSERT(p && list_has(&p->net_allow, "registry.npmjs.org"));
        CU_ASSERT(p && p->overridable_project_origin.layer == CORE_LAYER_USER);
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_project_include_inside(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(mkdir(P("%s/policy", fx.ws), 0755) == 0);
        write_filef("stockade: 1\nsettings: { hide: [~/.extra] }\n", "%s/policy/extra.yaml", fx.ws);
        write_filef("stockade: 1\ninclude: [policy/extra.yaml]\n", "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT(list_has(&p->hide, P("%s/.extra", fx.home)));
                CU_ASSERT(p->n_files == 3 && p->files[2].origin.layer == CORE_LAYER_PROJECT);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* Includes out of the workspace give the same answer whether the file
 * exists or not (no oracle), and a symlink inside that points outside is
 * refused too. */
static void test_project_include_no_oracle(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(symlink(P("%s/secret.yaml", fx.root), P("%s/link.yaml", fx.ws)) == 0);
        write_filef("stockade: 1\ninclude:\n  - /nonexistent/x.yaml\n  - ../secret.yaml\n  - link.yaml\n"
                    "  - sub/../../secret.yaml\n", "%s/.stockade.yaml", fx.ws);
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, ":3:5: error: include \"/nonexistent/x.yaml\" is outside the workspace"), "%s", fx.diag);
        CHECK(strstr(fx.diag, ":4:5: error: include \"../secret.yaml\" is outside the workspace"), "%s", fx.diag);
        CHECK(strstr(fx.diag, ":5:5: error: include \"link.yaml\" is outside the workspace"), "%s", fx.diag);
        CHECK(strstr(fx.diag, ":6:5: error: include \"sub/../../secret.yaml\" is outside the workspace"), "%s", fx.diag);
        CHECK(!strstr(fx.diag, "No such file") && !strstr(fx.diag, SECRET), "%s", fx.diag);
        fx_teardown(&fx);
}

/* .stockade.yaml as a symlink out of the workspace is refused unread. */
static void test_project_symlink_outside(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(symlink(P("%s/secret.yaml", fx.root), P("%s/.stockade.yaml", fx.ws)) == 0);
        r = fx_load(&fx, &src, &p);
        CU_ASSERT_EQUAL(r, -EINVAL);
        CHECK(strstr(fx.diag, "resolves outside the workspace"), "%s", fx.diag);
        CHECK(!strstr(fx.diag, SECRET), "quoted: %s", fx.diag);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* A FIFO must neither hang the load nor be read. */
static void test_project_fifo(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        CU_ASSERT_FATAL(mkfifo(P("%s/.stockade.yaml", fx.ws), 0644) == 0);
        r = fx_load(&fx, &src, &p);
        CU_ASSERT_EQUAL(r, -EINVAL);
        CHECK(strstr(fx.diag, ".stockade.yaml: error: cannot read policy file: not a regular file"), "%s", fx.diag);
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_no_project(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        src.no_project = 1;
        write_filef("stockade: 1\nsettings: { write: [/] }\n", "%s/.stockade.yaml", fx.ws);
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && p->n_files == 1);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* ---- variables and paths ------------------------------------------------- */

static void test_variables(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        const char *files[2];
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        /* ~/.ssh is a symlink: its target is hidden, and the link itself too,
         * so that it cannot be replaced by a real directory. */
        CU_ASSERT_FATAL(mkdir(P("%s/ssh-real", fx.home), 0700) == 0);
        CU_ASSERT_FATAL(symlink("ssh-real", P("%s/.ssh", fx.home)) == 0);
        write_filef("stockade: 1\nsettings:\n  workspace: ${CWD}\n"
                    "  write: [\"${WORKSPACE}\", \"${TMPDIR}/build\", ~/cache, \"${CWD}\", \"${WORKSPACE}//\"]\n"
                    "  hide: [\"${HOME}/.ssh\", ~/.ssh/, ~/ssh-real]\n  audit: ~/audit.jsonl\n"
                    "stack:\n  - phase: permission\n    control: required\n    module: perm_rules\n"
                    "    args: { deny: [\"rm -rf $$HOME\", \"${WORKSPACE}/x\"], mode: \"${TMPDIR}\", home: ~ }\n",
                    "%s/vars.yaml", fx.root);
        files[0] = P("%s/vars.yaml", fx.root);
        files[1] = NULL;
        src.files = files;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (!p) {
                fx_teardown(&fx);
                return;
        }
        CU_ASSERT_EQUAL_FATAL(p->write.n, 3);
        CU_ASSERT_STRING_EQUAL(p->write.items[0].value, fx.ws);
        CU_ASSERT_STRING_EQUAL(p->write.items[1].value, P("%s/build", fx.tmp));
        CU_ASSERT_STRING_EQUAL(p->write.items[2].value, P("%s/cache", fx.home));
        CU_ASSERT(p->hide.n == 2 && streq(p->hide.items[0].value, P("%s/ssh-real", fx.home)) &&
                  streq(p->hide.items[1].value, P("%s/.ssh", fx.home)));
        CU_ASSERT(p->audit && streq(p->audit, P("%s/audit.jsonl", fx.home)));
        const struct core_arg *a = p->lines[0].args;
        CU_ASSERT_EQUAL_FATAL(p->lines[0].n_args, 3);
        CU_ASSERT_STRING_EQUAL(a[0].list[0], "rm -rf $HOME");
        CU_ASSERT_STRING_EQUAL(a[0].list[1], P("%s/x", fx.ws));
        CU_ASSERT_STRING_EQUAL(a[1].scalar, fx.tmp);
        CU_ASSERT_STRING_EQUAL(a[2].scalar, fx.home);
        core_policy_free(p);
        fx_teardown(&fx);
}

/* --workspace beats the files' `workspace: ${CWD}`, and ${WORKSPACE}
 * follows it. */
static void test_cli_workspace_wins(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        src.cwd = fx.tmp;
        src.no_project = 1;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        CU_ASSERT(p && streq(p->workspace, fx.tmp) && streq(p->write.items[0].value, fx.tmp));
        core_policy_free(p);
        p = NULL;
        src.workspace_from_cli = 1;
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_STRING_EQUAL(p->workspace, fx.ws);
                CU_ASSERT_EQUAL(p->workspace_origin.layer, CORE_LAYER_CLI);
                CU_ASSERT_STRING_EQUAL(p->workspace_origin.file, "<command line>");
                CU_ASSERT_STRING_EQUAL(p->write.items[0].value, fx.ws);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_cli_audit(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings: { audit: ~/user-audit.jsonl }\n", "%s/default.yaml", fx.user);
        src.cli_audit = P("%s/logs/a$b.jsonl", fx.root); /* not expanded: it is not file text */
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT_STRING_EQUAL(p->audit, P("%s/logs/a$b.jsonl", fx.root));
                CU_ASSERT_EQUAL(p->audit_origin.layer, CORE_LAYER_CLI);
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

static void test_workspace_not_directory(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;

        fx_setup(&fx);
        src = fx_src(&fx);
        write_filef("stockade: 1\nsettings: { workspace: ~/missing }\n", "%s/default.yaml", fx.system);
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, "default.yaml:2:24: error: workspace ") && strstr(fx.diag, "not an existing directory"),
              "%s", fx.diag);
        fx_teardown(&fx);
}

/* A hostile project must not make the load slow: diamond includes and huge
 * lists are bounded (each took seconds to minutes before the caps). */
static void test_limits(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        char *text = NULL;
        size_t len = 0;
        FILE *m;
        struct fx fx;

        fx_setup(&fx);
        src = fx_src(&fx);
        /* Every level includes the next one 20 times: 20^8 reads uncapped. */
        for (int level = 0; level < 8; level++) {
                char inc[64];
                m = open_memstream(&text, &len);
                CU_ASSERT_PTR_NOT_NULL_FATAL(m);
                fputs("stockade: 1\ninclude: [", m);
                snprintf(inc, sizeof(inc), "d%d.yaml", level + 1);
                for (int i = 0; i < 20; i++)
                        fprintf(m, "%s%s", i ? ", " : "", inc);
                fputs("]\n", m);
                fclose(m);
                if (level)
                        write_filef(text, "%s/d%d.yaml", fx.ws, level);
                else
                        write_filef(text, "%s/.stockade.yaml", fx.ws);
                free(text);
                text = NULL;
        }
        write_filef("stockade: 1\n", "%s/d8.yaml", fx.ws);
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, "more than 256 policy files"), "%s", fx.diag);

        m = open_memstream(&text, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        fputs("stockade: 1\nsettings:\n  hide: [", m);
        for (int i = 0; i < 5000; i++)
                fprintf(m, "%s/x%d", i ? ", " : "", i);
        fputs("]\n", m);
        fclose(m);
        write_filef(text, "%s/.stockade.yaml", fx.ws);
        free(text);
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, "more than 4096 items in \"hide\""), "%s", fx.diag);
        CU_ASSERT_PTR_NULL(p);
        fx_teardown(&fx);
}

static char *read_text(const char *path)
{
        char *text = NULL;
        size_t len = 0;
        FILE *in = fopen(path, "re");

        if (!in)
                return NULL;
        if (getdelim(&text, &len, '\0', in) < 0) {
                free(text);
                text = NULL;
        }
        fclose(in);
        return text;
}

/* The man page's examples are fixtures too: they must load, and the
 * fixtures must still be what the page shows. */
static void check_in_man(const char *man, const char *fixture)
{
        _cleanup_free_ char *text = read_text(P("%s/t/policy-good/%s", srcdir(), fixture));
        char *save = NULL;

        CHECK(text, "%s is missing", fixture);
        for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
                if (strncmp(l, "# The ", 6) != 0)
                        CHECK(strstr(man, l), "%s: line \"%s\" is not in man/stockade.yaml.5", fixture, l);
}

static void test_man_examples(void)
{
        _cleanup_free_ char *man = read_text(P("%s/man/stockade.yaml.5", srcdir()));
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;
        int r;

        CU_ASSERT_PTR_NOT_NULL_FATAL(man);
        for (char *w = man, *c = man; ; c++) { /* roff "\-" is a "-" in the text */
                if (c[0] == '\\' && c[1] == '-')
                        c++;
                if (!(*w++ = *c))
                        break;
        }
        check_in_man(man, "man-synopsis.yaml");
        check_in_man(man, "man-user.yaml");
        check_in_man(man, "man-project.yaml");

        fx_setup(&fx);
        src = fx_src(&fx);
        src.profile = "proxy";
        src.builtin_dir = P("%s/etc", srcdir());
        copy_file(P("%s/t/policy-good/man-user.yaml", srcdir()), P("%s/proxy.yaml", fx.user));
        copy_file(P("%s/t/policy-good/man-project.yaml", srcdir()), P("%s/.stockade.yaml", fx.ws));
        r = fx_load(&fx, &src, &p);
        CHECK(r == 0, "%d: %s", r, fx.diag);
        if (p) {
                CU_ASSERT(list_has(&p->net_allow, "registry.npmjs.org"));
                CU_ASSERT(list_has(&p->hide, P("%s/.cache/pip", fx.home)));
                CU_ASSERT_EQUAL(p->network, STK_NET_PROXY);
                CU_ASSERT(has_line(p, STK_PHASE_PERMISSION, CORE_REQUISITE, "perm_rules"));
        }
        core_policy_free(p);
        fx_teardown(&fx);
}

/* ---- profiles, names ----------------------------------------------------- */

static void test_unknown_profile(void)
{
        struct core_policy_sources src;
        struct core_policy *p = NULL;
        struct fx fx;

        fx_setup(&fx);
        src = fx_src(&fx);
        src.profile = "nope";
        src.builtin_dir = NULL;
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, "unknown profile \"nope\"") && strstr(fx.diag, "<builtin>/nope.yaml") &&
              strstr(fx.diag, P("%s/nope.yaml", fx.system)), "%s", fx.diag);
        src.profile = "../default";
        CU_ASSERT_EQUAL(fx_load(&fx, &src, &p), -EINVAL);
        CHECK(strstr(fx.diag, "bad profile name \"../default\""), "%s", fx.diag);
        CU_ASSERT_PTR_NULL(p);
        fx_teardown(&fx);
}

static void test_names(void)
{
        enum stk_phase ph;
        enum core_control c;
        enum core_key k;
        uint32_t bit = 0;

        for (int i = 0; i < STK_PHASE_MAX; i++)
                CU_ASSERT(core_phase_from_string(core_phase_name(i), &ph) == 0 && ph == (enum stk_phase) i);
        CU_ASSERT_STRING_EQUAL(core_phase_name(STK_PHASE_PRE_EXEC), "pre-exec");
        CU_ASSERT_STRING_EQUAL(core_phase_name(STK_PHASE_IN_SANDBOX), "in-sandbox");
        CU_ASSERT_EQUAL(core_phase_from_string("pre_exec", &ph), -EINVAL);
        for (int i = 0; i < CORE_CONTROL_MAX; i++)
                CU_ASSERT(core_control_from_string(core_control_name(i), &c) == 0 && c == (enum core_control) i);
        CU_ASSERT_EQUAL(core_control_from_string("Required", &c), -EINVAL);
        for (int i = 0; i < CORE_KEY_MAX; i++)
                CU_ASSERT(core_key_from_string(core_key_name(i), &k) == 0 && k == (enum core_key) i);
        CU_ASSERT_STRING_EQUAL(core_key_name(CORE_KEY_NET_MODE), "network.mode");
        for (int i = 0; i <= 10; i++)
                CU_ASSERT(core_cover_from_string(core_cover_name(1u << i), &bit) == 0 && bit == 1u << i);
        CU_ASSERT(core_cover_from_string("net_unix", &bit) == 0 && bit == STK_COVER_NET_UNIX);
        CU_ASSERT(core_cover_from_string("caps", &bit) == 0 && bit == STK_COVER_CAPS);
        CU_ASSERT_EQUAL(core_cover_from_string("everything", &bit), -EINVAL);
        CU_ASSERT_STRING_EQUAL(core_cover_name(STK_COVER_WRITE | STK_COVER_HIDE), "?");
        CU_ASSERT_STRING_EQUAL(core_layer_name(CORE_LAYER_PROJECT), "project");
        CU_ASSERT_STRING_EQUAL(core_layer_name(CORE_LAYER_MAX), "?");
        CU_ASSERT_STRING_EQUAL(core_git_name(CORE_GIT_SURFACES), "surfaces");
        CU_ASSERT_STRING_EQUAL(core_network_name(STK_NET_PROXY), "proxy");
        CU_ASSERT_STRING_EQUAL(core_approval_name(STK_APPROVAL_ON_REQUEST), "on-request");
        CU_ASSERT_PTR_NULL(core_policy_free(NULL));
}

static void test_diag_format(void)
{
        struct core_origin o = { .file = "p.yaml", .line = 4, .column = 3, .layer = CORE_LAYER_SYSTEM };
        char *buf = NULL;
        size_t len = 0;

        core_diag_stream = open_memstream(&buf, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(core_diag_stream);
        core_diag(&o, "unknown settings key \"%s\"; expected one of %s", "wirte", "write");
        core_diag(NULL, "no file");
        fclose(core_diag_stream);
        core_diag_stream = NULL;
        CU_ASSERT_STRING_EQUAL(buf, "p.yaml:4:3: error: unknown settings key \"wirte\"; expected one of write\n"
                                    "stockade: error: no file\n");
        free(buf);
}

UNIT_SUITE(test_policy,
           BAD_CASES(BAD_REGISTER)
           UNIT_TEST(test_collects_errors),
           UNIT_TEST(test_profile_default),
           UNIT_TEST(test_profile_workspace_write),
           UNIT_TEST(test_profile_ci),
           UNIT_TEST(test_profile_read_only),
           UNIT_TEST(test_profile_full_access),
           UNIT_TEST(test_profile_builtin_dir),
           UNIT_TEST(test_good_files),
           UNIT_TEST(test_everything),
           UNIT_TEST(test_system_layers_over_builtin),
           UNIT_TEST(test_site_dropins),
           UNIT_TEST(test_dropins_append),
           UNIT_TEST(test_files_replace_base),
           UNIT_TEST(test_include_order),
           UNIT_TEST(test_user_tighten),
           UNIT_TEST(test_user_loosen_granted),
           UNIT_TEST(test_user_stack_granted),
           UNIT_TEST(test_approval_user_chooses),
           UNIT_TEST(test_approval_user_refused),
           UNIT_TEST(test_approval_mcp_forbidden),
           UNIT_TEST(test_approval_project_refused),
           UNIT_TEST(test_approval_tty_session),
           UNIT_TEST(test_project_tighten),
           UNIT_TEST(test_project_granted_by_user),
           UNIT_TEST(test_project_include_inside),
           UNIT_TEST(test_project_include_no_oracle),
           UNIT_TEST(test_project_symlink_outside),
           UNIT_TEST(test_project_fifo),
           UNIT_TEST(test_no_project),
           UNIT_TEST(test_variables),
           UNIT_TEST(test_cli_workspace_wins),
           UNIT_TEST(test_cli_audit),
           UNIT_TEST(test_workspace_not_directory),
           UNIT_TEST(test_limits),
           UNIT_TEST(test_man_examples),
           UNIT_TEST(test_unknown_profile),
           UNIT_TEST(test_names),
           UNIT_TEST(test_diag_format))
