#!/bin/sh
# A flood of refusals (issue 21 section 5): every request is still refused,
# but the proxy folds repeated refusals of a destination into one audit
# record (count, first, last) and rate-limits its warnings, with a summary
# at the end.  3000 requests for one denied name, then 1000 for as many
# denied names (the fold table and the rate for new destinations).
. "$(dirname "$0")/../../../t/lib.sh"
. "$(dirname "$0")/fixture.inc"

np_policy "$T_TMP/p.yaml" bwrap 'allow: [allowed.test], deny: [evil.test, "*.evil.test"]' \
        ", resolve: [\"evil.test:127.0.0.1\"]"
flood() { # N HOST AUDIT
        stk run --policy "$T_TMP/p.yaml" --workspace "$T_TMP" --audit "$3" -- "$HOSTILE" flood "$1" "$2"
}
# count TYPE HOST-PATTERN FILE: records of a type for matching hosts
count() { grep "\"type\": *\"$1\"" "$3" | grep -cE "\"host\": *\"$2\""; }
# sum FILE: the counts of the egress-refused records
sum() { grep '"type": *"egress-refused"' "$1" | sed -n 's/.*"count": *\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}'; }

A="$T_TMP/one.jsonl"
flood 3000 "evil.test:$P" "$A" > "$T_TMP/one.out" 2>&1
check_output "3000 requests for a denied name: every one refused" '^refused 3000/3000$' cat "$T_TMP/one.out"
np_never "none of them reached the origin" 'evil'
n=$(count egress-connection 'evil\.test' "$A")
[ "$n" = 1 ] && ok "one full audit record for the destination" || not_ok "one full audit record for the destination" "$n"
s=$(sum "$A")
[ "$s" = 2999 ] && ok "the other 2999 folded into egress-refused records" ||
        not_ok "the other 2999 folded into egress-refused records" "their counts add up to $s"
check_output "a folded record has the count, the first and the last time, and why" \
        '"type": *"egress-refused".*"host": *"evil.test".*"count": *[1-9][0-9]*, *"first": *"20[0-9-]*T[0-9:.]*Z", *"last": *"20.*Z", *"reason": *".*network.deny' \
        cat "$A"
check_output "a summary record says how many were folded" \
        '"type": *"egress-summary".*"refused": *3000, *"folded": *2999, *"records": *[0-9]+, *"warnings_suppressed": *[1-9]' cat "$A"
w=$(grep -c 'net_proxy.*connection [0-9]*: refused' "$T_TMP/one.out")
[ "$w" -le 100 ] && ok "warnings on stderr are rate-limited ($w lines)" || not_ok "warnings on stderr are rate-limited" "$w lines"
check_output "a line that follows suppressed ones says so" 'similar lines suppressed before this one' cat "$T_TMP/one.out"
check_output "the summary line says how many were folded" '3000 refusals, 2999 of them folded into [0-9]+ audit records' \
        cat "$T_TMP/one.out"

B="$T_TMP/many.jsonl"
flood 1000 "x%d.evil.test:$P" "$B" > "$T_TMP/many.out" 2>&1
check_output "1000 requests for 1000 denied names: every one refused" '^refused 1000/1000$' cat "$T_TMP/many.out"
n=$(count egress-connection 'x[0-9]+\.evil\.test' "$B")
s=$(sum "$B")
[ "$n" -le 250 ] && [ $((n + s)) = 1000 ] && ok "new destinations past a rate fold too ($n full records, $s folded)" ||
        not_ok "new destinations past a rate fold too" "$n full records, $s folded"
check_output "into a record for other destinations" '"type": *"egress-refused".*"host": *"\*"' cat "$B"
