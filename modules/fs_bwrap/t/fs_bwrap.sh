#!/bin/sh
# fs_bwrap through the real CLI: `stockade run --policy FILE` with a fake HOME
# and a git workspace under T_TMP (outside /tmp: the sandbox's /tmp is private).
# Each check runs a command in the sandbox and looks at what it printed, its
# exit status, and what is left on the host.
. "$(dirname "$0")/../../../t/lib.sh"

BWRAP=/usr/bin/bwrap
MODULE_SO="$STK_BUILD/modules/fs_bwrap.so"

skip_all() {
        for c in "write in workspace" "write outside" "host /tmp" ".git read-only" "hooks" \
                 "hidden" "network" "caps" "pin"; do
                skip "$c" "$1"
        done
        exit 0
}

[ -x "$STK" ] || skip_all "no stockade binary at $STK yet"
"$STK" --help 2>&1 | grep -q 'stockade run' || skip_all "$STK has no run command yet"
[ -f "$MODULE_SO" ] || skip_all "fs_bwrap.so not built"
[ -x "$BWRAP" ] || skip_all "no $BWRAP (install bubblewrap)"

t_make_home
t_make_workspace
echo "FIXTURE-NETRC" > "$T_HOME/.netrc"
git -C "$T_WS" config user.email t@example.invalid
git -C "$T_WS" config user.name t
git -C "$T_WS" add file.txt && git -C "$T_WS" commit -qm init
mkdir -p "$T_WS/.git/hooks"

# write_policy FILE [ARGS]: the default profile's settings, fs_bwrap alone.
write_policy() {
        { t_default_settings off net_unix; cat; } > "$1" <<EOF
stack:
  - { phase: pre-exec, control: required, module: fs_bwrap${2:+, args: { $2 \}} }
EOF
}
POL="$T_TMP/policy.yaml"
write_policy "$POL"

# sbx CMD...: run CMD in the sandbox, from the workspace, with the fake HOME.
sbx() {
        (cd "$T_WS" && HOME="$T_HOME" "$STK" run --policy "$POL" --workspace "$T_WS" -- "$@")
}
sbx_policy() {
        pol=$1; shift
        (cd "$T_WS" && HOME="$T_HOME" "$STK" run --policy "$pol" --workspace "$T_WS" -- "$@")
}

# Can this machine run bwrap at all?  (user namespaces; the module names the cause)
sbx true > "$T_TMP/first.out" 2>&1; rc=$?
if [ "$rc" != 0 ]; then
        if grep -q 'user namespaces are blocked' "$T_TMP/first.out"; then
                skip_all "$(grep -o 'user namespaces are blocked.*' "$T_TMP/first.out" | head -n1)"
        fi
        not_ok "sandbox starts" "status $rc: $(tail -c 300 "$T_TMP/first.out" | tr '\n' ' ')"
        exit 0
fi
ok "sandbox starts"

DENIED='Read-only file system|Permission denied'

# ---- writes --------------------------------------------------------------
check "write in workspace" sbx sh -c 'echo new > created.txt && echo more >> file.txt'
check "written file on host" grep -q new "$T_WS/created.txt"
check_status "command status passes through" 7 sbx sh -c 'exit 7'

check_output "write /etc fails" "$DENIED" sbx sh -c 'echo x > /etc/stockade-fs_bwrap-test; true'
[ -e /etc/stockade-fs_bwrap-test ] && not_ok "no file in /etc" || ok "no file in /etc"
check_output "write \$HOME fails" "$DENIED" sbx sh -c 'echo x > "$HOME/planted"; true'
[ -e "$T_HOME/planted" ] && not_ok "no file in \$HOME" || ok "no file in \$HOME"

# host /tmp: the command gets a private one; the host's is neither changed nor added to
HOST_TMP_FILE=$(mktemp /tmp/stockade-test-hosttmp.XXXXXX)
T_CLEANUP="rm -f '$HOST_TMP_FILE' '$HOST_TMP_FILE.new'"
echo original > "$HOST_TMP_FILE"
sbx sh -c "ls -A /tmp; echo changed > '$HOST_TMP_FILE'; echo new > '$HOST_TMP_FILE.new'" > "$T_TMP/tmp.out" 2>&1
if [ "$(cat "$HOST_TMP_FILE")" = original ]; then ok "host /tmp file unchanged"; else not_ok "host /tmp file unchanged"; fi
if [ -e "$HOST_TMP_FILE.new" ]; then not_ok "no new file in host /tmp"; else ok "no new file in host /tmp"; fi
if [ -s "$T_TMP/tmp.out" ]; then
        # listed before it wrote anything: a private /tmp starts empty
        not_ok "private /tmp starts empty" "$(head -c 200 "$T_TMP/tmp.out")"
else
        ok "private /tmp starts empty"
fi

# ---- read-only islands and protected paths ---------------------------------
check_output ".git read-only" "$DENIED" sbx sh -c 'echo x > .git/config; true'
check_output "git commit fails (git: whole)" "$DENIED|Unable to create" sbx sh -c 'git commit -qam x; true'
check_output "creating .git/hooks/pre-commit fails" "$DENIED" \
        sbx sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit; true'
[ -e "$T_WS/.git/hooks/pre-commit" ] && not_ok "no hook on host" || ok "no hook on host"
check_output "creating .vscode fails" "$DENIED|File exists|Is a directory" \
        sbx sh -c 'mkdir -p .vscode && echo "{}" > .vscode/tasks.json; echo x > .gitmodules; true'
if [ -e "$T_WS/.vscode" ] || [ -e "$T_WS/.gitmodules" ]; then
        not_ok "mount points removed after the run" "$(ls -a "$T_WS" | tr '\n' ' ')"
