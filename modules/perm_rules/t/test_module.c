/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: patterns (grammar, errors, matching words known only at run
 * time), the pr_split API, allow lists and `default: ignore`, and the
 * module's hooks driven through a fake host (log lines, audit records,
 * explain text, policy errors naming the pattern).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "pr_internal.h"
#include "pr_wrap.h"
#include "unit.h"

/* ---- patterns ------------------------------------------------------------------ */

static void test_pattern_grammar(void)
{
        static const struct {
                const char *text;
                size_t n;
                bool rest;
                const char *globs[4];
        } rows[] = {
                { "rm -rf *", 2, true, { "rm", "-rf" } },
                { "*", 0, true, { NULL } },
                { "make", 1, false, { "make" } },
                { "  git   push  * ", 2, true, { "git", "push" } },
                { "'my prog' *", 1, true, { "my prog" } },
                { "echo \"*\"", 2, false, { "echo", "\\*" } },       /* quoted: a literal star */
                { "echo * *", 2, true, { "echo", "*" } },            /* only the last bare * is "rest" */
                { "a\\ b x", 2, false, { "a\\ b", "x" } },
                { "grep [[:alpha:]]x *", 2, true, { "grep", "[[:alpha:]]x" } },
        };

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct pr_pattern p;
                const char *why;
                CU_ASSERT_EQUAL_FATAL(pr_pattern_parse(rows[i].text, &p, &why), 0);
                CU_ASSERT_EQUAL(p.n, rows[i].n);
                CU_ASSERT_EQUAL(p.rest, rows[i].rest);
                for (size_t k = 0; k < p.n && k < rows[i].n; k++)
                        CU_ASSERT_STRING_EQUAL(p.globs[k], rows[i].globs[k]);
                CU_ASSERT_STRING_EQUAL(p.text, rows[i].text);
                pr_pattern_done(&p);
        }
}

static void test_pattern_errors(void)
{
        static const struct {
                const char *text, *why;
        } rows[] = {
                { "", "empty" }, { "   ", "empty" }, { "rm [abc", "unclosed [" }, { "rm x\\", "lone backslash" },
                { "'rm -rf", "unterminated quote" }, { "ls [[:alpha:", "unclosed [:" },
        };
        struct pr_pattern p;
        const char *why;

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                CU_ASSERT_EQUAL(pr_pattern_parse(rows[i].text, &p, &why), -EINVAL);
                CU_ASSERT(why && strstr(why, rows[i].why));
        }
        char many[3 * (PR_MAX_PATTERN_WORDS + 2)] = "";
        for (int i = 0; i < PR_MAX_PATTERN_WORDS + 1; i++)
                strcat(many, "x ");
        CU_ASSERT_EQUAL(pr_pattern_parse(many, &p, &why), -EINVAL);
}

static void test_rules_compile_errors(void)
{
        static const char *const bad[] = { "ok *", "rm [x", NULL };
        static const char *const good[] = { "ok *", NULL };
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL(pr_rules_compile(good, bad, good, NULL, &r, &err), -EINVAL);
        CU_ASSERT(err && strstr(err, "ask: pattern \"rm [x\"") && strstr(err, "unclosed ["));
        free(err);
        CU_ASSERT_EQUAL(pr_rules_compile(good, good, good, "maybe", &r, &err), -EINVAL);
        CU_ASSERT(err && strstr(err, "default: \"maybe\""));
        free(err);
        CU_ASSERT_EQUAL(pr_rules_compile(NULL, NULL, NULL, NULL, &r, &err), 0);
        CU_ASSERT_EQUAL(r.dflt, STK_ASK);      /* the default default */
        pr_rules_done(&r);
}

#define LIT(s) { (char *) (s), 0 }
#define DYN1(s) { (char *) (s), PR_W_DYN }
#define DYNN(s) { (char *) (s), PR_W_DYN | PR_W_SPLIT }

