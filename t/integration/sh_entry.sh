#!/bin/sh
# Issue 16, part 1: the shell entry (stockade-sh(1)), driven exactly as an
# agent harness drives its $SHELL.  Claude Code 2.1: `SHELL -c env` once,
# `SHELL -c -l '<snapshot script>'` that writes ~/.claude/shell-snapshots/,
# then per command `SHELL -c 'source <snapshot> ... && eval '\''<cmd>'\''
# < /dev/null && pwd -P >| $CLAUDE_CODE_TMPDIR/claude-XXXX-cwd'`.  Plus the
# plain `$SHELL -c CMD` of any other harness, and what `sh -c` gives a
# caller: status, stdio, cwd, signals, $0 and $1.
. "$(dirname "$0")/../lib.sh"
linux_only
[ -x /bin/bash ] || { skip "sh_entry" "no /bin/bash"; exit 0; }

t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
unset STOCKADE_PROFILE STOCKADE_WORKSPACE
mkdir -p "$T_TMP/bin" "$T_HOME/.claude/shell-snapshots" "$T_TMP/claude-tmp" "$T_WS/sub"
ln -s "$STK" "$T_TMP/bin/stockade-bash"
ln -s "$STK" "$T_TMP/bin/stockade-sh"
echo '{"hooks":{}}' > "$T_HOME/.claude/settings.json"
cat > "$T_HOME/.bashrc" <<'EOF'
greet() { echo "hello from bashrc"; }
alias ll='ls -l'
EOF
export CLAUDE_CODE_TMPDIR="$T_TMP/claude-tmp"
DENIED='Read-only file system|Permission denied|Operation not permitted'
SNAP="$T_HOME/.claude/shell-snapshots/snapshot-bash-1764000000000-abc123.sh"
CWDFILE="$CLAUDE_CODE_TMPDIR/claude-1a2b-cwd"

