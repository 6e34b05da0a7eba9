#!/bin/sh
# Issue 2's "must show", on the EMBEDDED profiles (no --policy): what the
# default, workspace-write, read-only, ci and full-access profiles let a
# command do, checked from outside the sandbox where it matters.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "profiles" "no $STK"; exit 0; }
t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
git -C "$T_WS" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init 2>/dev/null
DENIED='Read-only file system|Permission denied|Operation not permitted'
sbx() { (cd "$T_WS" && "$STK" run "$@"); }

for p in default workspace-write read-only ci full-access; do
        check "stockade check --profile $p" "$STK" check --profile "$p" --workspace "$T_WS"
done

# --- default -------------------------------------------------------------------
check "default: write in the workspace" sbx -- sh -c 'echo new > created.txt'
check "default: the write is on the host" grep -qx new "$T_WS/created.txt"
check_output "default: write /etc fails" "$DENIED" sbx -- sh -c 'echo x > /etc/stockade-profiles-test; true'
check_output "default: write \$HOME fails" "$DENIED" sbx -- sh -c 'echo x > "$HOME/planted"; true'
check_status "default: nothing planted in \$HOME" 1 test -e "$T_HOME/planted"
check_output "default: write workspace/.git fails" "$DENIED" sbx -- sh -c 'echo x > .git/config; true'
check_output "default: create .git/hooks/pre-commit fails" "$DENIED" \
        sbx -- sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit; true'
check_status "default: no pre-commit hook on the host" 1 test -e "$T_WS/.git/hooks/pre-commit"
# The project layer is ours to read, not the command's to write: a command
# must not steer the policy of the runs after it.
for p in default landlock; do
        check_output "$p: creating .stockade.yaml fails" "$DENIED|Is a directory" \
                sbx --profile "$p" -- sh -c 'echo "stockade: 1" > .stockade.yaml; true'
done
check_status "no .stockade.yaml on the host" 1 test -e "$T_WS/.stockade.yaml"
(cd "$T_WS" && "$STK" run -- sleep 3) & held=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -d "$T_WS/.stockade.yaml" ] && break; sleep 0.2; done
check "a run while another holds the .stockade.yaml mount point loads the policy" sbx -- true
wait $held
printf 'stockade: 1\n' > "$T_WS/.stockade.yaml"
check_output "an existing .stockade.yaml is read-only" "$DENIED" sbx -- sh -c 'echo "# x" >> .stockade.yaml; true'
rm -f "$T_WS/.stockade.yaml"
check_output "default: reading ~/.ssh/id_rsa fails" 'Permission denied' sbx -- sh -c 'cat "$HOME/.ssh/id_rsa"; true'
# Other tools' tokens, a browser profile, a shell history: each shipped
# sandboxing profile hides them, under bwrap and under Landlock alike.
mkdir -p "$T_HOME/.config/op" "$T_HOME/.mozilla/firefox" "$T_HOME/.claude" "$T_HOME/.config/git" "$T_HOME/.cache/huggingface"
for f in .vault-token .pgpass .config/op/config .mozilla/firefox/cookies.sqlite .claude/.credentials.json .bash_history \
         .config/git/credentials .cache/huggingface/token .boto; do
        echo "FIXTURE-SECRET" > "$T_HOME/$f"
done
for p in default landlock read-only proxy; do
        check_output "$p: other tools' credentials, browser cookies and history are hidden" '^hidden$' sbx --profile "$p" -- sh -c '
for f in .vault-token .pgpass .config/op/config .mozilla/firefox/cookies.sqlite .claude/.credentials.json .bash_history \
         .config/git/credentials .cache/huggingface/token .boto; do
        if cat "$HOME/$f" 2>/dev/null | grep -q FIXTURE; then echo "read $f"; exit 0; fi
done
echo hidden'
done

