#!/bin/sh
# The core's own behaviour, through the real binary: exit statuses, the
# module loader's refusals, control flags through t_scripted, fds, session,
# no_new_privs, signals, leftovers, audit log.  These stacks enforce nothing
# (write: [/], network on) so that only the core is under test.
. "$(dirname "$0")/../lib.sh"

[ -x "$STK" ] || { skip "core" "no $STK"; exit 0; }


add() {  # add YAML-LINE: one stack line
        grep -q '^stack:' "$P" || echo 'stack:' >> "$P"
        echo "  - $1" >> "$P"
}

P=$T_TMP/p.yaml
M=$T_TMP/marker
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
run() { (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" "$@"); }

open_policy "$P"
check_status "exit status is the command's" 7 run -- sh -c 'exit 7'
check_status "a SIGKILLed command gives 137" 137 run -- sh -c 'kill -9 $$'
check_status "command not found gives 127" 127 run -- /nonexistent/cmd
check_status "usage error" $STK_EXIT_USAGE "$STK" run --policy "$P"

# --- the loader refuses, and nothing runs -----------------------------------
for m in t_badabi t_badmagic t_wrongname t_nosymbol no_such_module "../etc/passwd"; do
        open_policy "$P"
        add "{ phase: pre-exec, control: required, module: \"$m\" }"
        rm -f "$M"
        run -- touch "$M" > "$T_TMP/out" 2>&1; st=$?
        if [ "$st" != 0 ] && [ ! -e "$M" ]; then ok "module $m refused, command did not run (status $st)"
        else not_ok "module $m refused" "status $st, marker $(ls "$M" 2>&1)"; fi
done
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_badabi }"
check_output "bad ABI message names the file" 't_badabi.so: built for ABI 99' run -- true
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_wrongname }"
check_output "wrong name is named" 'calls itself "fs_bwrap"' run -- true

# a module file writable by others is refused
cp "$STK_BUILD/t/modules/t_scripted.so" "$STK_BUILD/t/modules/t_groupw.so" 2>/dev/null
chmod 666 "$STK_BUILD/t/modules/t_groupw.so"
T_CLEANUP="rm -f '$STK_BUILD/t/modules/t_groupw.so'"
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_groupw }"
check_output "a world-writable module is refused" 'writable by group or others' run -- true

# --- control flags through the real core ------------------------------------
line() { set -- $*; add "{ phase: $1, control: $2, module: t_scripted, args: { result: $3, marker: $M } }"; }
case_run() {  # case_run NAME WANT_STATUS WANT_RAN(yes/no) LINES...
        name=$1 want=$2 ran=$3; shift 3
        open_policy "$P"
        for l in "$@"; do line $l; done
        rm -f "$M" "$T_TMP/ran"
        run -- touch "$T_TMP/ran" > "$T_TMP/out" 2>&1; st=$?
        has=no; [ -e "$T_TMP/ran" ] && has=yes
        if [ "$st" = "$want" ] && [ "$has" = "$ran" ]; then ok "$name"
        else not_ok "$name" "status $st want $want, ran $has want $ran: $(tr '\n' ' ' < "$T_TMP/out")"; fi
}
case_run "required pre-exec ok runs" 0 yes "pre-exec required ok"
case_run "required pre-exec failure stops the run" $STK_EXIT_SETUP no "pre-exec required fail"
case_run "requisite failure stops the run" $STK_EXIT_SETUP no "pre-exec requisite fail" "pre-exec sufficient ok"
case_run "sufficient failure then required ok runs" 0 yes "pre-exec sufficient fail" "pre-exec required ok"
case_run "in-sandbox required failure stops the run" $STK_EXIT_SETUP no "in-sandbox required fail"
case_run "in-sandbox ok runs" 0 yes "in-sandbox required ok"
case_run "permission deny" $STK_EXIT_DENIED no "permission required deny"
case_run "permission allow" 0 yes "permission required allow"
case_run "permission: required deny beats sufficient allow" $STK_EXIT_DENIED no "permission required deny" "permission sufficient allow"
case_run "permission: error is a deny" $STK_EXIT_DENIED no "permission required fail"
case_run "permission: bogus verdict is a deny" $STK_EXIT_DENIED no "permission required bogus"
case_run "permission: all ignore is a deny" $STK_EXIT_DENIED no "permission required ignore"
case_run "permission ask, no approval module: deny" $STK_EXIT_DENIED no "permission required ask"