/* sure: matches whatever the expansions become; may: for some. */
static void test_pattern_match(void)
{
        static const struct {
                const char *pattern;
                struct pr_word w[4];
                size_t n;
                bool sure, may;
        } rows[] = {
                { "rm -rf *", { LIT("rm"), LIT("-rf"), LIT("/") }, 3, true, true },
                { "rm -rf *", { LIT("/bin/rm"), LIT("-rf") }, 2, true, true },
                { "rm -rf *", { LIT("rm"), LIT("-r") }, 2, false, false },
                { "rm -rf *", { LIT("rm"), DYNN("$X") }, 2, false, true },
                { "rm -rf *", { LIT("rm"), DYN1("\"$X\"") }, 2, false, true },
                { "rm -rf *", { LIT("rm"), LIT("-rf"), DYNN("$X") }, 3, true, true },
                { "rm -rf /", { LIT("rm"), DYNN("$X") }, 2, false, true },    /* $X may be "-rf /" */
                { "rm * x", { LIT("rm"), DYN1("\"$X\""), LIT("x") }, 3, true, true },
                { "rm * x", { LIT("rm"), DYNN("$X"), LIT("x") }, 3, false, true },
                { "make", { LIT("make"), DYNN("$X") }, 2, false, true },      /* $X may be empty */
                { "make", { LIT("make") }, 1, true, true },
                { "make", { LIT("make"), LIT("all") }, 2, false, false },
                { "/usr/bin/git *", { LIT("git") }, 1, false, false },
                { "/usr/bin/git *", { LIT("/usr/bin/git"), LIT("x") }, 2, true, true },
                { "g?t *", { LIT("/opt/bin/git") }, 1, true, true },
                { "* push *", { LIT("anything"), LIT("push") }, 2, true, true },
        };

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct pr_pattern p;
                const char *why;
                CU_ASSERT_EQUAL_FATAL(pr_pattern_parse(rows[i].pattern, &p, &why), 0);
                bool sure = pr_pattern_sure(&p, rows[i].w, rows[i].n), may = pr_pattern_may(&p, rows[i].w, rows[i].n);
                if (sure != rows[i].sure || may != rows[i].may)
                        fprintf(stderr, "\n  row %zu (%s): sure %d may %d", i, rows[i].pattern, sure, may);
                CU_ASSERT_EQUAL(sure, rows[i].sure);
                CU_ASSERT_EQUAL(may, rows[i].may);
                pr_pattern_done(&p);
        }
}

/* ---- pr_split ------------------------------------------------------------------ */

static void test_split(void)
{
        struct pr_cmdlist l = { 0 };

        CU_ASSERT_EQUAL_FATAL(pr_split("FOO=1 a 'b c'; d | e && echo $(f) \"$X\" $Y 2>&1 >out", &l), 0);
        CU_ASSERT_EQUAL_FATAL(l.n, 5);
        /* $(f) is seen first: it runs before the command holding it */
        CU_ASSERT_STRING_EQUAL(l.cmds[0].words[0].text, "a");
        CU_ASSERT_EQUAL(l.cmds[0].n_assigns, 1);
        CU_ASSERT_STRING_EQUAL(l.cmds[0].assigns[0], "FOO=1");
        CU_ASSERT_STRING_EQUAL(l.cmds[0].words[1].text, "b c");
        CU_ASSERT_EQUAL(l.cmds[0].words[1].flags, PR_W_QUOTED);
        CU_ASSERT_STRING_EQUAL(l.cmds[1].words[0].text, "d");
        CU_ASSERT_STRING_EQUAL(l.cmds[2].words[0].text, "e");
        CU_ASSERT_STRING_EQUAL(l.cmds[3].words[0].text, "f");
        CU_ASSERT_EQUAL_FATAL(l.cmds[4].n_words, 4);   /* redirections are not words */
        CU_ASSERT_EQUAL(l.cmds[4].words[2].flags & (PR_W_DYN | PR_W_SPLIT), PR_W_DYN);
        CU_ASSERT_EQUAL(l.cmds[4].words[3].flags & (PR_W_DYN | PR_W_SPLIT), PR_W_DYN | PR_W_SPLIT);
        pr_cmdlist_done(&l);

        CU_ASSERT_EQUAL_FATAL(pr_split("echo 'oops", &l), 0);
        CU_ASSERT_EQUAL_FATAL(l.n, 1);
        CU_ASSERT(l.cmds[0].opaque && strstr(l.cmds[0].opaque, "single quote"));
        pr_cmdlist_done(&l);

        CU_ASSERT_EQUAL_FATAL(pr_split("  # only a comment\n\n", &l), 0);
        CU_ASSERT_EQUAL(l.n, 0);
        pr_cmdlist_done(&l);
}

