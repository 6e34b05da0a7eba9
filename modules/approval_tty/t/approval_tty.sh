#!/bin/sh
# approval_tty through the real CLI, with a human played by pty-helper: it
# makes a new pseudo-terminal the controlling terminal of `stockade run`,
# waits for the prompt there and types the answer, while the command's own
# stdin/stdout are files.  A t_scripted line says ASK for every command.
# Then `stockade approvals`, and what the sandboxed command can reach of
# the terminal and the state file (the default profile's stack).
. "$(dirname "$0")/../../../t/lib.sh"

H="$STK_BUILD/t/helpers/pty-helper"
[ -x "$STK" ] || { skip "approval_tty" "no $STK"; exit 0; }
[ -f "$STK_BUILD/modules/approval_tty.so" ] || { skip "approval_tty" "module not built"; exit 0; }
[ -x "$H" ] || { skip "approval_tty" "no $H"; exit 0; }
[ -f "$STK_BUILD/t/modules/t_scripted.so" ] || { skip "approval_tty" "no t_scripted test module"; exit 0; }
if [ "$(t_backend)" != linux ] && [ "$(id -u)" = 0 ]; then
        skip "approval_tty" "root: the $(t_backend) build refuses sandboxed runs as root (core/os/os.h); run the tests as a user"
        exit 0
fi

export XDG_CONFIG_HOME="$T_TMP/xdg"      # no user layer from the real home
export XDG_STATE_HOME="$T_TMP/xdgstate"  # nor its remembered answers
T_WS="$T_TMP/ws"
mkdir -p "$T_WS"
STATE="$T_TMP/state/approvals"
P="$T_TMP/p.yaml"
IN="$T_TMP/in"
RAN="$T_TMP/ran"
# stdin holds an "n" first: if the prompt read stdin, the answer would be no.
printf 'n\nhello-stdin\n' > "$IN"

# open_policy [TIMEOUT] [STATE] [APPROVAL]: enforcement left out (only the
# permission phase is under test), a t_scripted line asking, approval_tty.
open_policy() {
        cat > "$P" <<EOF
stockade: 1
settings:
  workspace: $T_WS
  write: [$T_WS]
  private_tmp: false
  git: off
  protect_defaults: false
  network: { mode: on }
  best_effort: [write, process, ipc, metadata]
  approval: ${3:-on-request}
stack:
  - { phase: permission, control: required, module: t_scripted, args: { result: ask } }
  - { phase: permission, control: sufficient, module: approval_tty, args: { timeout: ${1:-10}, state_file: "${2:-$STATE}" } }
EOF
}

# drive "HELPER-OPTS" CMD...: `stockade run CMD` under a new pty; sets $st.
# The command's stdout is $T_TMP/out, stockade's stderr $T_TMP/err, what
# the terminal showed $T_TMP/tty, the helper's own report $T_TMP/helper.err.
drive() {
        hopts=$1; shift
        start=$(date +%s)
        (cd "$T_WS" && "$H" $hopts -i "$IN" -o "$T_TMP/out" -e "$T_TMP/err" -l "$T_TMP/tty" -- \
                "$STK" run --policy "$P" --workspace "$T_WS" -- "$@") 2> "$T_TMP/helper.err"
        st=$?
        took=$(( $(date +%s) - start ))
}
prompts() { grep -c '? y = yes once' "$T_TMP/tty"; }
ran() { [ -e "$RAN" ] && echo yes || echo no; }
why() { echo "status $st, ran $(ran), $(prompts) prompts, ${took}s: $(tr '\n' ' ' < "$T_TMP/err" | tail -c 300)"; }
# expect NAME STATUS RAN PROMPTS: the last drive
expect() {
        if [ "$st" = "$2" ] && [ "$(ran)" = "$3" ] && [ "$(prompts)" = "$4" ]; then ok "$1"; else not_ok "$1" "$(why)"; fi
}
restored() {
        if grep -q '^termios: restored' "$T_TMP/helper.err"; then ok "$1: terminal mode restored"
        else not_ok "$1: terminal mode restored" "$(cat "$T_TMP/helper.err")"; fi
}
CMD='cat; touch "$0"'
KEY="sh -c 'cat; touch \"\$0\"' $RAN"

