#!/bin/sh
# perm_rules through the real CLI: an allowed command runs, a denied one
# exits 240 without running (its marker file is never created), an ASK is
# denied under `approval: never` (and with no approval module), explain
# shows the verdict and, with -v, the rule for each simple command; a bad
# pattern is a policy error naming it; the audit log records the decision.
# The stacks enforce nothing else (write: [/]), so no privilege is needed.
. "$(dirname "$0")/../../../t/lib.sh"

[ -x "$STK" ] || { skip "perm_rules" "no stockade binary at $STK"; exit 0; }
[ -f "$STK_BUILD/modules/perm_rules.so" ] || { skip "perm_rules" "module not built"; exit 0; }
export XDG_CONFIG_HOME="$T_TMP/xdg"   # no user layer from the real home

RULES='deny: ["rm -rf *", "touch */denied.marker"], ask: ["touch */ask.marker", "curl *"], allow: ["touch *", "true", "echo *", "ls *"]'
policy() {  # policy FILE APPROVAL ARGS
        cat > "$1" <<EOF
stockade: 1
settings:
  workspace: "$T_TMP"
  write: [/]
  private_tmp: false
  git: off
  protect_defaults: false
  network: { mode: on }
  approval: $2
stack:
  - { phase: permission, control: required, module: perm_rules, args: { $3 } }
EOF
}
P=$T_TMP/p.yaml
policy "$P" never "$RULES, default: deny"
policy "$T_TMP/on-request.yaml" on-request "$RULES, default: deny"
run() { (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" "$@"); }
M=$T_TMP/m

# not_run NAME MARKER CMD...: exits 240 and MARKER does not exist afterwards
not_run() {
        name=$1 marker=$2; shift 2
        rm -f "$marker"
        "$@" > "$T_TMP/.out" 2>&1; st=$?
        if [ "$st" = "$STK_EXIT_DENIED" ] && [ ! -e "$marker" ]; then ok "$name"
        else not_ok "$name" "status $st, marker $(ls "$marker" 2>&1): $(tail -c 300 "$T_TMP/.out" | tr '\n' ' ')"; fi
}

# --- allowed commands run --------------------------------------------------------
rm -f "$M/allowed.marker"; mkdir -p "$M"
check_status "allowed: touch runs" 0 run -- touch "$M/allowed.marker"
check "allowed: the marker exists" test -e "$M/allowed.marker"
rm -f "$M/sh.marker"
check_status "allowed: every part of a sh -c string allowed" 0 run -- sh -c "true && echo hi > /dev/null; touch '$M/sh.marker'"
check "allowed: sh -c marker exists" test -e "$M/sh.marker"

# --- denied commands exit 240 and do not run ---------------------------------------
not_run "denied: argv" "$M/denied.marker" run -- touch "$M/denied.marker"
not_run "denied: after ; in sh -c" "$M/denied.marker" run -- sh -c "true; touch '$M/denied.marker'"
not_run "denied: inside \$( )" "$M/denied.marker" run -- sh -c "echo \$(touch '$M/denied.marker')"
not_run "denied: behind env and timeout" "$M/denied.marker" run -- env A=1 timeout 5 touch "$M/denied.marker"
not_run "denied: nested bash -c" "$M/denied.marker" run -- bash -c "sh -c 'touch $M/denied.marker'"
not_run "denied: quotes splitting the name" "$M/denied.marker" run -- sh -c "to''uch '$M/denied.marker'"
not_run "denied: by default (no pattern matches)" "$M/default.marker" run -- sh -c "cp /dev/null '$M/default.marker'"
check_output "denied: the message names perm_rules" 'denied by perm_rules' run -- rm -rf "$M/nothing"

# --- ASK: no approval here, so denied ---------------------------------------------
not_run "ask: approval never denies" "$M/ask.marker" run -- touch "$M/ask.marker"
check_output "ask: the message says approval: never" 'denied by approval: never' run -- touch "$M/ask.marker"
not_run "ask: eval is not seen through" "$M/eval.marker" run -- sh -c "eval 'touch $M/eval.marker'"
not_run "ask: a pipe into a shell" "$M/pipe.marker" run -- sh -c "echo 'touch $M/pipe.marker' | sh"
not_run "ask: \$X as the program" "$M/var.marker" run -- sh -c "X=touch; \$X '$M/var.marker'"
not_run "ask: unparseable" "$M/parse.marker" run -- sh -c "touch '$M/parse.marker"
rm -f "$M/ask.marker"
(cd "$T_TMP" && "$STK" run --policy "$T_TMP/on-request.yaml" --workspace "$T_TMP" -- touch "$M/ask.marker") \
        > "$T_TMP/.out" 2>&1; st=$?
if [ "$st" = "$STK_EXIT_DENIED" ] && [ ! -e "$M/ask.marker" ] && grep -q 'no approval module answered' "$T_TMP/.out"
then ok "ask: on-request with no approval module denies"
else not_ok "ask: on-request with no approval module denies" "status $st: $(tail -c 300 "$T_TMP/.out")"; fi

# --- explain shows the verdict and the trail ----------------------------------------
ex() { "$STK" explain --policy "$P" --workspace "$T_TMP" "$@"; }
check_output "explain: deny" 'verdict: deny \(decided by perm_rules\)' ex -- sh -c 'ls; rm -rf /'
check_output "explain: allow" 'verdict: allow \(decided by perm_rules\)' ex -- ls -la
check_output "explain: ask becomes deny under approval never" 'verdict: deny \(decided by approval: never\)' ex -- curl x
check_output "explain -v: the rule for the simple command" 'deny: rm -rf / <- deny "rm -rf \*"' ex -v -- sh -c 'ls; rm -rf /'
check_output "explain -v: the allowed part too (debug)" 'allow: ls <- allow "ls \*"' ex -v -v -- sh -c 'ls; rm -rf /'
check_output "explain -v -v: why ASK" 'ask: eval ls <- eval runs a string built at run time' ex -v -v -- sh -c 'eval ls'
check_output "explain --details: the rules in effect" 'deny +"rm -rf \*", "touch \*/denied.marker"' ex --details
ex --json -- sh -c 'ls; rm -rf /' > "$T_TMP/explain.json" 2>/dev/null
check "explain --json: permission verdict deny" python3 -c "
import json,sys; j=json.load(open(sys.argv[1])); assert j['permission']['verdict']=='deny', j['permission']" "$T_TMP/explain.json"

# --- audit: one perm_rules record with the commands and rules ------------------------
run --audit "$T_TMP/audit.jsonl" -- sh -c "true; rm -rf '$M/nothing'" > /dev/null 2>&1
check "audit: perm_rules record names the rule" python3 -c "
import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
pr=[r for r in recs if r.get('type')=='perm_rules']
assert len(pr)==1 and pr[0]['verdict']=='deny', pr
cmds={c['command']:c for c in pr[0]['commands']}
assert cmds['true']['verdict']=='allow', cmds
assert any(c['rule']=='deny \"rm -rf *\"' for c in pr[0]['commands']), cmds" "$T_TMP/audit.jsonl"

# --- policy errors name the pattern ----------------------------------------------------
policy "$T_TMP/bad.yaml" never 'deny: ["rm [oops"]'
check_status "bad glob: policy error" "$STK_EXIT_POLICY" "$STK" run --policy "$T_TMP/bad.yaml" --workspace "$T_TMP" -- true
check_output "bad glob: the message names the pattern" 'deny: pattern "rm \[oops" has an unclosed \[' \
        "$STK" run --policy "$T_TMP/bad.yaml" --workspace "$T_TMP" -- true
policy "$T_TMP/bad2.yaml" never 'allow: ["ls *", ""]'
check_output "empty pattern: named" 'allow: pattern "" is empty' "$STK" check --policy "$T_TMP/bad2.yaml" --workspace "$T_TMP"
policy "$T_TMP/bad3.yaml" never 'default: sometimes'
check_status "unknown default: policy error" "$STK_EXIT_POLICY" "$STK" run --policy "$T_TMP/bad3.yaml" --workspace "$T_TMP" -- true
policy "$T_TMP/bad4.yaml" never 'deny: ["x"], permit: ["y"]'
check_output "unknown argument: file:line:col from the core" 'bad4.yaml:[0-9]+:[0-9]+.*unknown argument "permit"' \
        "$STK" run --policy "$T_TMP/bad4.yaml" --workspace "$T_TMP" -- true

# --- the shipped "agent" profile ---------------------------------------------------------
if "$STK" explain --profile agent --workspace "$T_TMP" > /dev/null 2>&1; then
        check_output "agent profile: ls allowed" 'verdict: allow' "$STK" explain --profile agent --workspace "$T_TMP" -- ls
        check_output "agent profile: git push needs an approval (asked)" 'verdict: ask \(decided by perm_rules\)' \
                "$STK" explain --profile agent --workspace "$T_TMP" -- sh -c 'git add . && git push origin main'
        check_output "agent profile: force push denied" 'verdict: deny \(decided by perm_rules\)' \
                "$STK" explain --profile agent --workspace "$T_TMP" -- git push --force origin main
else
        skip "agent profile" "stockade explain --profile agent fails here"
fi