/* ---- allow lists and ignore ------------------------------------------------------- */

static enum stk_verdict verdict_of(const struct pr_rules *r, const char *const *argv)
{
        struct pr_result res;
        enum stk_verdict v;

        CU_ASSERT_EQUAL_FATAL(pr_decide(r, argv, &res), 0);
        v = res.verdict;
        pr_result_done(&res);
        return v;
}

#define V(r, ...) verdict_of(r, (const char *const[]){ __VA_ARGS__, NULL })

static void test_allow_list(void)
{
        static const char *const deny[] = { "git push *", NULL }, *const ask[] = { "npm *", NULL },
                                 *const allow[] = { "git *", "ls *", "make", "echo *", "/usr/local/bin/tool *", NULL };
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(deny, ask, allow, "deny", &r, &err), 0);
        CU_ASSERT_EQUAL(V(&r, "git", "status"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "/usr/bin/git", "log"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "gitk"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "make"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "make", "install"), STK_DENY);   /* no final *: counts must match */
        CU_ASSERT_EQUAL(V(&r, "ls"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "git", "push"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "npm", "install"), STK_ASK);
        CU_ASSERT_EQUAL(V(&r, "/usr/local/bin/tool", "x"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "tool", "x"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "/tmp/tool", "x"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "git status && ls -la | echo x"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "git status; cat x"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "git $X"), STK_ASK);      /* $X may be push */
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "ls $X"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "echo \"$(git rev-parse HEAD)\""), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "echo $(cat /etc/passwd)"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "env", "A=1", "git", "status"), STK_ALLOW);   /* env is transparent */
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", ""), STK_DENY);          /* nothing runs: the default */
        pr_rules_done(&r);
}

static void test_default_ignore(void)
{
        static const char *const deny[] = { "rm *", NULL }, *const allow[] = { "ls *", NULL };
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(deny, NULL, allow, "ignore", &r, &err), 0);
        CU_ASSERT_EQUAL(V(&r, "ls"), STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "foo"), STK_IGNORE);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "ls; foo"), STK_IGNORE);     /* ignore outranks allow */
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "foo; rm x"), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "sh", "-c", "foo; eval \"$x\""), STK_ASK);
        pr_rules_done(&r);
}

/* issue 16: Claude Code's per-command wrapper is judged as the command
 * it wraps, when its snapshot is in trusted_sources; the same shape with
 * any other file sourced is not. */