# --- y: once ----------------------------------------------------------------
open_policy
rm -f "$RAN"; drive "-a y" sh -c "$CMD" "$RAN"
expect "y: the command runs" 0 yes 1
restored "y"
if [ "$(cat "$T_TMP/out")" = "$(cat "$IN")" ]; then ok "the command reads its own stdin, the prompt does not"
else not_ok "the command reads its own stdin, the prompt does not" "out: $(cat "$T_TMP/out")"; fi
if grep -qF "    $KEY" "$T_TMP/tty" && grep -q 'asked by t_scripted' "$T_TMP/tty"; then ok "the prompt shows the argv quoted and who asked"
else not_ok "the prompt shows the argv quoted and who asked" "$(cat "$T_TMP/tty")"; fi
if grep -q 'Allow?' "$T_TMP/err" "$T_TMP/out"; then not_ok "the prompt is on the terminal only"
else ok "the prompt is on the terminal only"; fi
if [ ! -e "$STATE" ]; then ok "y: nothing remembered"; else not_ok "y: nothing remembered" "$(cat "$STATE")"; fi

# --- n: deny once -------------------------------------------------------------
rm -f "$RAN"; drive "-a n" sh -c "$CMD" "$RAN"
expect "n: denied (240), did not run" $STK_EXIT_DENIED no 1
rm -f "$RAN"; drive "-a no" sh -c "$CMD" "$RAN"
expect "n: asked again next time" $STK_EXIT_DENIED no 1

# --- a: always ----------------------------------------------------------------
rm -f "$RAN"; drive "-a a" sh -c "$CMD" "$RAN"
expect "a: the command runs" 0 yes 1
if grep -qxF "allow command $KEY" "$STATE" 2>/dev/null; then ok "a: the state file has the line"
else not_ok "a: the state file has the line" "$(cat "$STATE" 2>&1)"; fi
mode=$(stat -c %a "$STATE" 2>/dev/null)/$(stat -c %a "$(dirname "$STATE")" 2>/dev/null)
check_status "a: state file 0600 in a 0700 directory ($mode)" 0 test "$mode" = 600/700
grep -q 'remembered in' "$T_TMP/tty" && ok "a: the terminal says where it is remembered" || not_ok "a: the terminal says where it is remembered"
rm -f "$RAN"; drive "" sh -c "$CMD" "$RAN"
expect "a: next run does not prompt" 0 yes 0
open_policy 1
rm -f "$RAN"; drive "" sh -c "$CMD" "$RAN" extra-arg
expect "a: another argv is another question (asked, no answer: denied)" $STK_EXIT_DENIED no 1

# --- N: never -----------------------------------------------------------------
open_policy 3
rm -f "$RAN"; drive "-a N" touch "$RAN"
expect "N: denied now" $STK_EXIT_DENIED no 1
grep -qxF "deny command touch $RAN" "$STATE" && ok "N: the state file has the line" || not_ok "N: the state file has the line" "$(cat "$STATE")"
rm -f "$RAN"; drive "-a y" touch "$RAN"
expect "N: denied next time without a prompt" $STK_EXIT_DENIED no 0
grep -q 'remembered "never"' "$T_TMP/err" && ok "N: stderr says it was remembered" || not_ok "N: stderr says it was remembered" "$(why)"

# --- words, and a wrong answer asked again ------------------------------------------
rm -f "$RAN"; drive "-a always" sh -c 'touch "$0"' "$RAN"
expect "the word always works" 0 yes 1
rm -f "$RAN"; drive "-a maybe -a yes" sh -c 'touch "$0" # again' "$RAN"
expect "an answer that is none is asked again" 0 yes 2

