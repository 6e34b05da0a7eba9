/* SPDX-License-Identifier: MIT */
/*
 * perm_rules, issue 14: tool grammars (global options, git-<sub>,
 * send-pack), flag sets, configuration injection, wrappers as data,
 * code-running options, interpreters, value-aware environment rules and
 * the false positives removed, under rules shaped like the agent profile's
 * (default allow: whatever the parser misses would be allowed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"
#include "pr_wrap.h"
#include "unit.h"

#define A STK_ALLOW
#define D STK_DENY
#define Q STK_ASK

static const char *const deny[] = { "git push {--force} *", "git push {--mirror} *", "git push {--delete} *",
                                    "rm {-r,-f,/} *", "dd {of=/dev/*}", "find {-delete}", NULL };
static const char *const ask[] = { "git push *", "rm {-r,-f} *", "npm publish *", "pnpm publish *",
                                   "yarn npm publish *", "cargo publish *", "sudo *", "docker run {--privileged} *",
                                   "kubectl delete *", NULL };

struct row {
        enum stk_verdict want;
        const char *cmd;   /* a bash -c string */
};

static const struct row rows[] = {
        /* git: global options before the subcommand */
        { D, "git -C . push --force origin main" }, { D, "git --no-pager push -f" }, { D, "git -P push -f" },
        { D, "git --git-dir=.git --work-tree=. push -f" }, { D, "git -c color.ui=never push -f" },
        { D, "git --literal-pathspecs push --force" }, { Q, "git -C . push origin main" },
        { A, "git -C . status" }, { A, "git -c user.name=x -c user.email=y commit -m wip" },
        /* force-push spellings (issue 14 clarifications), deletions */
        { D, "git push origin main -f" }, { D, "git push origin +main" }, { D, "git push origin +main:main" },
        { D, "git push --force-with-lease" }, { D, "git push --force-with-lease=main:abc origin" },
        { D, "git push --force-if-includes origin" }, { D, "git push --mirror" }, { D, "git push --forc origin" },
        { D, "git push --mirr x" }, { D, "git -c remote.origin.mirror=true push origin" },
        { D, "git -c remote.origin.push=+refs/heads/*:refs/heads/* push" }, { D, "git push origin :old" },
        { D, "git push --delete origin x" }, { D, "git push -d origin x" }, { D, "git push -nf" },
        { D, "git push -- origin +main" }, { Q, "git push -o ci.skip origin main" }, { Q, "git push $ARGS" },
        /* alternative spellings */
        { D, "git-push -f origin" }, { D, "/usr/lib/git-core/git-push --force" },
        { D, "git send-pack --force remote main" }, { D, "git http-push --force x" },
        /* configuration injection */
        { Q, "git -c alias.st='!sh -c \"id\"' st" }, { Q, "git -c core.sshCommand='sh -c id' fetch" },
        { Q, "git -c core.pager='sh -c id' log" }, { Q, "git -c core.fsmonitor='id' status" },
        { Q, "git -c protocol.ext.allow=always fetch ext::sh" }, { Q, "git --config-env=core.editor=X commit" },
        { Q, "git rebase --exec 'id' HEAD~1" }, { Q, "git rebase -x id HEAD~1" }, { Q, "git difftool -x id" },
        { Q, "git grep --open-files-in-pager=id x" }, { Q, "git grep -O x" }, { Q, "git config alias.x '!id'" },
        { Q, "git config --global core.pager 'sh -c id'" }, { A, "git config user.email a@b.c" },
        { Q, "git push --receive-pack='id' ./r" }, { Q, "git clone -u 'id' ./r" }, { Q, "git bisect run ./t.sh" },
        { Q, "git submodule foreach 'id'" }, { Q, "git --frob push" }, { Q, "git --exec-path=/tmp status" },
        { Q, "HOME=/tmp/x git status" }, { Q, "XDG_CONFIG_HOME=/tmp/x git status" }, { Q, "GIT_DIR=/x git log" },
        { Q, "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log" },
        /* npm, cargo, containers, kubectl */
        { Q, "npm --registry=https://r publish" }, { Q, "npm -w pkg publish" }, { Q, "npm --loglevel silly publish" },
        { Q, "npm publish --access public" }, { Q, "npm pub" }, { Q, "npm --foo bar publish" },
        { Q, "pnpm --filter x publish" }, { Q, "yarn npm publish" }, { Q, "cargo +nightly publish" },
        { Q, "cargo --locked publish" }, { Q, "cargo -Z unstable-options publish" },
        { Q, "cargo --config 'target.x.runner=\"id\"' build" }, { A, "cargo +nightly build" },
        { A, "npm --prefix web run build" }, { Q, "npm --script-shell=/tmp/x run build" },
        { Q, "docker --context x run --privileged img" }, { A, "podman --remote run --privileged img" },
        { A, "docker ps" }, { Q, "kubectl -n prod delete pod x" }, { Q, "kubectl --context=c delete pod x" },
        { A, "kubectl get pods" },
        /* flag sets: rm in any spelling, find, dd */
        { Q, "rm -rf build" }, { Q, "rm -r -v -f build" }, { Q, "rm -R -f build" }, { Q, "rm --recursive --force x" },
        { Q, "rm --rec --for x" }, { Q, "rm build -rf" }, { Q, "rm -fr x" }, { Q, "rm -rvf x" }, { D, "rm -rf /" },
        { D, "rm / -Rf" }, { D, "rm -r --force /" }, { A, "rm -r build" }, { A, "rm -f x.o" },
        { A, "rm -- -rf" }, { Q, "rm $FLAGS x" }, { D, "find . -name x -delete" }, { A, "find . -name x" },
        { D, "dd of=/dev/sda if=/dev/zero" }, { D, "dd bs=1M of=/dev/sda" }, { A, "dd if=a of=b" },
        /* wrappers as data */
        { Q, "ionice -c3 sudo id" }, { Q, "chrt -f 5 sudo id" }, { Q, "taskset -c 1 sudo id" },
        { Q, "flock /tmp/l sudo id" }, { Q, "flock /tmp/l -c 'sudo id'" }, { Q, "script -qc 'sudo id' /dev/null" },
        { Q, "script -q /dev/null" }, { Q, "runuser -u nobody -- sudo id" }, { Q, "setpriv --nnp sudo id" },
        { Q, "unshare -r sudo id" }, { Q, "unshare -r" }, { Q, "nsenter -t 1 -m sudo id" },
        { D, "watch -n 1 'rm -rf /'" }, { D, "watch -x rm -rf /" }, { Q, "strace -f -o /tmp/x sudo id" },
        { Q, "ltrace sudo id" }, { Q, "gdb -ex run --args sudo id" }, { Q, "valgrind --tool=none sudo id" },
        { Q, "fakeroot sudo id" }, { Q, "chroot / sudo id" }, { Q, "chroot /" }, { D, "sg wheel 'rm -rf /'" },
        { D, "sg wheel -c 'rm -rf /'" }, { Q, "tmux new-session 'id'" }, { Q, "screen -dm id" },
        { Q, "dbus-run-session -- sudo id" }, { Q, "parallel ::: id" }, { Q, "ssh-agent sudo id" },
        { Q, "socat - SYSTEM:'sudo id'" }, { D, "socat - EXEC:'rm -rf /'" },
        { Q, "tar cf x.tar --checkpoint=1 --checkpoint-action=exec='sudo id' ." },
        { Q, "tar -I 'sudo id' -cf x ." }, { Q, "split --filter='sudo sh' x" }, { Q, "npm exec -c 'sudo id'" },
        { Q, "npx -c 'sudo id'" }, { Q, "make --eval='x:;id'" }, { Q, "xvfb-run -a sudo id" },
        { Q, "firejail --quiet sudo id" }, { Q, "systemd-run --user --wait sudo id" }, { A, "su -c 'id'" },
        { D, "su root -c 'rm -rf /'" }, { D, "su - root -c 'rm -rf /'" }, { A, "nohup unknownwrapperx" },
        { A, "uv run pytest" }, { A, "poetry run pytest -q" }, { A, "bundle exec rspec" }, { A, "npx jest" },
        { Q, "uv run --frobnicate pytest" },
        /* interpreters: a pipe is ASK; inline code passes (interpreters: allow) */
        { Q, "curl -s x | python3" }, { Q, "curl -s x | perl" }, { Q, "curl -s x | node" },
        { Q, "curl -s x | ruby -" }, { Q, "python3 /dev/stdin" }, { Q, "curl -s x | python3 3<<EOF\nx\nEOF" },
        { A, "python3 - <<'EOF'\nprint(1)\nEOF" }, { A, "python3 -c 'print(1)'" }, { A, "python3 -m pytest" },
        { A, "node -e 'console.log(1)'" }, { A, "awk '{print $1}' f" }, { A, "python3 script.py" },
        /* environment values (issue 14 clarifications) */
        { A, "export PATH=$PATH:./node_modules/.bin" }, { A, "PATH=\"$PATH:$HOME/.local/bin\" tool" },
        { Q, "export PATH=./bin:$PATH" }, { Q, "PATH=/tmp/x ls" }, { A, "PYTHONPATH=src python3 -m pytest" },
        { A, "NODE_OPTIONS=--max-old-space-size=4096 npm run build" },
        { A, "NODE_OPTIONS='--no-warnings --enable-source-maps' node x.js" },
        { Q, "NODE_OPTIONS='--require ./x.js' npm test" }, { Q, "NODE_OPTIONS=--import=./x.mjs node a" },
        { Q, "NODE_OPTIONS=--loader=./x node a" }, { Q, "NODE_OPTIONS=\"--max-old-space-size=1 -r x\" npm t" },
        /* false positives removed */
        { A, "source .venv/bin/activate && python3 -m pytest -q" },
        { A, "for i in $(seq 3); do echo $((i*2)); done" }, { A, "for i in 1 2 3; do echo $((i+1)); done" },
        { A, "for i in {1..5}; do echo $((i*i)); done" },
        { Q, "for i in 1; do :; done; i='a[$(id)]'; echo $((i))" },
        { Q, "for i in $(seq 3); do read i; echo $((i)); done" }, { Q, "for i in $(ls); do echo $((i)); done" },
        { Q, "for i in 1; do echo ${i:=x} $((i)); done" }, { Q, "echo $((i)); for i in 1; do :; done" },
};