static void test_client_wrapper(void)
{
        static const char *const deny[] = { "rm -rf *", NULL }, *const allow[] = { "ls *", "git status", NULL },
                                 *const trusted[] = { "~/.claude/shell-snapshots/*", NULL };
#define WRAP(snap, cmd) "source " snap " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" \
        cmd "' < /dev/null && pwd -P >| $CLAUDE_CODE_TMPDIR/claude-a1b2-cwd"
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(deny, NULL, allow, "ask", &r, &err), 0);
        CU_ASSERT_EQUAL_FATAL(pr_rules_options(&r, trusted, "/home/u", NULL, &err), 0);
        CU_ASSERT_TRUE(pr_rules_trusted(&r, "/home/u/.claude/shell-snapshots/snapshot-bash-1-x.sh"));
        CU_ASSERT_FALSE(pr_rules_trusted(&r, "/home/u/.claude/shell-snapshots/../settings.sh"));
        CU_ASSERT_FALSE(pr_rules_trusted(&r, "/home/u/.claude/shell-snapshots/a/b.sh"));
        CU_ASSERT_FALSE(pr_rules_trusted(&r, "/work/.claude/shell-snapshots/x.sh"));
        CU_ASSERT_EQUAL(V(&r, "bash", "-c", WRAP("/home/u/.claude/shell-snapshots/snapshot-bash-1-x.sh", "ls -la")),
                        STK_ALLOW);
        CU_ASSERT_EQUAL(V(&r, "bash", "-c", WRAP("/home/u/.claude/shell-snapshots/snapshot-bash-1-x.sh",
                                                 "git status && rm -rf /")), STK_DENY);
        CU_ASSERT_EQUAL(V(&r, "bash", "-c", WRAP("/home/u/.claude/shell-snapshots/snapshot-bash-1-x.sh",
                                                 "make")), STK_ASK);
        CU_ASSERT_EQUAL(V(&r, "bash", "-c", WRAP("/work/evil.sh", "ls")), STK_ASK);   /* not trusted */
        CU_ASSERT_EQUAL(V(&r, "bash", "-c", "source /home/u/.claude/shell-snapshots/s.sh; true; eval ls; "
                                            "pwd -P; rm -rf /"), STK_DENY);           /* another shape */
        CU_ASSERT_EQUAL(pr_rules_options(&r, (const char *const[]){ "relative/*", NULL }, "/home/u", NULL, &err),
                        -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(err);
        free(err);
        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(deny, NULL, allow, "ask", &r, &err), 0);
        CU_ASSERT_EQUAL(pr_rules_options(&r, NULL, NULL, "sometimes", &err), -EINVAL);
        free(err);
#undef WRAP
}

/* ---- the module through a fake host -------------------------------------------------- */

struct stk_ctx {
        const char *const *deny, *const *ask, *const *allow;
        const char *dflt;
        void *data;
        char log[8192];
        char *audit;
};

static const char *const none[] = { NULL };

