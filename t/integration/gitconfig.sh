#!/bin/sh
# Issue 13 §2, "Git reads more than .git/hooks and .git/config": for each
# key that makes git run code, a command under the default,
# workspace-write and landlock profiles tries to plant what the key points
# to in the workspace, then the host's own git does what a user would next
# (git commit, status, diff, ...) and must not run it.
#
# Each case first runs as a control with no sandbox: the plant must work
# and the host git must run it (else git here does not use the key, and
# the case is skipped, saying so), so that every "not run" below is a
# check that could fail.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "gitconfig" "no $STK"; exit 0; }
command -v git >/dev/null 2>&1 || { skip "gitconfig" "no git"; exit 0; }
t_make_home
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
# the host git of these cases reads only what they set up
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
MARKS=$T_TMP/marks
mkdir -p "$MARKS"
PROFILES="default workspace-write landlock"

# plant.sh MARK REL [EXTRA]: REL becomes a script that notes it ran in
# MARK, then does EXTRA.  plant.sh MARK REL --config: REL becomes a config
# file with an alias `pwn` that does the same.
cat > "$T_TMP/plant.sh" <<'EOF'
mark=$1 rel=$2; shift 2
mkdir -p "$(dirname "$rel")" || exit 1
if [ "${1:-}" = --config ]; then
        printf '[alias]\n\tpwn = "!echo ran >> %s"\n' "$mark" > "$rel" || exit 1
        exit 0
fi
printf '#!/bin/sh\necho ran >> %s\n%s\n' "$mark" "${1:-}" > "$rel" && chmod +x "$rel"
EOF

# A fresh repository with one commit, in $CASE_DIR/ws; $1 its parent.
fresh_repo() {
        rm -rf "$1" && mkdir -p "$1/ws" && git -C "$1/ws" init -q && git -C "$1/ws" commit -q --allow-empty -m init
}

# run_case NAME SETUP PLANT_REL PLANT_EXTRA TRIGGER [WS_SUBDIR]
#   SETUP and TRIGGER are shell run in ws on the host; the plant runs in
#   ws/WS_SUBDIR (the workspace: the run's current directory).
run_case() {
        name=$1 setup=$2 rel=$3 extra=$4 trigger=$5 sub=${6:-}
        dir=$T_TMP/cases/$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)
        : > "$HOME/.gitconfig"
        fresh_repo "$dir" && (cd "$dir/ws" && eval "$setup") >/dev/null 2>&1 || { not_ok "$name: setup"; return; }
        mark=$MARKS/$(basename "$dir").control
        (cd "$dir/ws/$sub" && sh "$T_TMP/plant.sh" "$mark" "$rel" "$extra") || { not_ok "$name: the control's plant"; return; }
        (cd "$dir/ws" && eval "$trigger") </dev/null >/dev/null 2>&1
        if [ ! -s "$mark" ]; then
                skip "$name" "git $(git --version | cut -d' ' -f3) does not run it even unsandboxed"
                return
        fi
        for p in $PROFILES; do
                : > "$HOME/.gitconfig"
                fresh_repo "$dir" && (cd "$dir/ws" && eval "$setup") >/dev/null 2>&1 || { not_ok "$name: setup"; return; }
                mark=$MARKS/$(basename "$dir").$p
                (cd "$dir/ws/$sub" && "$STK" run --profile "$p" -- sh "$T_TMP/plant.sh" "$mark" "$rel" "$extra") \
                        >"$T_TMP/.plant" 2>&1
                (cd "$dir/ws" && eval "$trigger") </dev/null >/dev/null 2>&1
                if [ -e "$mark" ]; then
                        not_ok "$p: $name: the host git ran what the command planted" "$(tail -c 200 "$T_TMP/.plant")"
                else
                        ok "$p: $name: the host git did not run what the command planted"
                fi
        done
}

commit='git commit -q --allow-empty -m t'
run_case "core.hooksPath (a directory that exists)" \
        'git config core.hooksPath tools/hooks && mkdir -p tools/hooks' tools/hooks/pre-commit '' "$commit"
run_case "core.hooksPath (none yet)" 'git config core.hooksPath githooks-new' githooks-new/pre-commit '' "$commit"
run_case "core.hooksPath relative, in ~/.gitconfig" \
        'printf "[core]\n\thooksPath = .team-hooks\n" > "$HOME/.gitconfig"' .team-hooks/pre-commit '' "$commit"