else
        ok "mount points removed after the run"
fi
check_output "masks invisible to git in the sandbox" '^clean$' \
        sbx sh -c '[ -z "$(git status --porcelain --untracked-files=all -- .vscode .gitmodules .envrc)" ] && echo clean'

# ---- hidden paths ----------------------------------------------------------
check_output "reading ~/.ssh/id_rsa fails" 'Permission denied' sbx sh -c 'cat "$HOME/.ssh/id_rsa"; true'
check_output "listing ~/.ssh fails" 'Permission denied' sbx sh -c 'ls "$HOME/.ssh"; true'
check_output "reading ~/.netrc fails" 'Permission denied' sbx sh -c 'cat "$HOME/.netrc"; true'
if sbx sh -c 'cat "$HOME/.ssh/id_rsa" "$HOME/.netrc"' 2>&1 | grep -q FIXTURE; then
        not_ok "no secret printed"
else
        ok "no secret printed"
fi

# bwrap would run the command in $HOME, silently, from a directory it cannot enter
rm -f "$T_WS/ran"
(cd "$T_HOME/.ssh" && HOME="$T_HOME" "$STK" run --policy "$POL" --workspace "$T_WS" -- touch "$T_WS/ran") \
        > "$T_TMP/cwd.out" 2>&1; rc=$?
if [ "$rc" = "$STK_EXIT_SETUP" ] && [ ! -e "$T_WS/ran" ]; then ok "hidden working directory refused"
else not_ok "hidden working directory refused" "status $rc: $(tail -c 200 "$T_TMP/cwd.out")"; fi

# ---- network ---------------------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
        PORTFILE="$T_TMP/port"
        python3 - "$PORTFILE" <<'EOF' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
try:
    while True:
        s.accept()[0].close()
except Exception:
    pass
EOF
        LISTENER=$!
        T_CLEANUP="$T_CLEANUP; kill $LISTENER 2>/dev/null"
        t_wait_for -s "$PORTFILE"
        PORT=$(cat "$PORTFILE" 2>/dev/null)
        CONNECT='import socket,sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3); print("CONNECTED")
except OSError as e:
    print("REFUSED", e)'
        if python3 -c "$CONNECT" "$PORT" | grep -q CONNECTED; then
                check_output "TCP to a host listener fails" '^REFUSED' sbx python3 -c "$CONNECT" "$PORT"
        else
                skip "TCP to a host listener fails" "the listener is not reachable even from outside"
        fi
else
        skip "TCP to a host listener fails" "no python3"
fi

# ---- capabilities and namespaces ------------------------------------------
check_output "CapEff is 0" '^CapEff:[[:space:]]+0+$' sbx grep CapEff /proc/self/status
check_output "CapBnd is 0" '^CapBnd:[[:space:]]+0+$' sbx grep CapBnd /proc/self/status
if command -v unshare >/dev/null 2>&1; then
        check_output "no nested user namespace" '^refused$' sbx sh -c 'unshare -U true 2>/dev/null && echo made || echo refused'
else
        skip "no nested user namespace" "no unshare(1)"
fi
check_output "host processes out of reach" '^unseen$' sbx sh -c "kill -0 $$ 2>/dev/null && echo seen || echo unseen"

# ---- the pin ---------------------------------------------------------------
ZEROS=0000000000000000000000000000000000000000000000000000000000000000
write_policy "$T_TMP/badpin.yaml" "bwrap_sha256: \"$ZEROS\""
rm -f "$T_WS/marker"
check_status "wrong bwrap_sha256 -> $STK_EXIT_INTEGRITY" "$STK_EXIT_INTEGRITY" \
        sbx_policy "$T_TMP/badpin.yaml" touch marker
[ -e "$T_WS/marker" ] && not_ok "command did not run under a wrong pin" || ok "command did not run under a wrong pin"
if command -v sha256sum >/dev/null 2>&1; then
        write_policy "$T_TMP/goodpin.yaml" "bwrap_sha256: \"$(sha256sum "$BWRAP" | cut -d' ' -f1)\""
        check "right bwrap_sha256 runs" sbx_policy "$T_TMP/goodpin.yaml" touch marker
        [ -e "$T_WS/marker" ] && ok "command ran under the right pin" || not_ok "command ran under the right pin"
else
        skip "right bwrap_sha256 runs" "no sha256sum"
fi
write_policy "$T_TMP/relbwrap.yaml" 'bwrap: "bwrap"'
check_status "relative bwrap path refused" "$STK_EXIT_SETUP" sbx_policy "$T_TMP/relbwrap.yaml" true

# ---- the nested-container /proc fallback -------------------------------------
# Simulate a container runtime's /proc mask in a private mount namespace:
# the kernel then refuses a fresh procfs to bwrap's user namespace.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
        export STK T_WS T_HOME POL
        masked() {
                unshare -m --propagation private sh -c 'mount --bind /dev/null /proc/uptime &&
                        cd "$T_WS" && HOME="$T_HOME" "$STK" run --policy "$1" --workspace "$T_WS" -- sh -c "cat /proc/self/status >/dev/null && echo proc-ok"' sh "$1"
        }
        check_output "/proc fallback warns and runs" 'fresh /proc is refused' masked "$POL"
        check_output "/proc fallback keeps /proc usable" '^proc-ok$' masked "$POL"
        write_policy "$T_TMP/nofallback.yaml" 'proc_fallback: false'
        check_status "proc_fallback: false refuses" "$STK_EXIT_SETUP" masked "$T_TMP/nofallback.yaml"
else
        skip "/proc fallback" "needs root and unshare(1)"
fi