static void fake_log(struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
{
        size_t len = strlen(ctx->log);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(ctx->log + len, sizeof(ctx->log) - len, fmt, ap);
        va_end(ap);
        len = strlen(ctx->log);
        snprintf(ctx->log + len, sizeof(ctx->log) - len, "\n");
}

static const char *const *fake_arg_list(struct stk_ctx *ctx, const char *name)
{
        const char *const *l = !strcmp(name, "deny") ? ctx->deny : !strcmp(name, "ask") ? ctx->ask
                             : !strcmp(name, "allow") ? ctx->allow : NULL;
        return l ? l : none;
}

static const char *fake_arg_string(struct stk_ctx *ctx, const char *name)
{
        return strcmp(name, "default") == 0 ? ctx->dflt : NULL;
}

static void *fake_data(struct stk_ctx *ctx)
{
        return ctx->data;
}

static int fake_audit(struct stk_ctx *ctx, const char *kind, const char *json)
{
        CU_ASSERT_STRING_EQUAL(kind, "perm_rules");
        free(ctx->audit);
        ctx->audit = strdup(json);
        return 0;
}

static const struct stk_host fake_host = {
        .size = sizeof(struct stk_host), .abi_minor = STK_ABI_MINOR, .log = fake_log,
        .arg_string = fake_arg_string, .arg_list = fake_arg_list, .data = fake_data, .audit = fake_audit,
};

extern const struct stk_module stockade_module;

static void test_module_descriptor(void)
{
        const struct stk_module *m = &stockade_module;
        size_t n = 0;

        CU_ASSERT_EQUAL(m->magic, STK_MODULE_MAGIC);
        CU_ASSERT_STRING_EQUAL(m->name, "perm_rules");
        CU_ASSERT_PTR_NOT_NULL(m->permission);
        CU_ASSERT_PTR_NOT_NULL(m->explain);
        CU_ASSERT_PTR_NULL(m->pre_exec);
        for (const struct stk_arg_spec *a = m->args; a->name; a++)
                n += !strcmp(a->name, "deny") || !strcmp(a->name, "ask") || !strcmp(a->name, "allow") ||
                     !strcmp(a->name, "default");
        CU_ASSERT_EQUAL(n, 4);
}

static void test_module_decides_logs_audits(void)
{
        static const char *const deny[] = { "rm -rf *", NULL }, *const allow[] = { "git *", NULL };
        static const char *const argv[] = { "sh", "-c", "git status; rm -rf /", NULL };
        static const char *const argv_ok[] = { "git", "status", NULL };
        struct stk_ctx ctx = { .deny = deny, .ask = none, .allow = allow, .dflt = "deny" };
        struct stk_request req = { argv, "/", "test" };
        enum stk_verdict v = STK_VERDICT_UNSET;
        uint32_t covers = 123;
        const struct stk_module *m = &stockade_module;

        CU_ASSERT_EQUAL_FATAL(m->init(&ctx, &fake_host, &ctx.data), 0);
        CU_ASSERT_EQUAL(m->probe(&ctx, &covers), 0);
        CU_ASSERT_EQUAL(covers, 0);
        CU_ASSERT_EQUAL(m->permission(&ctx, &req, &v), 0);
        CU_ASSERT_EQUAL(v, STK_DENY);
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "deny: rm -rf / <- deny \"rm -rf *\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(ctx.log, "allow: git status <- allow \"git *\""));
        CU_ASSERT_PTR_NOT_NULL_FATAL(ctx.audit);
        struct json_object *o = json_tokener_parse(ctx.audit), *cmds, *e;
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(o, "verdict")), "deny");
        cmds = json_object_object_get(o, "commands");
        CU_ASSERT_EQUAL_FATAL(json_object_array_length(cmds), 2);
        e = json_object_array_get_idx(cmds, 1);
        CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(e, "command")), "rm -rf /");
        CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(e, "rule")), "deny \"rm -rf *\"");
        json_object_put(o);

        req.argv = argv_ok;
        CU_ASSERT_EQUAL(m->permission(&ctx, &req, &v), 0);
        CU_ASSERT_EQUAL(v, STK_ALLOW);

        char *text = NULL;
        CU_ASSERT_EQUAL(m->explain(&ctx, &text), 0);
        CU_ASSERT(text && strstr(text, "deny   \"rm -rf *\"") && strstr(text, "allow  \"git *\"") &&
                  strstr(text, "default deny"));
        free(text);
        m->fini(ctx.data);
        free(ctx.audit);
}

/* A bad pattern fails init (a policy error) and its log line names it; a
 * line that was never probed fails closed in permission. */