# required failure: the rest of the phase still runs (complete report), command not
open_policy "$P"; line "pre-exec required fail"; line "pre-exec required ok"
rm -f "$M"; run -- true >/dev/null 2>&1
check_status "after a required failure the phase went on" 0 test "$(grep -c pre-exec "$M" 2>/dev/null)" = 2
# sufficient success skips the rest
open_policy "$P"; line "pre-exec sufficient ok"; line "pre-exec required fail"
rm -f "$M"; run -- true >/dev/null 2>&1
check_status "sufficient success skipped the next line" 0 test "$(grep -c pre-exec "$M" 2>/dev/null)" = 1

# approvals
open_policy "$P"; line "permission required ask"
add "{ phase: permission, control: optional, module: t_scripted, args: { approve: allow } }"
check_status "ask answered allow by an approval hook runs" 0 run -- true
open_policy "$P"; line "permission required ask"
add "{ phase: permission, control: optional, module: t_scripted, args: { approve: deny } }"
check_status "ask answered deny" $STK_EXIT_DENIED run -- true
sed -i 's/network: { mode: on }/network: { mode: on }\n  approval: never/' "$P"
sed -i 's/approve: deny/approve: allow/' "$P"
check_status "approval never: ask is deny without asking" $STK_EXIT_DENIED run -- true

# a probe failure makes the line fail without calling it
open_policy "$P"
add "{ phase: pre-exec, control: sufficient, module: t_scripted, args: { probe_fail: true, marker: $M } }"
line "pre-exec required ok"
rm -f "$M"; run -- true >/dev/null 2>&1
check_status "a module that cannot run here is skipped (fallback)" 0 test "$(cat "$M" 2>/dev/null)" = pre-exec

# unknown argument and wrong type: policy errors with file:line:col
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_scripted, args: { nope: 1 } }"
check_output "unknown module argument is an error" 'p.yaml:[0-9]+:[0-9]+: error: unknown argument "nope"' run -- true
check_status "unknown module argument: policy error status" $STK_EXIT_POLICY run -- true
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_scripted, args: { probe_fail: maybe } }"
check_status "wrong argument type: policy error status" $STK_EXIT_POLICY run -- true

# --- the command's life -----------------------------------------------------
open_policy "$P"
exec 7>"$T_TMP/leak"
check_status "inherited fds above 2 are closed" 0 run -- sh -c '! [ -e /proc/self/fd/7 ]'
exec 7>&-
# The portable build (os.h) has neither no_new_privs nor a subreaper:
# t/integration/portable.sh runs this file against it and says what it
# covers instead.
BACKEND=$(t_backend)
if [ "$BACKEND" = linux ]; then
check_output "no_new_privs is set" 'NoNewPrivs:[[:space:]]+1' run -- cat /proc/self/status
else skip "no_new_privs is set" "$BACKEND build: no such flag"; fi
check_status "the command leads a new session" 0 run -- sh -c 'test "$(ps -o sid= -p $$ | tr -d " ")" = "$$"'
open_policy "$P"; add "{ phase: pre-exec, control: required, module: t_scripted, args: { setenv: STK_TEST=hello } }"
check_status "plan env from pre-exec reaches the command" 0 run -- sh -c 'test "$STK_TEST" = hello'

# a daemon the command starts is gone when stockade returns
open_policy "$P"
if [ "$BACKEND" = linux ]; then
run -- sh -c "setsid sh -c 'sleep 30; touch $T_TMP/survived' >/dev/null 2>&1 < /dev/null & echo \$! > $T_TMP/daemon.pid"
sleep 0.3
dpid=$(cat "$T_TMP/daemon.pid" 2>/dev/null)
if [ -n "$dpid" ] && ! kill -0 "$dpid" 2>/dev/null; then ok "a daemonised child is gone after stockade returns"
else not_ok "a daemonised child is gone after stockade returns" "pid $dpid still alive"; kill -9 "$dpid" 2>/dev/null; fi
else skip "a daemonised child is gone after stockade returns" "$BACKEND build: setsid leaves the process group, the only sweep there"; fi