# host /tmp: a file the test owns there is unchanged, and nothing new appears
hostfile=$(mktemp /tmp/stockade-profiles.XXXXXX)
echo original > "$hostfile"
T_CLEANUP="rm -f '$hostfile' /tmp/stockade-profiles-new.$$"
sbx -- sh -c "echo changed > '$hostfile'; echo new > /tmp/stockade-profiles-new.$$" >/dev/null 2>&1
check "default: host /tmp file unchanged" grep -qx original "$hostfile"
check_status "default: nothing new in host /tmp" 1 test -e /tmp/stockade-profiles-new.$$

# a TCP listener on the host's loopback is unreachable
t_tcp_listener
PORT=$T_PORT
CONNECT=$T_TCP_CONNECT
check_output "default: TCP to a host 127.0.0.1 listener fails" '^REFUSED' sbx -- python3 -c "$CONNECT" "$PORT"
check_output "full-access: the same connect works (the probe can fail)" '^CONNECTED' \
        sbx --profile full-access -- python3 -c "$CONNECT" "$PORT"

check_status "default: exit status 7" 7 sbx -- sh -c 'exit 7'
check_status "default: SIGKILLed child gives 137" 137 sbx -- sh -c 'kill -9 $$'
# SIGINT to stockade reaches the command's foreground child too, as a
# terminal's would (found by the compat suite: under bwrap only the shell
# got it, and its sleep ran on).
for p in default landlock; do
        (cd "$T_WS" && exec "$STK" run --profile "$p" -- sh -c 'sleep 30; echo not-interrupted') > "$T_TMP/int" 2>&1 &
        sup=$!
        sleep 1
        kill -INT "$sup"
        i=0; while [ $i -lt 30 ] && kill -0 "$sup" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
        wait "$sup"; st=$?
        if [ "$st" = 130 ] && ! grep -q not-interrupted "$T_TMP/int"; then ok "$p: SIGINT ends the command's foreground child (130)"
        else not_ok "$p: SIGINT ends the command's foreground child" "status $st: $(tail -c 200 "$T_TMP/int")"; fi
done
sbx -- sh -c "setsid sh -c 'sleep 30' >/dev/null 2>&1 < /dev/null & echo \$! > /dev/null; sleep 0.2" >/dev/null 2>&1
check_status "default: no sleep 30 left from the sandbox" 1 sh -c "pgrep -f '^sleep 30\$' -P 1 >/dev/null"

# linked worktree: its .git is a "gitdir:" file; the hooks live in the main gitdir
git -C "$T_WS" worktree add -q "$T_TMP/wt" 2>/dev/null
if [ -f "$T_TMP/wt/.git" ]; then
        check_output "default: pre-commit via a linked worktree fails" "$DENIED" \
                sh -c "cd '$T_TMP/wt' && '$STK' run -- sh -c 'echo x > \"\$(git rev-parse --git-common-dir)/hooks/pre-commit\"; true'"
        check_status "default: no hook planted through the worktree" 1 test -e "$T_WS/.git/hooks/pre-commit"
        check_output "default: worktree gitdir: pointer read-only" "$DENIED" \
                sh -c "cd '$T_TMP/wt' && '$STK' run -- sh -c 'echo gitdir: /elsewhere > .git; true'"
        # Its commondir says where hooks and config come from (git: surfaces too).
        check_output "workspace-write: a worktree's commondir is read-only" "$DENIED" \
                sh -c "cd '$T_TMP/wt' && '$STK' run --profile workspace-write -- sh -c 'echo ../../evil > \"\$(git rev-parse --git-dir)/commondir\"; true'"
        check "workspace-write: git still works in the worktree" \
                sh -c "cd '$T_TMP/wt' && '$STK' run --profile workspace-write -- git status --short"
        # from the main workspace: .git/worktrees/wt/commondir steers the worktree outside
        check_output "workspace-write: the main .git's record of a worktree is read-only" "$DENIED" \
                sbx --profile workspace-write -- sh -c 'echo ../../../evil > .git/worktrees/wt/commondir; true'
else
        skip "linked worktree" "git worktree add failed"