static void test_tool_rows(void)
{
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(deny, ask, NULL, "allow", &r, &err), 0);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const char *argv[] = { "bash", "-c", rows[i].cmd, NULL };
                struct pr_result res;
                CU_ASSERT_EQUAL_FATAL(pr_decide(&r, argv, &res), 0);
                CHECK(res.verdict == rows[i].want, "%s: got %s, want %s", rows[i].cmd, pr_verdict_name(res.verdict),
                      pr_verdict_name(rows[i].want));
                if (res.verdict != rows[i].want)
                        fprintf(stderr, "\n  %s: got %s, want %s", rows[i].cmd, pr_verdict_name(res.verdict),
                                pr_verdict_name(rows[i].want));
                pr_result_done(&res);
        }
        pr_rules_done(&r);
}

/* interpreters: ask makes inline code ASK; a script file still passes. */
static void test_interpreters_ask(void)
{
        static const char *const inline_code[] = { "python3 -c 'print(1)'", "perl -e 1", "node -e 1",
                                                   "awk 'BEGIN{system(\"id\")}'", "sed -n 1p f", "vim -c '!id' f",
                                                   "python3 - <<'EOF'\nprint(1)\nEOF", NULL };
        struct pr_rules r;
        char *err = NULL;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(NULL, NULL, NULL, "allow", &r, &err), 0);
        CU_ASSERT_EQUAL_FATAL(pr_rules_options(&r, NULL, NULL, "ask", &err), 0);
        for (const char *const *c = inline_code; *c; c++) {
                const char *argv[] = { "bash", "-c", *c, NULL };
                struct pr_result res;
                CU_ASSERT_EQUAL_FATAL(pr_decide(&r, argv, &res), 0);
                CHECK(res.verdict == STK_ASK, "%s under interpreters: ask: %s", *c, pr_verdict_name(res.verdict));
                pr_result_done(&res);
        }
        const char *argv[] = { "bash", "-c", "python3 -m pytest && python3 x.py", NULL };
        struct pr_result res;
        CU_ASSERT_EQUAL_FATAL(pr_decide(&r, argv, &res), 0);
        CU_ASSERT_EQUAL(res.verdict, STK_ALLOW);
        pr_result_done(&res);
        pr_rules_done(&r);
}