run_case "core.fsmonitor" 'git config core.fsmonitor ./fsmon.sh' fsmon.sh '' 'git status'
run_case "core.editor" 'git config core.editor ./ed.sh' ed.sh 'echo msg > "$1"' 'git commit -q --allow-empty'
run_case "sequence.editor" 'git config sequence.editor ./tools/seq.sh && git commit -q --allow-empty -m two' \
        tools/seq.sh '' 'git rebase -q -i HEAD~1'
run_case "filter.*.clean" \
        'git config filter.x.clean ./tools/clean.sh && echo "*.dat filter=x" > .gitattributes && echo d > a.dat' \
        tools/clean.sh 'cat' 'git add a.dat'
run_case "filter.*.smudge" \
        'git config filter.x.smudge ./tools/smudge.sh && echo "*.dat filter=x" > .gitattributes && echo d > a.dat &&
         git -c filter.x.smudge=cat add .gitattributes a.dat && git commit -q -m dat && rm a.dat' \
        tools/smudge.sh 'cat' 'git checkout -- a.dat'
run_case "diff.*.textconv" \
        'git config diff.x.textconv ./tools/conv.sh && echo "*.txt diff=x" > .gitattributes && echo a > f.txt &&
         git add f.txt .gitattributes && git commit -q -m f && echo b > f.txt' \
        tools/conv.sh 'cat "$1"' 'git diff'
run_case "diff.external" \
        'git config diff.external ./tools/ext.sh && echo a > g && git add g && git commit -q -m g && echo b > g' \
        tools/ext.sh '' 'git diff'
run_case "alias.* (!)" "git config alias.x '!./tools/alias.sh'" tools/alias.sh '' 'git x'
run_case "credential.helper" "git config credential.helper '!./tools/cred.sh'" tools/cred.sh '' \
        'printf "protocol=https\nhost=example.invalid\n\n" | git credential fill'
run_case "core.askPass" 'git config core.askPass ./tools/askpass.sh' tools/askpass.sh 'echo x' \
        'printf "protocol=https\nhost=example.invalid\n\n" | git credential fill'
run_case "core.sshCommand" 'git config core.sshCommand ./tools/ssh.sh' tools/ssh.sh 'exit 1' \
        'git ls-remote ssh://example.invalid/x'
run_case "gpg.program" 'git config gpg.program ./tools/gpg.sh' tools/gpg.sh 'exit 1' \
        'git commit -q -S --allow-empty -m s'
run_case "remote.*.uploadpack" \
        'git init -q ../other && git -C ../other commit -q --allow-empty -m o &&
         git config remote.o.url ../other && git config remote.o.uploadpack ./tools/up.sh' \
        tools/up.sh 'exit 1' 'git fetch -q o'
run_case "include.path (not there yet)" 'git config include.path ../cfg/extra.inc' cfg/extra.inc --config 'git pwn'
# (gitdir:, not onbranch:, for the trigger: git looks aliases up before it
# knows the branch; the unit tests hold the other conditions)
run_case "includeIf.gitdir:*.path" 'git config "includeIf.gitdir:$(pwd)/.path" ../cfg/here.inc' \
        cfg/here.inc --config 'git pwn'
run_case "a repository below the workspace" \
        'git init -q sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.hooksPath tools/hooks' \
        sub/tools/hooks/pre-commit "" "git -C sub commit -q --allow-empty -m t"
# a linked worktree as the workspace: its repository's config is in the
# main one, outside; the hooks path is relative to the worktree
run_case "a linked worktree as the workspace" \
        'git worktree add -q wt && git config core.hooksPath tools/hooks' \
        tools/hooks/pre-commit "" "git -C wt commit -q --allow-empty -m t" wt