static void test_module_policy_errors(void)
{
        static const char *const bad_glob[] = { "rm [abc", NULL }, *const empty[] = { "", NULL };
        static const char *const argv[] = { "ls", NULL };
        const struct stk_module *m = &stockade_module;
        struct stk_ctx c1 = { .deny = bad_glob }, c2 = { .allow = empty }, c3 = { .dflt = "sometimes" };
        struct stk_ctx good = { .dflt = "allow" }, unprobed = { .deny = bad_glob };
        struct stk_request req = { argv, "/", "test" };
        enum stk_verdict v = STK_VERDICT_UNSET;
        void *data = NULL;

        CU_ASSERT_EQUAL(m->init(&c1, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(c1.log, "deny: pattern \"rm [abc\" has an unclosed ["));
        CU_ASSERT_EQUAL(m->init(&c2, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(c2.log, "allow: pattern \"\" is empty"));
        CU_ASSERT_EQUAL(m->init(&c3, &fake_host, &data), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(c3.log, "default: \"sometimes\""));

        CU_ASSERT_EQUAL_FATAL(m->init(&good, &fake_host, &good.data), 0);
        unprobed.data = good.data;
        CU_ASSERT_EQUAL(m->permission(&unprobed, &req, &v), -EINVAL);
        uint32_t covers;
        CU_ASSERT_EQUAL(m->probe(&unprobed, &covers), -EINVAL);
        m->fini(good.data);
        free(good.audit);
        free(unprobed.audit);
}

static char *read_man_page(void)
{
        char path[512], *text = NULL;
        size_t len = 0;
        FILE *f, *m;

        snprintf(path, sizeof(path), "%.*s/../stockade-perm_rules.8", (int) (strrchr(__FILE__, '/') - __FILE__), __FILE__);
        f = fopen(path, "re");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        m = open_memstream(&text, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        for (int c; (c = fgetc(f)) != EOF;)
                if (c != '\\')       /* roff escapes: \- is - */
                        fputc(c, m);
        fclose(f);
        CU_ASSERT_EQUAL_FATAL(fclose(m), 0);
        return text;
}

/* The man page names every wrapper and shell the code sees through, and
 * each one is really seen through. */
static void test_man_page_lists_wrappers(void)
{
        char *man = read_man_page();

        for (size_t i = 0; i < pr_n_wrappers; i++) {
                const struct pr_wrapper *wr = &pr_wrappers[i];
                const char *name = wr->name;
                struct pr_word w[8] = { { (char *) name, 0 } };
                size_t n = 1;
                struct pr_unwrap u;
                char b[64], br[64], brq[64];
                snprintf(b, sizeof(b), "\n.B %s\n", name);
                snprintf(br, sizeof(br), "\n.BR %s ", name);
                snprintf(brq, sizeof(brq), "\n.BR \"%s ", name);
                if (!strstr(man, b) && !strstr(man, br) && !strstr(man, brq))
                        fprintf(stderr, "\n  wrapper %s is not in the man page", name);
                CU_ASSERT(strstr(man, b) || strstr(man, br) || strstr(man, brq));
                if (wr->sub)
                        w[n++] = (struct pr_word){ (char *) wr->sub, 0 };
                for (unsigned k = 0; k < wr->operands; k++)
                        w[n++] = (struct pr_word){ (char *) "5", 0 };
                w[n++] = (struct pr_word){ (char *) "true", 0 };
                CU_ASSERT_EQUAL(pr_unwrap(w, n, &u), 0);
                bool joined = (wr->flags & W_JOINED) != 0;
                if (wr->flags & W_STRING_ONLY) {   /* script: only its -c string runs */
                        CU_ASSERT_EQUAL(u.kind, PR_UNWRAP_OPAQUE);
                        continue;
                }
                CU_ASSERT(u.kind == (joined ? PR_UNWRAP_SHELL : PR_UNWRAP_INNER) && u.joined == joined &&
                          u.start == n - 1);
                if (u.start != n - 1)
                        fprintf(stderr, "\n  wrapper %s: the command is not found", name);
        }
        for (const char *const *s = pr_parsed_shells; *s; s++) {
                struct pr_word w[] = { { (char *) *s, 0 }, { (char *) "-c", 0 }, { (char *) "ls", 0 } };
                struct pr_shell sh;
                pr_shell_args(w, 3, &sh);
                CU_ASSERT(sh.kind == PR_SHELL_STRING && sh.script == 2);
        }
        free(man);
}

UNIT_SUITE(perm_rules_module,
           UNIT_TEST(test_pattern_grammar),
           UNIT_TEST(test_pattern_errors),
           UNIT_TEST(test_rules_compile_errors),
           UNIT_TEST(test_pattern_match),
           UNIT_TEST(test_split),
           UNIT_TEST(test_allow_list),
           UNIT_TEST(test_default_ignore),
           UNIT_TEST(test_client_wrapper),
           UNIT_TEST(test_module_descriptor),
           UNIT_TEST(test_module_decides_logs_audits),
           UNIT_TEST(test_module_policy_errors),
           UNIT_TEST(test_man_page_lists_wrappers))