# --- no answer: DENY after the timeout ----------------------------------------------
open_policy 1
rm -f "$RAN"; drive "" sh -c 'touch "$0"' "$RAN" no-answer
expect "no answer: denied" $STK_EXIT_DENIED no 1
if [ "$took" -ge 1 ] && [ "$took" -le 6 ]; then ok "no answer: denied after the 1 s timeout (${took}s)"; else not_ok "no answer: denied after the 1 s timeout" "$(why)"; fi
grep -q 'no answer within 1 s.*perm_rules allow' "$T_TMP/err" && ok "no answer: stderr says how to allow it in policy" || not_ok "no answer: stderr says how to allow it in policy" "$(why)"
restored "no answer"

# --- no terminal at all ----------------------------------------------------------------
open_policy 30
rm -f "$RAN"; drive "-n" sh -c 'touch "$0"' "$RAN" no-terminal
expect "no terminal: denied" $STK_EXIT_DENIED no 0
if [ "$took" -le 5 ]; then ok "no terminal: denied at once, not after the 30 s timeout (${took}s)"; else not_ok "no terminal: denied at once" "$(why)"; fi
grep -q 'no terminal to ask on (/dev/tty: .*perm_rules allow' "$T_TMP/err" && ok "no terminal: stderr says why and how to allow it" || not_ok "no terminal: stderr says why and how to allow it" "$(why)"

# --- ^C at the prompt -------------------------------------------------------------------
open_policy 10
rm -f "$RAN"; drive "-a ^C" sh -c 'touch "$0"' "$RAN" interrupted
expect "^C at the prompt: stockade ends by SIGINT, nothing runs" 130 no 1
restored "^C"

# --- approval: never -- the module is not even asked --------------------------------------
open_policy 10 "$STATE" never
rm -f "$RAN"; drive "-a y" sh -c 'touch "$0"' "$RAN" approval-never
expect "approval: never: denied without a prompt" $STK_EXIT_DENIED no 0

# --- a state file the sandbox could write is not used ----------------------------------------
open_policy 10 "$T_WS/state/approvals"
rm -f "$RAN"; drive "-a a" sh -c 'touch "$0"' "$RAN" beneath
expect "state file beneath a writable root: answered" 0 yes 1
if [ ! -e "$T_WS/state/approvals" ] && grep -q 'beneath the writable root' "$T_TMP/err"; then ok "state file beneath a writable root: not written, and said so"
else not_ok "state file beneath a writable root: not written, and said so" "$(why)"; fi

# --- an untrusted state file: remembered ALLOWs ignored, DENYs kept ---------------------------
open_policy 1
chmod 666 "$STATE"
rm -f "$RAN"; drive "" sh -c "$CMD" "$RAN"
expect "group/other-writable state file: its allow is not used (asked)" $STK_EXIT_DENIED no 1
grep -q 'remembered "always" is ignored.*writable by group or others' "$T_TMP/err" && ok "untrusted state file: said so" || not_ok "untrusted state file: said so" "$(why)"
rm -f "$RAN"; drive "" touch "$RAN"
expect "untrusted state file: its deny still applies" $STK_EXIT_DENIED no 0
before=$(cksum < "$STATE")
check_status "stockade approvals revoke refuses an untrusted file" 1 "$STK" approvals --file "$STATE" revoke 1
check_status "... and leaves it as it was" 0 test "$(cksum < "$STATE")" = "$before"
chmod 600 "$STATE"

