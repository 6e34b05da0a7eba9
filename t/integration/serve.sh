#!/bin/sh
# Issue 16, part 3: `stockade serve --socket PATH`, the warm session behind
# a unix socket: commands with the client's own stdio, status back, the
# verdict of a refusal, the socket's modes and SO_PEERCRED, a client that
# hangs up, no command outliving the server, a policy edit seen.
. "$(dirname "$0")/../lib.sh"
linux_only
command -v python3 >/dev/null || { skip "serve" "no python3"; exit 0; }
t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
C="$(cd "$(dirname "$0")/serve" && pwd)/client.py"
# The socket's directory is in a reachable one: the refused-peer check below
# runs a client as another user, who must get as far as the socket.
t_reachable_dir
RUN=$T_REACH/run SOCK=$T_REACH/run/s.sock
DENIED='Read-only file system|Permission denied'

start_server() { # start_server ARGS...: the server, stopped at the end
        "$STK" serve --socket "$SOCK" --workspace "$T_WS" "$@" 2> "$T_TMP/server.err" &
        SERVER=$!
        T_CLEANUP="$T_CLEANUP; kill $SERVER 2>/dev/null"
        t_wait_for -S "$SOCK"
        cp /dev/null "$T_TMP/server.err"
}
call() { (cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- "$@"); }

start_server
check "the socket appears" test -S "$SOCK"
check_output "the socket is 0600" '^600$' stat -c %a "$SOCK"
check_output "its directory is 0700" '^700$' stat -c %a "$RUN"
check_output "a command writes to the client's own stdout" '^hello$' call sh -c 'echo hello'
check_status "its exit status comes back" 7 call sh -c 'exit 7'
check "a write in the workspace lands on the host" call sh -c 'echo w > served.txt'
check "... and is there" grep -qx w "$T_WS/served.txt"
check_output "the sandbox holds: /etc is read-only" "$DENIED" call sh -c 'touch /etc/stockade-serve-test'
check_output "stdin is the client's" '^fed$' sh -c 'echo fed | (cd "$1" && python3 "$2" "$3" -- cat)' sh "$T_WS" "$C" "$SOCK"
check_output "cwd is the client's" "^$T_WS/sub\$" sh -c 'mkdir -p "$1/sub" && cd "$1/sub" && python3 "$2" "$3" -- pwd' sh "$T_WS" "$C" "$SOCK"

# Malformed requests get an answer naming the problem; the server goes on.
py() { python3 -c "import sys; sys.path.insert(0, '$(dirname "$C")'); from client import request; $1"; }
check_output "a request that is not JSON: the byte is named" 'byte 0' py "print(request('$SOCK', None, raw=b'x{\n'))"
check_output "no fds: refused" 'three fds' py "print(request('$SOCK', ['true'], fds=()))"
check_output "an unknown member: refused" 'does not take' py "print(request('$SOCK', None, raw=b'{\"argv\":[\"true\"],\"cwd\":\"/\",\"x\":1}\n'))"
check_output "the server still answers" '^after$' call echo after

# Another uid may not connect: the directory keeps it out, SO_PEERCRED too.
if [ "$(id -u)" = 0 ] && id stkuser >/dev/null 2>&1; then
        chmod 711 "$RUN"  # let stkuser reach the socket itself: SO_PEERCRED must stop it
        chmod 666 "$SOCK"
        su stkuser -s /bin/sh -c "python3 -c \"
import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect('$SOCK')
socket.send_fds(s,[b'{\\\"argv\\\":[\\\"touch\\\",\\\"$T_WS/by-stkuser\\\"],\\\"cwd\\\":\\\"/\\\"}\\n'],[0,1,2])
print('reply', repr(s.recv(100)))\"" > "$T_TMP/peer.out" 2>&1
        check_output "another uid's connection is closed without an answer" "^reply b''|BrokenPipeError|ConnectionResetError" cat "$T_TMP/peer.out"
        check_status "... and ran nothing" 1 test -e "$T_WS/by-stkuser"
        chmod 700 "$RUN"; chmod 600 "$SOCK"
else
        skip "another uid may not connect" "needs root and a user stkuser to connect as (su)"
fi

# A client that hangs up ends its command; no command outlives the server.
mark="300.$$"
py "
import socket,json,os
s=socket.socket(socket.AF_UNIX); s.connect('$SOCK')
socket.send_fds(s,[(json.dumps({'argv':['sh','-c','exec sleep $mark'],'cwd':'$T_WS'})+'\n').encode()],[0,1,2])
import time
for _ in range(100):
    if os.system('pgrep -f \"^sleep $mark\$\" >/dev/null') == 0: break
    time.sleep(0.1)
s.close()"
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do pgrep -f "^sleep $mark\$" >/dev/null || break; sleep 0.2; done
check_status "a client that hangs up ends its command" 1 pgrep -f "^sleep $mark\$"
(cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- sh -c "exec sleep $mark") & held=$!
for _ in $(seq 100); do pgrep -f "^sleep $mark\$" >/dev/null && break; sleep 0.1; done
check "a command runs while the server is killed" pgrep -f "^sleep $mark\$"
# (from the workspace: a clone under /tmp is not there in the sandbox, whose /tmp is its own)
[ -S "$SOCK" ] && (cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- true) && ok "the server outlived the hang-up" || not_ok "the server outlived the hang-up" "$(cat "$T_TMP/server.err")"
kill -9 $SERVER; wait $SERVER 2>/dev/null
for _ in $(seq 50); do pgrep -f "^sleep $mark\$" >/dev/null || break; sleep 0.1; done
check_status "a killed server leaves no command behind" 1 pgrep -f "^sleep $mark\$"
wait $held 2>/dev/null

# A restart replaces the dead server's socket; a policy edit is seen.
start_server --profile agent
check_status "agent profile: a force push is denied (240)" "$STK_EXIT_DENIED" call git push --force origin main
check_output "... with the verdict" '"verdict": *"deny"' py "print(__import__('json').dumps(request('$SOCK', ['git','push','--force','o','m'], cwd='$T_WS')))"
mkdir -p "$XDG_CONFIG_HOME/stockade"
printf 'stockade: 1\nsettings: [\n' > "$XDG_CONFIG_HOME/stockade/agent.yaml"
check_status "a broken user layer written between commands stops the next (241)" "$STK_EXIT_POLICY" call true
rm "$XDG_CONFIG_HOME/stockade/agent.yaml"
check_status "its removal is seen too" 0 call true
check_output "a wrong directory mode is refused" 'mode 0700' sh -c 'mkdir -p "$1/open" && chmod 755 "$1/open" && "$2" serve --socket "$1/open/s" 2>&1' sh "$T_TMP" "$STK"