# Each harness call from its own subshell, so the session (the calling
# process) is that of a harness of its own.
harness() { # harness NAME DIR: one session's calls, as Claude Code makes them
        SHELL="$T_TMP/bin/stockade-bash"
        cd "$2" || return 1
        "$SHELL" -c env > "$T_TMP/$1.env" 2>&1; echo "env $?" > "$T_TMP/$1.status"
        "$SHELL" -c -l "SNAPSHOT_FILE=$SNAP
source \"\$HOME/.bashrc\" < /dev/null
echo '# Snapshot file' >| \"\$SNAPSHOT_FILE\"
echo 'unalias -a 2>/dev/null || true' >> \"\$SNAPSHOT_FILE\"
declare -F | cut -d' ' -f3 | grep -vE '^(_|__)' | while read func; do typeset -f \"\$func\" >> \"\$SNAPSHOT_FILE\"; done
echo 'shopt -s expand_aliases' >> \"\$SNAPSHOT_FILE\"
alias | sed 's/^alias //g' | sed 's/^/alias -- /' | head -n 1000 >> \"\$SNAPSHOT_FILE\"
echo \"export PATH=\$(printf %q \"\$PATH\")\" >> \"\$SNAPSHOT_FILE\"
if [ ! -f \"\$SNAPSHOT_FILE\" ]; then echo \"Error: Snapshot file was not created at \$SNAPSHOT_FILE\" >&2; exit 1; fi" \
                > "$T_TMP/$1.snap.out" 2>&1
        echo "snapshot $?" >> "$T_TMP/$1.status"
        i=0
        while IFS= read -r cmd; do
                i=$((i + 1))
                q=$(printf '%s' "$cmd" | sed "s/'/'\\\\''/g")
                "$SHELL" -c "source $SNAP 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '$q' < /dev/null && pwd -P >| $CWDFILE" \
                        > "$T_TMP/$1.cmd$i" 2>&1
                echo "cmd$i $? $(cat "$CWDFILE" 2>/dev/null)" >> "$T_TMP/$1.status"
        done
}

secret_env() { FIXTURE_API_TOKEN=sekrit "$@"; }
printf '%s\n' 'greet' 'cd sub && echo made > "it'\''s.txt" && ls' 'echo x > /etc/stockade-sh-test' \
        'echo planted > ~/.claude/settings.json' 'echo $(cat ~/.ssh/id_rsa 2>&1)' 'exit 7' \
        | (secret_env harness claude "$T_WS")
st="$T_TMP/claude.status"
check "SHELL -c env runs" grep -qx 'env 0' "$st"
check "SHELL -c env prints the environment" grep -q '^HOME=' "$T_TMP/claude.env"
check_status "SHELL -c env keeps a token out of the command's environment" 1 grep -q FIXTURE_API_TOKEN "$T_TMP/claude.env"
check "SHELL -c -l <snapshot script> succeeds" grep -qx 'snapshot 0' "$st"
check "the snapshot was written to ~/.claude/shell-snapshots" grep -q 'hello from bashrc' "$SNAP"
check "the snapshot holds the bashrc's alias" grep -q "alias -- ll=" "$SNAP"
check "per command: a function from the snapshot runs" grep -qx 'hello from bashrc' "$T_TMP/claude.cmd1"
check "per command: the cwd file is written" grep -qx "cmd1 0 $T_WS" "$st"
check "per command: cd is reported through the cwd file" grep -qx "cmd2 0 $T_WS/sub" "$st"
check "per command: a write in the workspace lands on the host" grep -qx made "$T_WS/sub/it's.txt"
check_output "per command: /etc is read-only" "$DENIED" cat "$T_TMP/claude.cmd3"
check "per command: a failed command's status reaches the harness" grep -q '^cmd3 [1-9]' "$st"
check_output "~/.claude/settings.json is read-only (its hooks run on the host)" "$DENIED" cat "$T_TMP/claude.cmd4"
check "~/.claude/settings.json is unchanged" grep -q hooks "$T_HOME/.claude/settings.json"
check_output "~/.ssh stays hidden" 'Permission denied|No such file' cat "$T_TMP/claude.cmd5"
check_status "~/.ssh's key never reaches the output" 1 grep -q FIXTURE-PRIVATE "$T_TMP/claude.cmd5"
check "exit 7 comes back as 7" grep -q '^cmd6 7' "$st"

# The workspace is pinned for the session: a later cd into another
# repository does not make that one writable.
git -C "$T_TMP" init -q other 2>/dev/null || mkdir -p "$T_TMP/other/.git"
(
        cd "$T_WS/sub" && "$T_TMP/bin/stockade-bash" -c 'echo a > pinned-a' > "$T_TMP/pin1" 2>&1
        cd "$T_TMP/other" && "$T_TMP/bin/stockade-bash" -c 'echo b > pinned-b' > "$T_TMP/pin2" 2>&1
        : # the calls above stay children of this subshell (no exec of the last one)
)
check "pinned: the first call's repository is the workspace (from a subdirectory)" test -f "$T_WS/sub/pinned-a"
check_output "pinned: another repository the agent cds into stays read-only" "$DENIED" cat "$T_TMP/pin2"
check_status "pinned: nothing written there" 1 test -e "$T_TMP/other/pinned-b"
(cd "$T_TMP/other" && STOCKADE_WORKSPACE="$T_TMP/other" "$T_TMP/bin/stockade-bash" -c 'echo c > pinned-c') >/dev/null 2>&1
check "STOCKADE_WORKSPACE names the workspace" test -f "$T_TMP/other/pinned-c"

# Plain `$SHELL -c CMD`, as any other harness runs it.
SH="$T_TMP/bin/stockade-sh"
B="$T_TMP/bin/stockade-bash"
sh_in_ws() { (cd "$T_WS" && STOCKADE_WORKSPACE="$T_WS" "$@"); }
check_output "stockade-bash runs bash" '^bash 5|^bash [0-9]' sh_in_ws "$B" -c 'echo bash $BASH_VERSION'
check_output "stockade-sh runs /bin/sh" '^sh-no-bash$' sh_in_ws "$SH" -c 'echo sh-${BASH_VERSION:-no-bash}'
check_output "stockade sh -c is the same entry" '^entry$' sh_in_ws "$STK" sh -c 'echo entry'
check_output "\$0 and \$1 after the string" '^zero one two$' sh_in_ws "$B" -c 'echo $0 $1 $2' zero one two
check_output "-lc bundled" '^ok$' sh_in_ws "$B" -lc 'echo ok'
check_status "-c -e -o pipefail: options after -c" 1 sh_in_ws "$B" -c -e -o pipefail 'false | true; echo unreached'
check_status "-e stops at the failing command" 1 sh_in_ws "$B" -e -c 'false; echo unreached'
check_output "stdin reaches the command" '^piped$' sh -c 'echo piped | (cd "$T_WS" && STOCKADE_WORKSPACE="$T_WS" "$0" -c cat)' "$B"
check_output "stdout and stderr stay apart" '^out$' sh -c '(cd "$T_WS" && STOCKADE_WORKSPACE="$T_WS" "$0" -c "echo out; echo err >&2") 2>/dev/null' "$B"
check_output "the working directory is the caller's" "^$T_WS/sub\$" sh -c 'cd "$1/sub" && STOCKADE_WORKSPACE="$1" "$0" -c pwd' "$B" "$T_WS"
check_status "exit status 0" 0 sh_in_ws "$B" -c true
check_status "exit status 42" 42 sh_in_ws "$B" -c 'exit 42'
check_status "a command killed by SIGKILL: 128+9" 137 sh_in_ws "$B" -c 'kill -9 $$'
# A signal to the entry reaches the command, and nothing outlives it.
mark="300.$$"  # a sleep of this test's own: other tests may sleep 300 at the same time
(cd "$T_WS" && STOCKADE_WORKSPACE="$T_WS" exec "$B" -c "echo \$\$ > sleeper.pid; exec sleep $mark") & entry=$!
t_wait_for -s "$T_WS/sleeper.pid"
kill -TERM $entry; wait $entry; rc=$?
[ "$rc" = 143 ] && ok "SIGTERM to the entry ends the command: 143" || not_ok "SIGTERM to the entry ends the command: 143" "status $rc"
check_status "the command did not outlive the entry" 1 pgrep -f "^sleep $mark\$"

# Usage errors are stockade's 244, naming the word.
check_status "no -c: refused" "$STK_EXIT_USAGE" "$B" script.sh
check_output "no -c: the message says why" 'only `sh -c STRING`' "$B" script.sh
check_status "-s (a script on stdin): refused" "$STK_EXIT_USAGE" "$B" -s -c true
check_output "an unknown option is named" '--frobnicate: an option bash does not take' "$B" --frobnicate -c true
check_status "-c without a string" "$STK_EXIT_USAGE" "$B" -c

# perm_rules judges the string itself (the agent profile).  The client's
# wrapper (eval of one literal, the source of its own snapshot) must not
# turn every command into an ASK: that is perm_rules' side (helper rules).
(cd "$T_WS" && "$STK" explain --profile agent -- bash -c "eval 'ls'" > "$T_TMP/eval.explain" 2>&1)
if grep -q 'perm_rules .* ask' "$T_TMP/eval.explain"; then
        skip "agent profile through the client's wrapper" "needs perm_rules to judge eval of a literal as its content (issue 16, helper rules)"
else
        printf '%s\n' 'echo fine' 'git push --force origin main' | (STOCKADE_PROFILE=agent harness agent "$T_WS")
        check "agent: an ordinary command through the client's wrapper runs" grep -q '^cmd1 0' "$T_TMP/agent.status"
        check "agent: the snapshot script runs" grep -qx 'snapshot 0' "$T_TMP/agent.status"
        check "agent: a force push inside eval is denied" grep -q "^cmd2 $STK_EXIT_DENIED" "$T_TMP/agent.status"
fi
check_status "agent: a force push through plain -c is denied" "$STK_EXIT_DENIED" \
        sh_in_ws env STOCKADE_PROFILE=agent "$B" -c 'cd . && git push --force origin main'

# The bookkeeping directories come through the command-line layer, which
# obeys `overridable`: read-only does not let the user add a write root.
check_status "a floor that forbids write roots stops the call (241)" "$STK_EXIT_POLICY" \
        sh_in_ws env STOCKADE_PROFILE=read-only "$B" -c true
check_output "... naming the directory and the rule" "claude-tmp.*|may only tighten" \
        sh_in_ws env STOCKADE_PROFILE=read-only "$B" -c true
check_status "without bookkeeping directories, read-only runs" 0 \
        sh_in_ws env -u CLAUDE_CODE_TMPDIR HOME="$T_TMP" STOCKADE_PROFILE=read-only "$B" -c true