# --- stockade approvals -------------------------------------------------------------------------
A() { "$STK" approvals --file "$STATE" "$@"; }
check_output "approvals list numbers the decisions" "^ +1  allow command sh -c 'cat; touch" A list
check_output "approvals list shows a deny" "deny  command touch $RAN" A list
n=$(A list | grep -c '^ *[0-9]')
check "approvals revoke N" A revoke 1
check_status "revoke N removed one line" 0 test "$(A list | grep -c '^ *[0-9]')" = $((n - 1))
check "approvals revoke KEY" A revoke command touch "$RAN"
if ! grep -q "touch $RAN\$" "$STATE"; then ok "revoke KEY removed that line"; else not_ok "revoke KEY removed that line" "$(cat "$STATE")"; fi
rm -f "$RAN"; open_policy 3; drive "-a y" touch "$RAN"
expect "after revoke the question is asked again" 0 yes 1
check_output "the remaining line is the one with quotes" "allow command sh -c 'touch \"\\\$0\"' " A list
check "approvals revoke command ARGV..., typed as it would be run" A revoke command sh -c 'touch "$0"' "$RAN"
if ! grep -q "^allow command" "$STATE"; then ok "revoke by argv removed that line"; else not_ok "revoke by argv removed that line" "$(cat "$STATE")"; fi
check_status "revoke of something not remembered fails" 1 A revoke command no such thing
check_status "revoke N out of range fails" 1 A revoke 99
check "approvals clear" A clear
check_output "after clear: nothing remembered" 'nothing remembered' A list
check_status "approvals with no subcommand: usage" $STK_EXIT_USAGE "$STK" approvals
check_output "approvals default file is under XDG_STATE_HOME" "$XDG_STATE_HOME/stockade/approvals" "$STK" approvals list

# --- the sandboxed command reaches neither the terminal nor the state file ------------------------------
t_make_home
export HOME="$T_HOME"
sbx_policy() {  # the default profile's settings and stack, plus the asking line and approval_tty
        { t_default_settings off | sed 's/approval: never/approval: on-request/'; cat; } > "$P" <<EOF
stack:
  - { phase: permission, control: required,   module: t_scripted, args: { result: $1 } }
  - { phase: pre-exec,   control: sufficient, module: fs_bwrap }
  - { phase: pre-exec,   control: required,   module: fs_landlock }
  - { phase: in-sandbox, control: required,   module: fs_landlock, args: { fallback: true } }
  - { phase: in-sandbox, control: required,   module: fs_guard }
  - { phase: in-sandbox, control: required,   module: net_seccomp }
  - { phase: permission, control: sufficient, module: approval_tty, args: { timeout: 10, state_file: "$STATE" } }
EOF
}
sbx_policy allow
(cd "$T_WS" && HOME="$T_HOME" "$STK" run --policy "$P" --workspace "$T_WS" -- true) > "$T_TMP/first.out" 2>&1; rc=$?
if [ "$rc" != 0 ]; then
        skip "sandboxed command cannot write the state file" "the default stack cannot run here: $(tail -c 200 "$T_TMP/first.out" | tr '\n' ' ')"
        skip "sandboxed command cannot open /dev/tty"
        exit 0
fi
sbx_policy ask
A list > /dev/null; before=$(cksum < "$STATE")
PROBE='if echo y > /dev/tty; then echo TTY-OPENED; fi
if echo "allow command evil" >> "$0"; then echo STATE-WRITTEN; fi
echo done'
rm -f "$RAN"; drive "-a y" sh -c "$PROBE" "$STATE"
if [ "$st" = 0 ] && grep -q '^done$' "$T_TMP/out" && [ "$(prompts)" = 1 ]; then ok "sandbox: approved command ran (default stack)"
else not_ok "sandbox: approved command ran (default stack)" "$(why) out: $(cat "$T_TMP/out")"; fi
if grep -q STATE-WRITTEN "$T_TMP/out" || [ "$(cksum < "$STATE")" != "$before" ]; then not_ok "sandboxed command cannot write the state file" "$(cat "$STATE")"
else ok "sandboxed command cannot write the state file"; fi
# stockade itself has the pty as its terminal; the command, in a session
# of its own, has none: /dev/tty does not open (ENXIO).
if grep -q TTY-OPENED "$T_TMP/out"; then not_ok "sandboxed command cannot open /dev/tty" "$(cat "$T_TMP/out")"
else ok "sandboxed command cannot open /dev/tty"; fi