fi

# --- workspace-write: git commit works, the hooks stay protected ----------------
check "workspace-write: git commit works" sbx --profile workspace-write -- \
        git -c user.email=t@t -c user.name=t commit -q --allow-empty -m inside
check_output "workspace-write: .git/hooks/pre-commit still refused" "$DENIED" \
        sbx --profile workspace-write -- sh -c 'echo x > .git/hooks/pre-commit; true'
check_output "workspace-write: .git/config refused" "$DENIED" \
        sbx --profile workspace-write -- sh -c 'echo x >> .git/config; true'

# A submodule's repository (.git/modules/NAME) has hooks and a config too.
git init -q "$T_TMP/subrepo" && git -C "$T_TMP/subrepo" -c user.email=t@t -c user.name=t commit -q --allow-empty -m s
if git -C "$T_WS" -c protocol.file.allow=always submodule add -q "$T_TMP/subrepo" sm > /dev/null 2>&1 &&
   [ -d "$T_WS/.git/modules/sm" ]; then
        check_output "workspace-write: a submodule's hooks are read-only" "$DENIED" \
                sbx --profile workspace-write -- sh -c 'echo "#!/bin/sh" > .git/modules/sm/hooks/post-checkout; true'
        check_output "workspace-write: a submodule's config is read-only" "$DENIED" \
                sbx --profile workspace-write -- sh -c 'echo x >> .git/modules/sm/config; true'
        check "workspace-write: git works in the submodule" sbx --profile workspace-write -- sh -c 'cd sm && git status --short'
else
        skip "workspace-write: a submodule's hooks are read-only" "git submodule add failed here"
fi

# A repository below the workspace (a vendored clone; a workspace holding
# several): git runs its hooks too, so they are as protected as the top's.
if git init -q "$T_WS/vendor/lib" 2>/dev/null; then
        for p in default landlock; do
                check_output "$p: a nested repository's hooks are read-only" "$DENIED" \
                        sbx --profile $p -- sh -c 'echo "#!/bin/sh" > vendor/lib/.git/hooks/pre-commit; true'
        done
        check_status "no hook planted in the nested repository" 1 test -e "$T_WS/vendor/lib/.git/hooks/pre-commit"
        check_output "workspace-write: a nested repository's config is read-only" "$DENIED" \
                sbx --profile workspace-write -- sh -c 'echo x >> vendor/lib/.git/config; true'
        check "workspace-write: git commit works in the nested repository" sbx --profile workspace-write -- \
                git -C vendor/lib -c user.email=t@t -c user.name=t commit -q --allow-empty -m nested
        check "  and in the workspace's own" sbx --profile workspace-write -- \
                git -c user.email=t@t -c user.name=t commit -q --allow-empty -m outer
        check_output "default: the nested repository cannot be renamed away and replaced" 'busy|Read-only|denied' \
                sbx -- sh -c 'mv vendor/lib vendor/lib.away; true'
        # a command making directories cannot push the repository out of the scan
        sbx -- sh -c 'for i in $(seq 300); do mkdir "d$i"; done' > /dev/null 2>&1
        check_output "default: still protected behind 300 fresh directories" "$DENIED" \
                sbx -- sh -c 'echo x > vendor/lib/.git/hooks/pre-commit; true'
        rm -rf "$T_WS"/d[0-9]*
        # nor stop every later run with a .git that names nothing
        mkdir -p "$T_WS/junk" && echo garbage > "$T_WS/junk/.git"
        check "default: a stray .git file stops no run" sbx -- true
        check_output "  and stays what it is (whole mode)" "$DENIED" sbx -- sh -c 'echo gitdir: /tmp > junk/.git; true'
        # a planted gitdir: pointer names no directory to make read-only
        mkdir -p "$T_WS/x" && echo "gitdir: $T_WS" > "$T_WS/x/.git"
        check "default: a gitdir: pointer to the workspace makes it no island" sbx -- sh -c 'echo w > written.txt'
        # a .git that is a symlink (Google's repo tool) is followed, as git does
        mkdir -p "$T_WS/.repo" && git init -q --bare "$T_WS/.repo/p.git" && mkdir -p "$T_WS/p" &&
                ln -s ../.repo/p.git "$T_WS/p/.git"
        check_output "workspace-write: the hooks behind a symlinked .git are read-only" "$DENIED" \
                sbx --profile workspace-write -- sh -c 'echo x > p/.git/hooks/pre-commit; true'
        # chmod 000 in one run so that the next cannot look below, then back:
        # an unreadable directory is kept read-only whole (a user's problem only,
        # root reads through it)
        if [ "$(id -u)" != 0 ]; then
                sbx -- chmod 000 vendor > /dev/null 2>&1
                check_output "default: a directory made unreadable stays so, nothing below it opens" "$DENIED" \
                        sbx -- sh -c 'chmod 755 vendor; echo x > vendor/lib/.git/hooks/pre-commit; true'
                chmod 755 "$T_WS/vendor"
        else
                skip "default: a directory made unreadable stays so" "root reads through mode 000"
        fi
        rm -rf "$T_WS/vendor" "$T_WS/junk" "$T_WS/x" "$T_WS/p" "$T_WS/.repo" "$T_WS/written.txt"