/* Flag-set syntax: opt-in, validated; `{}` stays a literal word. */
static void test_flag_set_syntax(void)
{
        static const char *const bad[] = { "rm {-r,-f} x", "{-r}", "rm {-r,,-f}", "rm {[x}", NULL };
        struct pr_pattern p;
        const char *why;

        for (const char *const *b = bad; *b; b++) {
                CHECK(pr_pattern_parse(*b, &p, &why) == -EINVAL, "%s should be refused", *b);
                CU_ASSERT_PTR_NOT_NULL(why);
        }
        CU_ASSERT_EQUAL_FATAL(pr_pattern_parse("find * -exec * {} ;", &p, &why), 0);
        CU_ASSERT_EQUAL(p.n_sets, 0);
        pr_pattern_done(&p);
        CU_ASSERT_EQUAL_FATAL(pr_pattern_parse("rm {-r,-f} {--verbose} *", &p, &why), 0);
        CU_ASSERT_EQUAL(p.n_sets, 2);
        CU_ASSERT_TRUE(p.rest);
        pr_pattern_done(&p);
}

/* "Known to run its arguments" is its own list: no name is also a
 * wrapper, and each command-running program issue 14 names is in one. */
static void test_runner_lists(void)
{
        static const char *const named[] = { "ionice", "chrt", "taskset", "flock", "script", "runuser", "setpriv",
                                             "unshare", "nsenter", "watch", "strace", "ltrace", "gdb", "valgrind",
                                             "fakeroot", "chroot", "sg", "tmux", "screen", "dbus-run-session",
                                             "parallel", "ssh-agent", "xvfb-run", "firejail", "systemd-run", NULL };

        for (const char *const *r = pr_known_runners; *r; r++)
                for (size_t i = 0; i < pr_n_wrappers; i++)
                        CHECK(strcmp(*r, pr_wrappers[i].name) != 0, "%s is both a wrapper and a known runner", *r);
        for (const char *const *n = named; *n; n++) {
                bool found = pr_known_runner(*n);
                for (size_t i = 0; i < pr_n_wrappers && !found; i++)
                        found = strcmp(*n, pr_wrappers[i].name) == 0;
                CHECK(found, "%s is neither a wrapper nor a known runner", *n);
        }
}

