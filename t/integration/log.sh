#!/bin/sh
# stockade log: the audit log as a timeline, its filters, and a damaged log.
. "$(dirname "$0")/../lib.sh"

t_make_workspace
A=$T_TMP/audit.jsonl
cd "$T_WS" || exit 1
"$STK" run --audit "$A" -- true > /dev/null 2>&1
"$STK" run --profile agent --audit "$A" -- sh -c 'git push --force origin main' < /dev/null > /dev/null 2>&1
"$STK" run --audit "$A" -- sh -c 'exit 3' > /dev/null 2>&1
records=$(wc -l < "$A")
denied_run=$(grep '"outcome":"denied"' "$A" | sed 's/.*"run":"\([0-9a-f]*\)".*/\1/')

check_output "a run's record shows outcome, status and argv" \
        '  run +profile=default .*outcome=exited status=3 .*\$ sh -c .exit 3.' "$STK" log "$A"
check_output "a denied decision names its decider" 'decision +phase=permission verdict=deny decider=perm_rules' \
        "$STK" log "$A"
"$STK" log --json "$A" > "$T_TMP/all.jsonl" 2>&1
if cmp -s "$T_TMP/all.jsonl" "$A"; then ok "--json prints every record unchanged"; else not_ok "--json prints every record unchanged"; fi
"$STK" log --denied "$A" > "$T_TMP/denied" 2>&1
if [ -s "$T_TMP/denied" ] && ! grep -v "^[^ ]* [^ ]*  ${denied_run%"${denied_run#????????}"}" "$T_TMP/denied" | grep -q .; then
        ok "--denied shows only the denied run's records"
else
        not_ok "--denied shows only the denied run's records" "$(cat "$T_TMP/denied")"
fi
n=$("$STK" log --json --run "$(printf '%.6s' "$denied_run")" "$A" | wc -l)
want=$(grep -c "\"run\":\"$denied_run\"" "$A")
[ "$n" = "$want" ] && ok "--run selects one run by a prefix of its id ($n records)" ||
        not_ok "--run selects one run by a prefix of its id" "$n, want $want"
n=$("$STK" log --json --since 1h "$A" | wc -l)
[ "$n" = "$records" ] && ok "--since 1h keeps what was just written" || not_ok "--since 1h keeps what was just written" "$n of $records"
n=$("$STK" log --json --since 2999-01-01 "$A" | wc -l)
[ "$n" = 0 ] && ok "--since a future date selects nothing" || not_ok "--since a future date selects nothing" "$n"
check_status "--since that is neither date nor age is a usage error" 244 "$STK" log --since yesterday "$A"
check_status "--run with too short an id is a usage error" 244 "$STK" log --run ab "$A"
check_status "no FILE and no audit: in the policy is a usage error" 244 "$STK" log

cp "$A" "$T_TMP/damaged.jsonl"
printf '{"time":"2026-01-01T00:00:00.000Z","run":"00\nnot json\n' >> "$T_TMP/damaged.jsonl"
"$STK" log "$T_TMP/damaged.jsonl" > "$T_TMP/out" 2> "$T_TMP/err"; st=$?
if [ "$st" = 1 ] && grep -q "damaged.jsonl:$((records + 1)):[0-9]*: not an audit record" "$T_TMP/err" &&
   grep -q "damaged.jsonl:$((records + 2)):[0-9]*: not an audit record" "$T_TMP/err" &&
   [ "$(wc -l < "$T_TMP/out")" = "$records" ]; then
        ok "damaged lines are named FILE:LINE:COL, the rest still shown, status 1"
else
        not_ok "damaged lines are named FILE:LINE:COL, the rest still shown, status 1" "status $st: $(cat "$T_TMP/err")"
fi

# (a policy file of its own: the profiles name no audit log)
cat > "$T_TMP/p.yaml" <<EOP
stockade: 1
settings:
  workspace: "\${CWD}"
  write: ["\${WORKSPACE}"]
  audit: $A
stack:
  - { phase: pre-exec, control: required, module: fs_bwrap }
EOP
check_output "without FILE, the policy's audit: file is read" 'outcome=exited status=3' \
        "$STK" log --policy "$T_TMP/p.yaml"