else
        skip "a nested repository's hooks are read-only" "git init failed here"
fi

# The workspace is the home directory: git's XDG config there is a surface too
# (a core.fsmonitor in it runs on the next git status).
check_output "default, workspace = HOME: ~/.config/git/config cannot be written" "$DENIED|Is a directory" \
        sh -c "cd '$T_HOME' && '$STK' run --workspace '$T_HOME' --allow-broad-workspace -- sh -c 'mkdir -p .config/git; echo x > .config/git/config; true'"
check_status "  nor is one left on the host" 1 test -s "$T_HOME/.config/git/config"

# What one run leaves in .git must not open, hang or stop the next (review):
# a symlinked .git/modules pinned its target read-write, a fifo as commondir
# hung every run, a symlink loop made every run fail without a word.
W2=$T_TMP/ws2
git init -q "$W2" && mkdir -p "$T_TMP/outside/src/p" && git init -q "$T_TMP/outside/src/p"
sbx2() { (cd "$W2" && "$STK" run --profile workspace-write "$@"); }
sbx2 -- sh -c "ln -s '$T_TMP/outside' .git/modules" > /dev/null 2>&1
if [ -L "$W2/.git/modules" ]; then
        check_output "workspace-write: a symlinked .git/modules opens nothing outside" "$DENIED" \
                sbx2 -- sh -c "echo x > '$T_TMP/outside/planted'; true"
else not_ok "workspace-write: a symlinked .git/modules opens nothing outside" "the link was not made"; fi
rm -f "$W2/.git/modules"
sbx2 -- sh -c 'mkfifo .git/commondir' > /dev/null 2>&1
check_status "workspace-write: a fifo as .git/commondir hangs no later run" 0 timeout 20 sh -c "cd '$W2' && '$STK' run --profile workspace-write -- true"
rm -f "$W2/.git/commondir"
ln -s modules "$W2/.git/modules"
check_status "workspace-write: a .git/modules symlink loop stops no later run" 0 sbx2 -- true
rm -rf "$W2" "$T_TMP/outside"
# nor a junk .git a command writes where there was no repository, nor
# submodule names deeper than stockade looks (kept read-only whole)
mkdir -p "$W2"
sbx2 -- sh -c 'echo junk > .git' > /dev/null 2>&1
check_status "workspace-write: a junk .git at the top stops no later run" 0 sbx2 -- true
rm -f "$W2/.git"; git init -q "$W2"
sbx2 -- sh -c 'mkdir -p .git/modules/1/2/3/4/5/6/7/8/9/10' > /dev/null 2>&1
check_status "workspace-write: deep .git/modules names stop no later run" 0 sbx2 -- true
check_output "  and what lies that deep is read-only" "$DENIED" sbx2 -- sh -c 'touch .git/modules/1/2/3/4/5/6/7/8/9/x; true'
rm -rf "$W2"

