#!/bin/sh
# A flood bounded (issue 21 section 5; core/run/audit.c, core/util/log.c):
# repeated refusals fold into a record with the count and the first and
# last time; warnings on the terminal are rate-limited, with a count of
# what was held back; a run's audit records stop at a byte cap, and a
# final record says what was dropped; and a reached cap stops nothing:
# the decisions after it are enforced as before.  The flood is t_flood's
# (t/modules/t_flood.c), in the permission phase, before t_scripted
# decides.  The stacks enforce nothing else (write: [/], network on).
. "$(dirname "$0")/../lib.sh"

[ -f "$STK_BUILD/t/modules/t_flood.so" ] || { skip "audit flood" "no t_flood.so"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
P=$T_TMP/p.yaml
CAP=8388608 # AUDIT_MAX_BYTES
# flood FLOOD-ARGS RESULT AUDIT CMD...: t_flood, then t_scripted's RESULT
flood() {
        open_policy "$P"
        printf 'stack:\n  - { phase: permission, control: required, module: t_flood, args: { %s } }\n' "$1" >> "$P"
        printf '  - { phase: permission, control: required, module: t_scripted, args: { result: %s } }\n' "$2" >> "$P"
        a=$3; shift 3
        (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" --audit "$a" -- "$@") 2> "$T_TMP/err"
}
# summary FILE PYTHON-EXPR: evaluate EXPR over the records (r: the list,
# t(TYPE): those of a type, s: the audit-summary record or {})
summary() {
        python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
t = lambda k: [x for x in r if x["type"] == k]
s = (t("audit-summary") or [{}])[-1]
print(eval(sys.argv[2]))' "$@"
}

# --- repeated refusals fold -------------------------------------------------
A=$T_TMP/fold.jsonl
flood "records: 10000" allow "$A" true
check "10000 identical refusals: one full record" test "$(summary "$A" 'len(t("flood"))')" = 1
check "the other 9999 counted in repeated records" test "$(summary "$A" 'sum(x["count"] for x in t("flood-repeated"))')" = 9999
check "a repeated record has the refusal's fields, its count and first and last time" test "$(summary "$A" \
        'all(x["host"] == "evil.test" and x["verdict"] == "deny" and x["first"] <= x["last"] and x["last"].endswith("Z") for x in t("flood-repeated")) and len(t("flood-repeated")) > 0')" = True
check "the summary says 9999 were folded, nothing dropped" test "$(summary "$A" 's.get("folded"), s.get("dropped")')" = "(9999, 0)"
check "the log stays small" test "$(wc -c < "$A")" -lt 10000

# --- warnings are rate-limited --------------------------------------------------
W=$T_TMP/warn.jsonl
flood "warnings: 5000" allow "$W" true
shown=$(grep -c 'flood warning' "$T_TMP/err")
held=$(sed -n 's/.*warning: \([0-9]*\) warning and info lines suppressed.*/\1/p' "$T_TMP/err" | awk '{s+=$1} END {print s+0}')
[ "$shown" -lt 1000 ] && [ $((shown + held)) = 5000 ] && ok "5000 warnings: $shown shown, the other $held counted on the terminal" ||
        not_ok "5000 warnings rate-limited" "$shown shown, $held said suppressed"
check "... and in the audit summary" test "$(summary "$W" 's.get("warnings_suppressed")')" = "$held"

# --- the cap ------------------------------------------------------------------------
C=$T_TMP/cap.jsonl
flood "records: 100000, distinct: true" allow "$C" sh -c 'exit 7'; st=$?
check "past the cap the command still runs, its status comes back" test "$st" = 7
size=$(wc -c < "$C")
check "the run wrote no more than the cap, but for its run and summary records ($size bytes)" \
        test "$size" -le $((CAP + 4096))
check "the run record is there" test "$(summary "$C" 't("run")[0]["status"]')" = 7
# 100000 flood records and the permission decision after them
check "the summary counts what was dropped: with what was written, every record" \
        test "$(summary "$C" 's["dropped"] > 0 and s["dropped"] + len(t("flood")) + len(t("decision")) == 100001 and s["cap_bytes"] == '$CAP)" = True
check "... and when the dropping began and ended" test "$(summary "$C" 's["first_dropped"] <= s["last_dropped"]')" = True
check "the summary is the last record" test "$(summary "$C" 'r[-1]["type"]')" = audit-summary
check_output "the terminal says the cap was reached and enforcement goes on" \
        "audit log reached this run's cap of $CAP bytes.*enforcement goes on" cat "$T_TMP/err"

# --- a reached cap stops no decision ------------------------------------------------
D=$T_TMP/deny.jsonl
rm -f "$T_TMP/ran"
flood "records: 100000, distinct: true" deny "$D" touch "$T_TMP/ran"; st=$?
check "past the cap a deny still denies ($st)" test "$st" = "$STK_EXIT_DENIED"
check "... and the command did not run" test ! -e "$T_TMP/ran"
check "... and the run record says denied" test "$(summary "$D" 't("run")[0]["outcome"]')" = denied
