#!/bin/sh
# SPDX-License-Identifier: MIT
#
# mk/demo.sh STOCKADE: the `make demo` walk-through, on the profile embedded
# in the binary (`default`; no --policy, and XDG_CONFIG_HOME pointed at an
# empty directory so no user layer can change it).
#
# In build/demo/ (next to STOCKADE, recreated each time) it makes a workspace
# (a git repository with one file) and a fake HOME with ~/.ssh/id_rsa, starts
# a TCP listener on 127.0.0.1 outside, then runs ONE sandboxed script that
# tries, line by line, what an untrusted command might: write the workspace
# (allowed), write /etc, $HOME, /tmp, .git and a protected path, read the ssh
# key, read an API key from the environment, connect to the listener.  After
# the run it checks from the outside that nothing leaked to the host.  The
# real $HOME is never touched.
#
# Exit status 0 only if every attempt behaved as the profile says.  Works as
# root and as an unprivileged user (who needs write access to the build
# tree), from any checkout, /tmp included: with the tree in /tmp the fake
# HOME is in /tmp too, which the sandbox replaces with a private one: HOME
# does not exist inside, so the refusals for $HOME and ~/.ssh read "No such
# file or directory" rather than "Read-only file system" / "Permission
# denied".
set -u

STK=${1:-}
[ -n "$STK" ] || { echo "usage: sh mk/demo.sh path/to/stockade" >&2; exit 2; }
case $STK in /*) ;; *) STK=$(pwd)/$STK ;; esac
[ -x "$STK" ] || { echo "demo: $STK not found: run make first" >&2; exit 1; }
B=$(cd "$(dirname "$STK")" && pwd) || exit 1
STK=$B/$(basename "$STK")
D=$B/demo
WS=$D/workspace
FAKE_HOME=$D/home
TAG=stockade-demo.$$            # names no other run uses
ETC_FILE=/etc/$TAG
TMP_FILE=/tmp/$TAG
HOME_FILE=$FAKE_HOME/x

say() { printf '%s\n' "$*"; }
# line LABEL RESULT: "LABEL ........ RESULT"
line() {
        l="$1 "
        while [ ${#l} -lt 44 ]; do l="$l."; done
        printf '  %s %s\n' "$l" "$2"
}

# ---- the stage --------------------------------------------------------------
rm -rf "$D" || exit 1
mkdir -p "$WS" "$FAKE_HOME/.ssh" "$D/xdg" || exit 1
if command -v git > /dev/null 2>&1; then
        HOME=$FAKE_HOME git -C "$WS" init -q || exit 1
else
        mkdir -p "$WS/.git/hooks" # enough for the profile: .git is what it protects
fi
say "int main(void) { return 0; }" > "$WS/main.c"
say "-----BEGIN OPENSSH PRIVATE KEY----- (not a real key)" > "$FAKE_HOME/.ssh/id_rsa"
chmod 700 "$FAKE_HOME/.ssh" && chmod 600 "$FAKE_HOME/.ssh/id_rsa"
for f in "$ETC_FILE" "$TMP_FILE" "$HOME_FILE"; do
        [ ! -e "$f" ] || { echo "demo: $f exists already; not touching it" >&2; exit 1; }
done

# A listener on the host's loopback: reachable from outside, not from inside.
PORT=
LPID=
if command -v python3 > /dev/null 2>&1; then
        python3 -c '
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(sys.argv[1] + ".new", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".new", sys.argv[1])
s.settimeout(1)
end = time.time() + 120      # never outlives a stuck demo by long
while time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
    except socket.timeout:
        pass
' "$D/port" &
        LPID=$!
        trap 'kill "$LPID" 2> /dev/null' EXIT
        trap 'exit 130' INT TERM
        i=0
        while [ ! -s "$D/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        PORT=$(cat "$D/port" 2> /dev/null)
fi

say "stockade demo: profile \"default\" (embedded), one sandboxed run"
say "  workspace  $WS"
say "  HOME       $FAKE_HOME (fake, with ~/.ssh/id_rsa)"
if [ -n "$PORT" ]; then
        if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 3).close()' "$PORT" 2> /dev/null; then
                say "  listener   127.0.0.1:$PORT (pid $LPID), reachable from the host"
        else
                say "  listener   127.0.0.1:$PORT does not answer from the host either; connect test skipped"
                PORT=
        fi
else
        say "  listener   none (no python3): connect test skipped"
fi
say
say "inside the sandbox:"

# ---- the run ----------------------------------------------------------------
# One script, one line per attempt.  $1 = port (may be empty), $2 = tag.
INNER='
bad=0
line() {
        l="$1 "
        while [ ${#l} -lt 44 ]; do l="$l."; done
        printf "  %s %s\n" "$l" "$2"
}
# attempt WANT LABEL CMD...: run CMD, say what happened; WANT is ok or refused
attempt() {
        want=$1 label=$2
        shift 2
        if out=$("$@" 2>&1); then
                got=ok msg=${NOTE:-ok}
        else
                why=$(printf "%s\n" "$out" | tail -n 1 | sed "s/.*: //; s/^\[Errno [0-9]*\] //")
                got=refused msg="refused: $why"
        fi
        if [ "$got" != "$want" ]; then
                msg="$msg   <== UNEXPECTED, wanted $want"
                bad=$((bad + 1))
        fi
        line "$label" "$msg"
        NOTE=
}
put() { printf "%s\n" "written in the sandbox" > "$1"; }
# put_p FILE: the same, making its directory first (.vscode does not exist:
# without the sandbox this succeeds, so a refusal is the sandbox speaking)
put_p() { mkdir -p "${1%/*}" && put "$1"; }
has_key() { [ -n "${STOCKADE_DEMO_API_KEY+x}" ] || { echo "not passed in" >&2; return 1; }; }
attempt ok      "write workspace/hello.txt"    put hello.txt
attempt refused "write /etc/$2"                put "/etc/$2"
attempt refused "write \$HOME/x"               put "$HOME/x"
NOTE="ok (private /tmp? checked outside)"
attempt ok      "write /tmp/$2"                put "/tmp/$2"
attempt refused "write .git/hooks/pre-commit"  put .git/hooks/pre-commit
attempt refused "git add hello.txt (.git r/o)" git add hello.txt
attempt refused "create .vscode/tasks.json"    put_p .vscode/tasks.json
attempt refused "read ~/.ssh/id_rsa"           cat "$HOME/.ssh/id_rsa"
attempt refused "env STOCKADE_DEMO_API_KEY"    has_key
if [ -n "$1" ]; then
        attempt refused "connect 127.0.0.1:$1" python3 -c "import socket, sys; socket.create_connection((\"127.0.0.1\", int(sys.argv[1])), 3)" "$1"
fi
exit $bad
'
command -v git > /dev/null 2>&1 || INNER=$(printf '%s\n' "$INNER" | grep -v '"git add')

cd "$WS" || exit 1
HOME=$FAKE_HOME XDG_CONFIG_HOME=$D/xdg STOCKADE_DEMO_API_KEY=not-a-real-key \
        "$STK" run --workspace "$WS" -- sh -c "$INNER" demo "$PORT" "$TAG"
status=$?
cd "$B" || exit 1
[ -z "$LPID" ] || { kill "$LPID" 2> /dev/null; wait "$LPID" 2> /dev/null; LPID=; }

# ---- the host's view --------------------------------------------------------
say
say "outside, after the run:"
fail=0
if [ $status -eq 0 ]; then
        line "sandboxed script" "every attempt as expected"
elif [ $status -ge 240 ]; then
        line "stockade run" "FAILED with status $status (the sandbox did not start)"
        fail=$((fail + 1))
else
        line "sandboxed script" "FAILED: $status attempt(s) not as expected"
        fail=$((fail + 1))
fi
if [ "$(cat "$WS/hello.txt" 2> /dev/null)" = "written in the sandbox" ]; then
        line "workspace/hello.txt" "on the host, as written"
else
        line "workspace/hello.txt" "MISSING on the host"
        fail=$((fail + 1))
fi
# absent FILE LABEL: FILE must not exist on the host (if it does, it leaked:
# say so and remove it, it is ours)
absent() {
        if [ -e "$1" ] || [ -L "$1" ]; then
                line "$2" "LEAKED to the host (removed)"
                rm -rf "$1"
                fail=$((fail + 1))
        else
                line "$2" "not on the host"
        fi
}
absent "$ETC_FILE" "$ETC_FILE"
absent "$HOME_FILE" "\$HOME/x"
absent "$TMP_FILE" "$TMP_FILE"
absent "$WS/.git/hooks/pre-commit" ".git/hooks/pre-commit"
absent "$WS/.vscode" "workspace/.vscode"
if command -v git > /dev/null 2>&1; then
        if [ -z "$(HOME=$FAKE_HOME git -C "$WS" diff --cached --name-only 2> /dev/null)" ]; then
                line "git index" "unchanged"
        else
                line "git index" "CHANGED by the sandboxed git add"
                fail=$((fail + 1))
        fi
fi

say
say "what enforced it (stockade explain, in brief):"
(cd "$WS" && HOME=$FAKE_HOME XDG_CONFIG_HOME=$D/xdg "$STK" explain 2> /dev/null) |
        sed -n '/^stack:/,/^settings:/p; /^enforcement:/,$p' | grep -v '^settings:' | sed 's/^/  /'

say
if [ $fail -eq 0 ]; then
        say "demo: OK: the workspace was writable; /etc, \$HOME, the host /tmp, .git and .vscode were not; the ssh key, the API key and the host's network were out of reach."
        exit 0
fi
say "demo: FAILED: $fail check(s) did not behave; see above."
exit 1