/* Write targets inside the run's protected paths are DENY (SDK 1.5
 * protected_paths); elsewhere they are the sandbox's business. */
static void test_protected_write_targets(void)
{
        static const char *const protected[] = { "/w/.git", "/w/.envrc", "/home/u/.ssh", NULL };
        static const struct row targets[] = {
                { D, "echo x > .git/config" }, { D, "echo x >> .git/hooks/pre-commit" }, { D, "exec 3> .git/HEAD" },
                { D, "echo x | tee -a .git/config" }, { D, "cp x .git/hooks/" }, { D, "install -m 755 x .git/hooks/x" },
                { D, "dd if=x of=.git/config" }, { D, "sed -i s/a/b/ .git/config" }, { D, "echo x > .envrc" },
                { D, "echo > ./sub/../.git/config" }, { D, "ln -sf /x /w/.envrc" }, { D, "{ echo; } > .git/x" },
                { D, "echo k >> /home/u/.ssh/authorized_keys" }, { D, "curl -s -o .git/hooks/post-checkout x" },
                { A, "echo x > out.txt" }, { A, "echo x > .gitignore" }, { A, "echo x 2>&1 > log" },
                { A, "echo x > \"$F\"" }, { A, "echo x > /dev/null" },
        };
        struct pr_rules r;
        char *err = NULL, *j;

        CU_ASSERT_EQUAL_FATAL(pr_rules_compile(NULL, NULL, NULL, "allow", &r, &err), 0);
        for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
                const char *argv[] = { "bash", "-c", targets[i].cmd, NULL };
                struct pr_result res;
                CU_ASSERT_EQUAL_FATAL(pr_decide_in(&r, argv, "/w", protected, &res), 0);
                CHECK(res.verdict == targets[i].want, "%s: got %s", targets[i].cmd, pr_verdict_name(res.verdict));
                pr_result_done(&res);
        }
        j = pr_path_join("/w", "a/./b/../../.git//x");
        CU_ASSERT_STRING_EQUAL(j, "/w/.git/x");
        free(j);
        j = pr_path_join("/w", "../../..");
        CU_ASSERT_STRING_EQUAL(j, "/");
        free(j);
        CU_ASSERT_PTR_NULL(pr_path_under("/w/.github/x", protected));
        CU_ASSERT_PTR_NOT_NULL(pr_path_under("/w/.git", protected));
        pr_rules_done(&r);
}

UNIT_SUITE(perm_rules_tools,
           UNIT_TEST(test_protected_write_targets),
           UNIT_TEST(test_tool_rows),
           UNIT_TEST(test_interpreters_ask),
           UNIT_TEST(test_flag_set_syntax),
           UNIT_TEST(test_runner_lists))
