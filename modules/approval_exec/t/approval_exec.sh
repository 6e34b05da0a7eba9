#!/bin/sh
# approval_exec through the real `stockade run`: t_scripted answers ASK in
# the permission phase, approval_exec runs an approver script, and the
# command runs (marker file) only on a well-formed "allow".  No sandbox
# module: only the approval path is under test.
. "$(dirname "$0")/../../../t/lib.sh"

[ -x "$STK" ] || { skip "approval_exec" "no $STK"; exit 0; }
[ -f "$STK_BUILD/modules/approval_exec.so" ] || { skip "approval_exec" "module not built"; exit 0; }
[ -f "$STK_BUILD/t/modules/t_scripted.so" ] || { skip "approval_exec" "no t_scripted test module"; exit 0; }
command -v python3 > /dev/null || { skip "approval_exec" "no python3 to read the question"; exit 0; }

export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
P=$T_TMP/p.yaml
RAN=$T_TMP/ran
A=$T_TMP/approvers
mkdir -p "$A"

# approver NAME BODY: an executable /bin/sh script $A/NAME
approver() {
        printf '#!/bin/sh\n%s\n' "$2" > "$A/$1" && chmod 755 "$A/$1"
}

# policy [APPROVAL-LINE-ARGS...]: t_scripted asks; one approval_exec line per argument
policy() {
        open_policy "$P"
        cat >> "$P" <<EOF
stack:
  - { phase: permission, control: required, module: t_scripted, args: { result: ask } }
EOF
        for a in "$@"; do
                echo "  - { phase: permission, control: optional, module: approval_exec, args: { $a } }" >> "$P"
        done
}

