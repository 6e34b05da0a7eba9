#!/bin/sh
# Issue 3: the default profile on a host where user namespaces are blocked.
# Not a flag that pretends: the runs happen inside a user namespace whose
# user.max_user_namespaces is 0, so bwrap really cannot make its own; the
# sufficient fs_bwrap line must fall through to fs_landlock + net_seccomp,
# and the same containment must hold.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "fallback" "no $STK"; exit 0; }
blocked() { unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' blocked "$@"; }
if ! blocked true 2>/dev/null; then skip "fallback" "cannot make a user namespace to block them in"; exit 0; fi
if blocked unshare -U true 2>/dev/null; then not_ok "user namespaces blocked for the test" "a nested one still worked"; exit 0; fi
ok "user namespaces blocked for the test"

t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" XDG_CACHE_HOME="$T_TMP/cache"
DENIED='Read-only file system|Permission denied|Operation not permitted'
sbx() { (cd "$T_WS" && blocked "$STK" run --audit "$T_TMP/audit.jsonl" "$@"); }

check_output "explain: fs_bwrap cannot run here, and says why" 'NOT usable here.*why not: ' \
        sh -c "cd '$T_WS' && unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec \"\$0\" explain' '$STK'"
# Top level too (fs_guard's guard_top makes those entries), below it too.
mkdir -p "$T_WS/src"
check "write in the workspace" sbx -- sh -c 'echo new > src/created.txt && echo more >> file.txt && echo top > top.txt'
check "the write is on the host" grep -qx new "$T_WS/src/created.txt"
check "... at the top level too" grep -qx top "$T_WS/top.txt"
check_output "write /etc fails" "$DENIED" sbx -- sh -c 'echo x > /etc/stockade-fallback-test; true'
check_output "write \$HOME fails" "$DENIED" sbx -- sh -c 'echo x > "$HOME/planted"; true'
check_status "nothing planted in \$HOME" 1 test -e "$T_HOME/planted"
check_output "write .git fails" "$DENIED" sbx -- sh -c 'echo x > .git/config; true'
check_output "create .git/hooks/pre-commit fails" "$DENIED" sbx -- sh -c 'echo x > .git/hooks/pre-commit; true'
check_output "reading ~/.ssh/id_rsa fails" "$DENIED" sbx -- sh -c 'cat "$HOME/.ssh/id_rsa"; true'
hostfile=$(mktemp /tmp/stockade-fallback.XXXXXX); echo original > "$hostfile"
T_CLEANUP="rm -f '$hostfile'"
sbx -- sh -c "echo changed > '$hostfile'" >/dev/null 2>&1
check "host /tmp file unchanged" grep -qx original "$hostfile"
check "a private TMPDIR is writable" sbx -- sh -c 'echo x > "$TMPDIR/ok" && test "$TMPDIR" != /tmp'

t_tcp_listener
check_output "TCP to a host listener fails" '^REFUSED' sbx -- python3 -c "$T_TCP_CONNECT" "$T_PORT"
check_output "UDP sockets are refused" 'Operation not permitted' sbx -- python3 -c '
import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'
check_status "exit status passes through" 7 sbx -- sh -c 'exit 7'
# A handled fallback is one notice, naming the cause and the stack that took
# effect (issue 13 §6): it was an error, then "pre-exec failed: No space left
# on device", then a correct run.
sbx -- true > "$T_TMP/fallback.out" 2>&1
check "the fallback is one line of stockade's" sh -c "test \"\$(grep -c '^stockade:' '$T_TMP/fallback.out')\" = 1"
# (Run by a user, the blocked namespace maps root to nobody, so the first
# cause fs_bwrap meets is bwrap's owner, which is true there too.)
check_output "... naming the cause and the stack that took effect" \
        'fs_bwrap .*cannot run here: (user namespaces are blocked|bwrap [^ ]+: owned by neither root nor the user).*goes on without it: fs_landlock, fs_guard, net_seccomp' \
        cat "$T_TMP/fallback.out"
check_output "the run record says fs_bwrap could not take effect" '"module":"fs_bwrap","usable":false' cat "$T_TMP/audit.jsonl"
check_output "... and fs_landlock did" '"phase":"in-sandbox","control":"required","module":"fs_landlock","usable":true' cat "$T_TMP/audit.jsonl"

# unix sockets: the guard needs no namespace (issue 3)
mkdir -p "$T_TMP/outside"
t_unix_listeners "$T_WS/src/in.sock" "$T_TMP/outside/host.sock"
UCONNECT=$T_UNIX_CONNECT
check_output "a unix socket in the workspace is reachable" '^CONNECTED' sbx -- python3 -c "$UCONNECT" "$T_WS/src/in.sock"
check_output "a host unix socket outside it is not" '^REFUSED.*Permission denied' \
        sbx -- python3 -c "$UCONNECT" "$T_TMP/outside/host.sock"
# The per-run TMPDIR is the command's too: a socket it makes there is reachable
# (tmux, ssh ControlMaster, test runners); was EACCES before.
check_output "a unix socket the command makes in its TMPDIR is reachable" '^TMPDIR-SOCKET-OK' sbx -- python3 -c '
import os, socket, tempfile
p = os.path.join(tempfile.mkdtemp(), "s")
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(p); print("TMPDIR-SOCKET-OK")'
