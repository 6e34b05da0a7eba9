#!/bin/sh
# Fail closed on coverage (core/run/coverage.c), setting by setting: for
# each setting, the covers it requires; a stack that claims all of them but
# one is refused naming exactly that one and the setting, as the policy's
# error (241, before anything runs: issue 13 §6), and the command does not
# run; claiming all of them, it runs.  A line that claims a cover and
# cannot give it on this machine is the machine's (242).  The claims are t_scripted's (covers:),
# so only the core's bookkeeping is under test (issue 20: dropping a
# setting's cover from the required set passed every test).
. "$(dirname "$0")/../lib.sh"

[ -f "$STK_BUILD/t/modules/t_scripted.so" ] || { skip "coverage" "no t_scripted.so"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
# The policy file outside the workspace: a policy file a writable root
# holds is a protected path of the core (issue 13), which would add
# read_only to every case.
P=$T_TMP/p.yaml
W=$T_TMP/ws
mkdir -p "$T_TMP/ro" "$T_TMP/hidden" "$W"

# policy SETTINGS COVERS: write confined to T_TMP, network on unless said, then SETTINGS lines
policy() {
        { printf 'stockade: 1\nsettings:\n  workspace: %s\n  write: ["%s"]\n  git: off\n  protect_defaults: false\n' \
                  "$W" "$W"
          printf '%s\n' "$1"
          printf 'stack:\n  - { phase: pre-exec, control: required, module: t_scripted, args: { covers: [%s] } }\n' "$2"
          # mode proxy needs a line that decides egress, else it is an error of its own (issue 13 §6)
          case $1 in *"mode: proxy"*) printf '  - { phase: egress, control: required, module: t_scripted }\n' ;; esac
        } > "$P"
}
run_touch() {
        rm -f "$W/ran"
        (cd "$W" && "$STK" run --policy "$P" --workspace "$W" -- touch "$W/ran") > "$T_TMP/out" 2>&1
}

# case NAME SETTINGS COVER...: the covers SETTINGS require, all of them
case_of() {
        name=$1 settings=$2; shift 2
        all=$(echo "$@" | tr ' ' ',')
        for c in "$@"; do
                rest=$(echo "$@" | tr ' ' '\n' | grep -vx "$c" | paste -sd, -)
                policy "$settings" "$rest"
                run_touch; st=$?
                if [ "$st" = "$STK_EXIT_POLICY" ] && [ ! -e "$W/ran" ] &&
                   grep -q "error: [a-z_.]*\(: [a-z]*\)\{0,1\} requires $c enforced, and no line of profile .* enforces it" \
                        "$T_TMP/out"; then
                        ok "$name: without $c, refused naming it"
                else
                        not_ok "$name: without $c, refused naming it" \
                                "status $st, ran $(ls "$W/ran" 2>/dev/null): $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
                fi
        done
        policy "$settings" "$all"
        run_touch; st=$?
        [ "$st" = 0 ] && [ -e "$W/ran" ] && ok "$name: with $all, it runs" ||
                not_ok "$name: with $all, it runs" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
}

SANDBOX="write metadata process ipc proc"
case_of "confined writes" "  private_tmp: false
  network: { mode: on }" $SANDBOX
case_of "read_only" "  private_tmp: false
  read_only: [\"$T_TMP/ro\"]
  network: { mode: on }" $SANDBOX read_only
case_of "hide" "  private_tmp: false
  hide: [\"$T_TMP/hidden\"]
  network: { mode: on }" $SANDBOX hide
case_of "private_tmp" "  private_tmp: true
  network: { mode: on }" $SANDBOX private_tmp
case_of "network off" "  private_tmp: false
  network: { mode: off }" $SANDBOX net_tcp net_other net_abstract net_unix
case_of "network proxy" "  private_tmp: false
  network: { mode: proxy }" $SANDBOX net_tcp net_other net_abstract

# best_effort: listed, a missing cover is no refusal
policy "  private_tmp: false
  network: { mode: on }
  best_effort: [write]" "metadata,process,ipc,proc"
run_touch; st=$?
[ "$st" = 0 ] && [ -e "$W/ran" ] && ok "write listed best_effort: it runs without" ||
        not_ok "write listed best_effort: it runs without" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"

# The machine's, not the policy's: a line that claims every cover but cannot
# give them here (its probe fails; its hook fails under optional) is 242,
# from check and from run, and the command does not run.
policy "  private_tmp: false
  network: { mode: on }" "write,metadata,process,ipc,proc"
sed -i 's/covers: \[\(.*\)\] }/covers: [\1], probe_fail: true }/; s/control: required/control: optional/' "$P"
"$STK" check --policy "$P" --workspace "$W" > "$T_TMP/out" 2>&1; st=$?
[ "$st" = "$STK_EXIT_SETUP" ] && grep -q "no module in the stack can enforce write, .* on this machine" "$T_TMP/out" &&
        ok "a claiming line whose probe fails: check says 242, the machine's" ||
        not_ok "a claiming line whose probe fails: check says 242, the machine's" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
policy "  private_tmp: false
  network: { mode: on }" "write,metadata,process,ipc,proc"
sed -i 's/covers: \[\(.*\)\] }/covers: [\1], result: error }/; s/control: required/control: optional/' "$P"
run_touch; st=$?
[ "$st" = "$STK_EXIT_SETUP" ] && [ ! -e "$W/ran" ] &&
   grep -q "t_scripted .*pre-exec failed" "$T_TMP/out" && grep -q "the sandbox could not be set up" "$T_TMP/out" &&
        ok "a claiming line whose hook fails (optional): run refuses with 242, the command did not run" ||
        not_ok "a claiming line whose hook fails (optional): run refuses with 242, the command did not run" \
                "status $st, ran $(ls "$W/ran" 2>/dev/null): $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