# --- the hook runners' names --------------------------------------------------
# Where a hook can run (one installed, as `lefthook install` does): every
# name exact, and uncreatable when missing.
fresh_repo "$T_TMP/names"
printf '#!/bin/sh\nlefthook run pre-commit\n' > "$T_TMP/names/ws/.git/hooks/pre-commit"
chmod +x "$T_TMP/names/ws/.git/hooks/pre-commit"
for p in $PROFILES; do
        for f in lefthook.yml .lefthook.yml lefthook-local.yml .lintstagedrc.json lint-staged.config.js \
                 .commitlintrc.yml commitlint.config.js .simple-git-hooks.json .overcommit.yml .githooks/pre-commit; do
                (cd "$T_TMP/names/ws" && "$STK" run --profile "$p" -- sh -c "mkdir -p \$(dirname $f); echo x > $f") \
                        >/dev/null 2>&1
                if [ -f "$T_TMP/names/ws/$f" ]; then
                        not_ok "$p: a hook installed: $f cannot be created"
                        rm -f "$T_TMP/names/ws/$f"
                else
                        ok "$p: a hook installed: $f cannot be created"
                fi
        done
done
# Where none can (git's *.sample hooks only), a missing name is no code git
# runs and costs no mount; one that exists stays read-only (the config the
# user may yet install hooks for).
fresh_repo "$T_TMP/nohook"
echo 'pre-commit: {}' > "$T_TMP/nohook/ws/.lefthook.yml"
for p in $PROFILES; do
        (cd "$T_TMP/nohook/ws" && "$STK" run --profile "$p" -- sh -c 'echo x > lefthook.yml; echo x >> .lefthook.yml') \
                >/dev/null 2>&1
        check "$p: no hook installed: a missing runner config can be created" test -f "$T_TMP/nohook/ws/lefthook.yml"
        check_output "$p: no hook installed: an existing runner config stays read-only" '^pre-commit:' \
                cat "$T_TMP/nohook/ws/.lefthook.yml"
        check_status "$p: no hook installed: an existing runner config is not appended to" 1 \
                grep -q '^x$' "$T_TMP/nohook/ws/.lefthook.yml"
        rm -f "$T_TMP/nohook/ws/lefthook.yml"
done

# --- fail closed ------------------------------------------------------------------
# A config that cannot be parsed: the gitdir read-only as a whole, one
# warning, and the run still runs (junk must not stop the next run).
fresh_repo "$T_TMP/junk"
printf '[core]\n\thooksPath = "never closed\n' >> "$T_TMP/junk/ws/.git/config"
for p in workspace-write landlock; do
        (cd "$T_TMP/junk/ws" && "$STK" run --profile "$p" -- sh -c 'echo x > .git/planted; echo x > ok.txt') \
                >"$T_TMP/.junk" 2>&1
        n=$(grep -cE 'warning: .*\.git/config: [0-9]+:[0-9]+: .*kept read-only as a whole' "$T_TMP/.junk")
        if [ "$n" = 1 ]; then ok "$p: an unparsable config: one warning"; else
                not_ok "$p: an unparsable config: one warning" "$n: $(tr '\n' ' ' < "$T_TMP/.junk")"; fi
        check_status "$p: an unparsable config: .git is read-only" 1 test -e "$T_TMP/junk/ws/.git/planted"
        check "$p: an unparsable config: the command ran" test -f "$T_TMP/junk/ws/ok.txt"
        rm -f "$T_TMP/junk/ws/ok.txt" "$T_TMP/junk/ws/.git/planted"
done

# --- a named path through a symlink ------------------------------------------------
# core.hooksPath = hk, hk a link to tools/hooks: under Landlock the link
# cannot be replaced (fs_guard); under bwrap it can (a mount covers what it
# leads to, not the link), and the run says so.
fresh_repo "$T_TMP/link"
(cd "$T_TMP/link/ws" && mkdir -p tools/hooks && ln -s tools/hooks hk && git config core.hooksPath hk)
(cd "$T_TMP/link/ws" && "$STK" run --profile landlock -- sh -c \
        "rm hk; mkdir hk && sh $T_TMP/plant.sh $MARKS/link.landlock hk/pre-commit") >/dev/null 2>&1
(cd "$T_TMP/link/ws" && git commit -q --allow-empty -m t) </dev/null >/dev/null 2>&1
check_status "landlock: a symlinked core.hooksPath: the host git did not run what the command planted" 1 \
        test -e "$MARKS/link.landlock"
check_output "default: a symlinked core.hooksPath: the run warns that the link can be replaced" \
        'hk, which git.s config names as code, leads through a symlink .*can replace the link' \
        sh -c "cd '$T_TMP/link/ws' && '$STK' run -- true"