# a background child in the command's own process group: gone too (the one
# sweep the portable build has)
open_policy "$P"
run -- sh -c "sleep 31 >/dev/null 2>&1 </dev/null & echo \$! > $T_TMP/bg.pid"
bpid=$(cat "$T_TMP/bg.pid" 2>/dev/null)
# killed but not reaped is gone too: a container's pid 1 may be slow to reap
# an orphan that is not ours (the portable build is no subreaper)
bstat=$(ps -o stat= -p "$bpid" 2>/dev/null)
if [ -n "$bpid" ] && { [ -z "$bstat" ] || [ "${bstat#Z}" != "$bstat" ]; }; then ok "a background child is gone after stockade returns"
else not_ok "a background child is gone after stockade returns" "pid $bpid still alive"; kill -9 "$bpid" 2>/dev/null; fi

# A leftover with children of its own: killing it makes them ours, alive;
# stockade must kill those too, not wait for them (found in review).
open_policy "$P"
start=$(date +%s)
run -- sh -c "(sleep 27 & wait) & sleep 0.2" > /dev/null 2>&1
took=$(( $(date +%s) - start ))
if [ "$took" -lt 10 ] && ! pgrep -f '^sleep 27$' > /dev/null; then ok "a leftover's own children are killed too, without waiting for them"
else not_ok "a leftover's own children are killed too, without waiting for them" "took ${took}s"; pkill -f '^sleep 27$'; fi

# Started with SIGCHLD ignored (a harness's SIG_IGN, kept across exec) or
# blocked: the kernel would reap the child, or no handler would run, and a
# supervisor waiting for SIGCHLD would wait for ever.
open_policy "$P"
check_status "started with SIGCHLD ignored: the status still comes back" 5 \
        timeout -s KILL 20 python3 -c "
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])" "$STK" run --policy "$P" -- sh -c 'exit 5'
check_status "started with SIGCHLD and SIGTERM blocked: the status still comes back" 5 \
        timeout -s KILL 20 python3 -c "
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD, signal.SIGTERM})
os.execv(sys.argv[1], sys.argv[1:])" "$STK" run --policy "$P" -- sh -c 'exit 5'

# SIGTERM to stockade reaches the command
rm -f "$T_TMP/got-term"
"$STK" run --policy "$P" --workspace "$T_TMP" -- sh -c "trap 'touch $T_TMP/got-term; exit 3' TERM; while :; do sleep 0.05; done" &
spid=$!
sleep 0.5
kill -TERM "$spid"
wait "$spid"; st=$?
if [ -e "$T_TMP/got-term" ] && [ "$st" = 3 ]; then ok "SIGTERM is forwarded to the command"
else not_ok "SIGTERM is forwarded to the command" "status $st"; fi

# --- audit log ----------------------------------------------------------------
open_policy "$P"; line "permission required allow"
run --audit "$T_TMP/audit.jsonl" -- true
check_status "audit: a decision and a run record" 0 sh -c "grep -c '\"type\":\"decision\"' '$T_TMP/audit.jsonl' | grep -qx 1 && grep -q '\"type\":\"run\"' '$T_TMP/audit.jsonl'"
check_status "audit: every line is JSON" 0 python3 -c "
import json,sys
[json.loads(l) for l in open('$T_TMP/audit.jsonl')]"

