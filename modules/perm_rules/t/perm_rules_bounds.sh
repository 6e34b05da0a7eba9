#!/bin/sh
# perm_rules past its bounds: what it does not judge is never allowed
# (make mutate: dropping the question for a command list longer than
# PR_MAX_CMDS, 2048, passed every test).  2000 allowed commands run,
# 2100 are a question; a denied command placed after 2100 allowed ones, and
# one nested in more `sh -c` than PR_MAX_SHELLS (8), must not run.  The stacks enforce nothing else (write: [/]).
. "$(dirname "$0")/../../../t/lib.sh"

[ -f "$STK_BUILD/modules/perm_rules.so" ] || { skip "perm_rules bounds" "module not built"; exit 0; }
export XDG_CONFIG_HOME="$T_TMP/xdg"   # no user layer from the real home
P=$T_TMP/p.yaml
open_policy "$P"
printf '  approval: never\nstack:\n  - { phase: permission, control: required, module: perm_rules, args: { deny: ["touch *"], allow: ["true", "sh *"], default: deny } }\n' >> "$P"
run() { (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- "$@") > "$T_TMP/out" 2>&1; }
M=$T_TMP/marker

trues() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "true; " }'; }
run sh -c "$(trues 2000)"; st=$?
check "2000 allowed commands run" test "$st" = 0
run sh -c "$(trues 2100)"; st=$?
check "2100 are more than it judges: a question, denied under approval: never" test "$st" = "$STK_EXIT_DENIED"
many=$(trues 2100)
rm -f "$M"; run sh -c "$many touch $M"; st=$?
[ "$st" = "$STK_EXIT_DENIED" ] && [ ! -e "$M" ] && ok "a denied command after 2100 allowed ones does not run" ||
        not_ok "a denied command after 2100 allowed ones does not run" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"

nested="touch $M"
for i in 1 2 3 4 5 6 7 8 9 10; do nested="sh -c '$(printf '%s' "$nested" | sed "s/'/'\\\\''/g")'"; done
rm -f "$M"; eval "run $nested"; st=$?
[ "$st" = "$STK_EXIT_DENIED" ] && [ ! -e "$M" ] && ok "a denied command under 10 levels of sh -c does not run" ||
        not_ok "a denied command under 10 levels of sh -c does not run" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
rm -f "$M"; run touch "$M"; st=$?
check "the same command alone is denied" test "$st" = "$STK_EXIT_DENIED"
