#!/bin/sh
# The ssh-agent opt-in (issue 15): with SSH_AUTH_SOCK let in (env.allow,
# here by --allow-env), that one socket is reachable inside, on both
# stacks, from the host's /tmp (behind the private /tmp) and from outside
# it; another socket of its directory is not, and without the opt-in the
# variable is stripped and the socket unreachable.  Judged by ssh-add -l's
# status (1: connected, no identities; 2: no connection).
. "$(dirname "$0")/../lib.sh"

command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null || { skip "ssh-agent" "no ssh-agent/ssh-add here"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg
WS=$T_TMP/ws
mkdir -p "$WS"
# python3 S: a unix server at S, answering "hi"
sibling() { python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); time.sleep(60)' "$1" & T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"; }
try_connect='import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused", e.errno)'

for where in tmp var; do
        case $where in
        tmp) D=$(mktemp -d /tmp/stockade-agent-test.XXXXXX) ;;
        var) D=$(mktemp -d "$T_TMP/agent.XXXXXX") ;;
        esac
        T_CLEANUP="$T_CLEANUP; rm -rf '$D'"
        out=$(ssh-agent -a "$D/agent.sock") || { not_ok "$where: ssh-agent starts"; continue; }
        pid=$(printf '%s\n' "$out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
        T_CLEANUP="$T_CLEANUP; kill $pid 2>/dev/null"
        sibling "$D/other.sock"
        t_wait_for -S "$D/other.sock"
        for p in default landlock; do
                (cd "$WS" && SSH_AUTH_SOCK=$D/agent.sock "$STK" run --profile "$p" --allow-env SSH_AUTH_SOCK -- ssh-add -l) \
                        >/dev/null 2>&1; st=$?
                check_status "$p, agent in $where: let in, ssh-add -l reaches the agent" 0 test "$st" = 1
                check_output "$p, agent in $where: another socket of its directory stays unreachable" '^refused' \
                        sh -c "cd '$WS' && SSH_AUTH_SOCK='$D/agent.sock' '$STK' run --profile $p --allow-env SSH_AUTH_SOCK -- python3 -c '$try_connect' '$D/other.sock'"
                (cd "$WS" && SSH_AUTH_SOCK=$D/agent.sock "$STK" run --profile "$p" -- sh -c 'echo "[$SSH_AUTH_SOCK]"') \
                        > "$T_TMP/strip" 2>/dev/null
                check_output "$p, agent in $where: not let in, the variable is stripped" '^\[\]$' cat "$T_TMP/strip"
                check_output "$p, agent in $where: not let in, the socket is unreachable" '^refused' \
                        sh -c "cd '$WS' && '$STK' run --profile $p -- python3 -c '$try_connect' '$D/agent.sock'"
        done
done
# Fail closed: a value that is not the user's socket stops the run.
(cd "$WS" && SSH_AUTH_SOCK=$WS "$STK" run --allow-env SSH_AUTH_SOCK -- true) 2>"$T_TMP/err"; st=$?
check_status "SSH_AUTH_SOCK naming a directory: the run is refused" 0 test "$st" = "$STK_EXIT_SETUP"
check_output "... saying why" 'env.allow lets the agent in, but .* is not a socket' cat "$T_TMP/err"