run() { (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" "$@"); }

# case_run NAME WANT_STATUS WANT_RAN [LOG-PATTERN]: run `touch $RAN` under $P
case_run() {
        rm -f "$RAN"
        run -- touch "$RAN" > "$T_TMP/out" 2>&1; st=$?
        has=no; [ -e "$RAN" ] && has=yes
        if [ "$st" != "$2" ] || [ "$has" != "$3" ]; then
                not_ok "$1" "status $st want $2, ran $has want $3: $(tail -c 400 "$T_TMP/out" | tr '\n' ' ')"
        elif [ -n "${4:-}" ] && ! grep -qE -- "$4" "$T_TMP/out"; then
                not_ok "$1" "no /$4/ in: $(tail -c 400 "$T_TMP/out" | tr '\n' ' ')"
        else
                ok "$1"
        fi
}

# --- allow, with the question checked ------------------------------------------
approver allow 'cat > "$0.question"; echo "{\"verdict\":\"allow\",\"reason\":\"looks fine\"}"'
policy "program: $A/allow"
case_run "an approver's allow runs the command" 0 yes
python3 - "$A/allow.question" "$RAN" "$T_TMP" > "$T_TMP/q.out" 2>&1 <<'EOF'
import json, sys
q = json.loads(open(sys.argv[1], encoding="utf-8").read())
want = {"stockade_question": 1, "kind": "command", "argv": ["touch", sys.argv[2]],
        "cwd": sys.argv[3], "profile": "default", "reason": "t_scripted"}
assert q == want, "got %r" % q
EOF
check_status "the approver got the documented question on stdin" 0 test "$(cat "$T_TMP/q.out")" = ""

# --- deny and ignore ----------------------------------------------------------
approver deny 'echo "{\"verdict\":\"deny\",\"reason\":\"not today\"}"'
policy "program: $A/deny"
case_run "an approver's deny stops the command (240)" $STK_EXIT_DENIED no 'deny: not today'
approver ignore 'echo "{\"verdict\":\"ignore\"}"'
policy "program: $A/ignore"
case_run "ignore with no other approver is a deny" $STK_EXIT_DENIED no 'no approval module answered'
policy "program: $A/ignore" "program: $A/allow"
case_run "ignore passes the question to the next approver" 0 yes

# --- every failure is a deny ---------------------------------------------------
approver garbage 'echo "sure, go ahead"'
policy "program: $A/garbage"
case_run "garbage is a deny, the bytes are shown" $STK_EXIT_DENIED no 'malformed verdict .*DENY "sure, go ahead'
approver trailing 'echo "{\"verdict\":\"allow\"} please"'
policy "program: $A/trailing"
case_run "a verdict with trailing bytes is a deny" $STK_EXIT_DENIED no 'trailing bytes'
approver wrongtype 'echo "{\"verdict\":true}"'
policy "program: $A/wrongtype"
case_run "a verdict of the wrong type is a deny" $STK_EXIT_DENIED no 'not a string'
approver exit1 'echo "{\"verdict\":\"allow\"}"; exit 1'
policy "program: $A/exit1"
case_run "exit status 1 is a deny, whatever it wrote" $STK_EXIT_DENIED no 'exited with status 1'
approver flood 'yes "{\"verdict\":\"allow\"}"'
policy "program: $A/flood"
case_run "a flood on stdout is a deny" $STK_EXIT_DENIED no 'more than 65536 bytes'

approver slow 'echo $$ > "$0.pid"; sleep 30; echo "{\"verdict\":\"allow\"}"'
policy "program: $A/slow, timeout: 1"
start=$(date +%s)
case_run "an approver past its timeout is a deny" $STK_EXIT_DENIED no 'no verdict within 1 s; killed pid'
took=$(( $(date +%s) - start ))
if [ "$took" -le 4 ]; then ok "the timeout is kept (${took}s)"; else not_ok "the timeout is kept" "took ${took}s"; fi
spid=$(cat "$A/slow.pid" 2>/dev/null)
if [ -n "$spid" ] && ! kill -0 "$spid" 2>/dev/null; then ok "the slow approver was killed"
else not_ok "the slow approver was killed" "pid '$spid' alive"; [ -n "$spid" ] && kill -9 "$spid"; fi

# --- what the approver inherits -------------------------------------------------
approver env 'env > "$0.env"; ls /proc/self/fd > "$0.fds"; echo "{\"verdict\":\"allow\"}"'
policy "program: $A/env"
STK_TEST_SECRET=hunter2 run -- true 9> "$T_TMP/leak" > /dev/null 2>&1
if grep -q STK_TEST_SECRET "$A/env.env" 2>/dev/null || ! grep -q '^PATH=' "$A/env.env" 2>/dev/null; then
        not_ok "the approver gets a minimal environment" "$(tr '\n' ' ' < "$A/env.env" 2>&1)"
else ok "the approver gets a minimal environment"; fi
if [ "$(tr '\n' ' ' < "$A/env.fds" 2>&1)" = "0 1 2 3 " ]; then ok "the approver inherits no fd but 0-2"
else not_ok "the approver inherits no fd but 0-2" "$(tr '\n' ' ' < "$A/env.fds" 2>&1)"; fi

# --- arguments: refused before anything runs -------------------------------------
policy "program: allow"
case_run "a relative program is a policy error" $STK_EXIT_POLICY no 'not an absolute path'
policy "program: $A/missing"
case_run "a missing program is a policy error" $STK_EXIT_POLICY no 'program ".*missing"'
approver groupw 'echo "{\"verdict\":\"allow\"}"'
chmod 775 "$A/groupw"
policy "program: $A/groupw"
case_run "a group-writable program is refused" $STK_EXIT_POLICY no 'writable by group or others'
policy "program: $A/allow, timeout: 0"
case_run "timeout 0 is refused" $STK_EXIT_POLICY no 'timeout 0'
approver args 'printf "%s|" "$@" > "$0.args"; echo "{\"verdict\":\"allow\"}"'
policy "program: $A/args, args: [--team, \"two words\"]"
case_run "args reach the approver" 0 yes
check_status "... as argv[1...]" 0 test "$(cat "$A/args.args" 2>&1)" = "--team|two words|"

# a project file must not choose the approver (trusted arguments)
mkdir -p "$T_TMP/proj"
policy
cat > "$T_TMP/proj/.stockade.yaml" <<EOF
stockade: 1
stack:
  - { phase: permission, control: required, module: approval_exec, args: { program: $A/allow } }
EOF
(cd "$T_TMP/proj" && "$STK" run --policy "$P" --workspace "$T_TMP/proj" -- touch "$RAN") > "$T_TMP/out" 2>&1; st=$?
if [ "$st" = $STK_EXIT_POLICY ] && grep -q 'only system and user files may set it' "$T_TMP/out"; then
        ok "a project file cannot name the approver"
elif [ "$st" != 0 ]; then
        skip "a project file cannot name the approver" "the project layer was not read here (status $st)"
else not_ok "a project file cannot name the approver" "status $st: $(tail -c 300 "$T_TMP/out")"; fi

# --- a command that cannot be put into JSON is never asked ------------------------
policy "program: $A/allow"
rm -f "$A/allow.question"
run -- true "$(printf 'caf\351')" > "$T_TMP/out" 2>&1; st=$?
if [ "$st" = $STK_EXIT_DENIED ] && [ ! -e "$A/allow.question" ] && grep -q 'cannot put the question into JSON' "$T_TMP/out"
then ok "an argv that is not UTF-8 is denied without asking"
else not_ok "an argv that is not UTF-8 is denied without asking" "status $st: $(tail -c 300 "$T_TMP/out")"; fi

# --- an approval module as the only permission line does not vote --------------------
# (approval modules are listed as permission lines but answer questions, they
# do not vote: docs/ARCHITECTURE.md, Phases and control flags; with nothing asking,
# the command runs, and the approver is never consulted.)
approver allow 'cat > "$0.question"; echo "{\"verdict\":\"allow\"}"'
rm -f "$A/allow.question"
open_policy "$P"
cat >> "$P" <<EOF2
stack:
  - { phase: permission, control: sufficient, module: approval_exec, args: { program: "$A/allow" } }
EOF2
case_run "an approval-only permission line lets a command run" 0 yes
[ -e "$A/allow.question" ] && not_ok "... without asking anyone" || ok "... without asking anyone"