# --- prepare and handoff (ABI 1.4): supervisor to in-sandbox hook ------------
M2=$T_TMP/marker2
for how in direct wrapped; do
        wrap=; [ $how = wrapped ] && wrap="{ phase: pre-exec, control: required, module: t_scripted, args: { wrap: [/usr/bin/env] } }"
        open_policy "$P"
        [ -n "$wrap" ] && add "$wrap"
        add "{ phase: in-sandbox, control: required, module: t_scripted, args: { handoff: 'hello world', marker: $M } }"
        add "{ phase: in-sandbox, control: required, module: t_scripted, args: { marker: $M2 } }"
        add "{ phase: in-sandbox, control: required, module: t_scripted, args: { handoff: second, marker: $M2 } }"
        rm -f "$M" "$M2"
        check_status "$how: prepare's handoffs reach the in-sandbox hooks, the command runs" 0 run -- true
        check "$how: the first line got its text" grep -qx 'handoff:hello world' "$M"
        check "$how: a line that handed nothing over gets nothing, the next its own" \
                sh -c "test \"\$(tr '\n' ' ' < '$M2')\" = 'in-sandbox handoff:second in-sandbox '"
        open_policy "$P"
        [ -n "$wrap" ] && add "$wrap"
        add "{ phase: in-sandbox, control: required, module: t_scripted, args: { prepare_fail: true } }"
        rm -f "$T_TMP/ran"
        check_status "$how: a failing prepare: setup failure" $STK_EXIT_SETUP run -- touch "$T_TMP/ran"
        check_status "$how:   and the command did not run" 1 test -e "$T_TMP/ran"
        check_output "$how:   and the reason is reported" 'prepare failed' run -- true
done

# --- the inner helper: in-sandbox lines run inside the wrapper ----------------
if [ -x /usr/bin/bwrap ] && [ -f "$STK_BUILD/modules/fs_bwrap.so" ]; then
        cat > "$P" <<EOP
stockade: 1
settings:
  workspace: $T_TMP
  write: ["$T_TMP"]
  network: { mode: off }
  best_effort: [net_unix]   # the point here is the inner helper, not the guard
stack:
  - { phase: pre-exec, control: required, module: fs_bwrap }
  - { phase: in-sandbox, control: required, module: t_scripted, args: { result: ok, marker: $M } }
EOP
        rm -f "$M"
        check_status "bwrap + in-sandbox line: the command runs" 0 run -- sh -c 'exit 0'
        check "the in-sandbox hook ran inside the wrapper" grep -qx in-sandbox "$M"
        sed -i 's/result: ok, marker/result: ok, handoff: from-outside, marker/' "$P"
        rm -f "$M"
        check_status "bwrap + a handoff: the command runs" 0 run -- true
        check "the handoff crossed into bwrap" grep -qx handoff:from-outside "$M"
        sed -i 's/handoff: from-outside, //' "$P"
        sed -i 's/result: ok/result: fail/' "$P"
        rm -f "$T_TMP/ran"
        check_status "bwrap + failing in-sandbox line: setup failure" $STK_EXIT_SETUP run -- touch "$T_TMP/ran"
        check_status "... and the command did not run" 1 test -e "$T_TMP/ran"
        check_output "... and the reason is reported" 'in-sandbox phase failed' run -- true
else
        skip "inner helper under bwrap" "no bwrap or fs_bwrap"
fi

# --- host->protected_paths (ABI 1.5): what a permission module checks -------
mkdir -p "$T_TMP/pws/.git/hooks" "$T_TMP/psecret"
cat > "$P" <<EOP
stockade: 1
settings:
  workspace: $T_TMP/pws
  write: ["$T_TMP/pws"]
  hide: ["$T_TMP/psecret"]
  git: whole
  protect_defaults: true
  network: { mode: on }
  best_effort: [write, read_only, hide, private_tmp, metadata, process, ipc, proc]
stack:
  - { phase: permission, control: required, module: t_scripted, args: { protected: true, marker: $M } }
EOP
rm -f "$M"
(cd "$T_TMP" && "$STK" explain --policy "$P" -- true) > /dev/null 2>&1
check_output "protected_paths names the whole .git under git: whole" "^protected:$T_TMP/pws/.git\$" cat "$M"
check_output "protected_paths names a built-in protected name, absent or not" "^protected:$T_TMP/pws/.bashrc\$" cat "$M"
check_output "protected_paths names the hidden paths" "^protected:$T_TMP/psecret\$" cat "$M"