# --- read-only, ci, full-access -------------------------------------------------
check_output "read-only: workspace write fails" "$DENIED" sbx --profile read-only -- sh -c 'echo x > ro.txt; true'
check "read-only: private /tmp writable" sbx --profile read-only -- sh -c 'echo x > /tmp/ok'
check_output "ci: approval never" 'approval[[:space:]]+never' "$STK" explain --profile ci --workspace "$T_WS"
check_output "full-access: explain names the danger" 'NO SANDBOX' "$STK" explain --profile full-access --workspace "$T_WS"

# --- bad policy files: file:line:col, status 241, nothing runs ------------------
n=0; good=0
for f in "$(dirname "$0")"/../policy-bad/*.yaml; do
        case $(basename "$f") in project-*|user-*) continue;; esac  # bad only as that layer: unit-tested
        n=$((n + 1))
        rm -f "$T_TMP/ran"
        "$STK" run --policy "$f" --workspace "$T_WS" -- touch "$T_TMP/ran" > "$T_TMP/err" 2>&1; st=$?
        if [ "$st" = "$STK_EXIT_POLICY" ] && [ ! -e "$T_TMP/ran" ] && grep -qE '^[^:]+:[0-9]+:[0-9]+: error: ' "$T_TMP/err"; then
                good=$((good + 1))
        else
                not_ok "bad policy $(basename "$f")" "status $st: $(head -c 200 "$T_TMP/err")"
        fi
done
if [ "$n" -ge 20 ] && [ "$good" = "$n" ]; then ok "$n malformed policies: file:line:col, status 241, nothing ran"
else not_ok "malformed policies" "$good of $n"; fi

# --- signals reach the command inside bwrap, not just the wrapper ---------------
rm -f "$T_WS/got-term"
(cd "$T_WS" && exec "$STK" run -- sh -c "trap 'echo got > got-term; exit 3' TERM; while :; do sleep 0.05; done") &
spid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; done
kill -TERM "$spid"
wait "$spid"; st=$?
if [ "$st" = 3 ] && grep -q got "$T_WS/got-term" 2>/dev/null; then ok "default: SIGTERM is forwarded into the sandbox"
else not_ok "default: SIGTERM is forwarded into the sandbox" "status $st"; fi

# --- the supervisor's session keyring is not the command's ----------------------
KH=$(t_helper keyring-helper)
"$KH" plant "$KH" look > "$T_TMP/kh" 2>&1; st=$?
if [ "$st" = 77 ]; then skip "session keyring" "cannot add keys here: $(cat "$T_TMP/kh")"
elif [ "$st" != 0 ]; then not_ok "session keyring: the probe finds the key without a sandbox" "status $st"
else
        ok "session keyring: the probe finds the key without a sandbox"
        check_output "default: the user's session keyring is not reachable" 'Required key not available|Operation not permitted' \
                sh -c "cd '$T_WS' && '$KH' plant '$STK' run -- '$KH' look"
fi

# --- credentials in the environment stay outside --------------------------------
check_output "default: token and agent variables are not passed" '^clean$' \
        env GITHUB_TOKEN=FIXTURE AWS_SECRET_ACCESS_KEY=FIXTURE SSH_AUTH_SOCK=/nonexistent MY_DB_PASSWORD=FIXTURE \
        sh -c "cd '$T_WS' && '$STK' run -- sh -c 'env | grep -q FIXTURE && echo leaked || echo clean'"
check_output "default: keys, DSNs, PATs and lower-case tokens neither" '^clean$' \
        env github_token=FIXTURE STRIPE_KEY=FIXTURE SENTRY_DSN=FIXTURE GH_PAT=FIXTURE NPM_CONFIG__AUTH=FIXTURE \
        NPM_CONFIG__AUTHTOKEN=FIXTURE sh -c "cd '$T_WS' && '$STK' run -- sh -c 'env | grep -q FIXTURE && echo leaked || echo clean'"
check_output "default: ordinary variables pass" '^kept$' \
        env STOCKADE_PLAIN=1 sh -c "cd '$T_WS' && '$STK' run -- sh -c 'test \"\$STOCKADE_PLAIN\" = 1 && echo kept'"
mkdir -p "$XDG_CONFIG_HOME/stockade"
printf 'stockade: 1\nsettings:\n  env: { allow: [SSH_AUTH_SOCK] }\n' > "$XDG_CONFIG_HOME/stockade/default.yaml"
check_output "default: a user file may let SSH_AUTH_SOCK through" '^passed$' \
        env SSH_AUTH_SOCK=/x GITHUB_TOKEN=FIXTURE sh -c "cd '$T_WS' && '$STK' run -- sh -c 'test \"\$SSH_AUTH_SOCK\" = /x && test -z \"\${GITHUB_TOKEN:-}\" && echo passed'"
rm -f "$XDG_CONFIG_HOME/stockade/default.yaml"
printf 'stockade: 1\nsettings:\n  env: { allow: [GITHUB_TOKEN] }\n' > "$T_WS/.stockade.yaml"
check_status "default: a project file may not let a token through" $STK_EXIT_POLICY \
        sh -c "cd '$T_WS' && '$STK' run -- true"
rm -f "$T_WS/.stockade.yaml"

# --- unix sockets: the workspace's reachable, the host's not (issue 3) -----------
mkdir -p "$T_TMP/outside"
t_unix_listeners "$T_WS/in.sock" "$T_TMP/outside/host.sock"
ln -s "$T_TMP/outside/host.sock" "$T_WS/link.sock"
UCONNECT=$T_UNIX_CONNECT
check_output "default: a unix socket in the workspace is reachable" '^CONNECTED' sbx -- python3 -c "$UCONNECT" "$T_WS/in.sock"
check_output "default: a host unix socket outside the workspace is not" '^REFUSED.*Permission denied' \
        sbx -- python3 -c "$UCONNECT" "$T_TMP/outside/host.sock"
check_output "default: nor through a symlink in the workspace" '^REFUSED' sbx -- python3 -c "$UCONNECT" link.sock
check_output "default: a socket the command makes in its private /tmp works" '^CONNECTED' sbx -- python3 -c '
import socket
srv=socket.socket(socket.AF_UNIX); srv.bind("/tmp/own.sock"); srv.listen(1)
c=socket.socket(socket.AF_UNIX); c.connect("/tmp/own.sock"); print("CONNECTED")'
check_output "default: socketpair works" '^ok$' sbx -- python3 -c 'import socket; socket.socketpair(); print("ok")'
check_output "control: without the guard the host socket is reachable (the probe can fail)" '^CONNECTED' \
        python3 -c "$UCONNECT" "$T_TMP/outside/host.sock"
{ t_default_settings; cat; } > "$T_TMP/allow.yaml" <<EOP
stack:
  - { phase: pre-exec,   control: required, module: fs_bwrap }
  - { phase: in-sandbox, control: required, module: net_seccomp, args: { unix_allow: ["$T_TMP/outside/host.sock"] } }
EOP
check_output "unix_allow: a listed host socket is reachable" '^CONNECTED' \
        sh -c "cd '$T_WS' && '$STK' run --policy '$T_TMP/allow.yaml' -- python3 -c '$UCONNECT' '$T_TMP/outside/host.sock'"
printf 'stockade: 1\nstack:\n  - { phase: in-sandbox, control: required, module: net_seccomp, args: { unix_allow: [/x] } }\n' > "$T_WS/.stockade.yaml"
check_status "unix_allow: a project file may not set it" $STK_EXIT_POLICY sh -c "cd '$T_WS' && '$STK' run -- true"
rm -f "$T_WS/.stockade.yaml"
