#!/bin/sh
# stockade doctor (issue 18): the core's own checks, and each module's
# through its doctor hook (SDK 1.5), for the shipped profiles and for
# --policy FILE, in text and in --json from one document.
. "$(dirname "$0")/../lib.sh"

[ -x "$STK" ] || { skip "doctor" "no $STK"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg
P=$T_TMP/p.yaml M=$T_TMP/marker
add() { grep -q '^stack:' "$P" || echo 'stack:' >> "$P"; echo "  - $1" >> "$P"; }
have_python=$(command -v python3)

# check_json NAME EXPR FILE: a python expression over the document `d`
check_json() {
        if [ -z "$have_python" ]; then skip "$1" "no python3"; return; fi
        check "$1" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c={x['name']: x for x in d['checks']}; assert $2, d" "$3"
}

"$STK" doctor --json > "$T_TMP/d.json" 2> "$T_TMP/d.err"; st=$?
if [ "$st" = 0 ] || [ "$st" = 1 ]; then ok "doctor --json runs (status $st)"
else not_ok "doctor --json runs" "status $st: $(tail -c 300 "$T_TMP/d.err")"; fi
check_json "the core reports the kernel, with no module" "'kernel' in c and 'module' not in c['kernel']" "$T_TMP/d.json"
if [ "$(t_backend)" = linux ]; then
        check_json "fs_bwrap reports bwrap and bwrap_run itself" \
                "c['bwrap']['module'] == 'fs_bwrap' and c['bwrap_run']['module'] == 'fs_bwrap'" "$T_TMP/d.json"
        check_json "fs_landlock reports the Landlock ABI and what it enforces there" \
                "c['landlock']['module'] == 'fs_landlock' and 'abi' in c['landlock']" "$T_TMP/d.json"
        check_json "net_seccomp reports seccomp's actions" "c['seccomp']['module'] == 'net_seccomp'" "$T_TMP/d.json"
fi
check_json "every shipped profile is judged" \
        "{'default','workspace-write','read-only','ci','full-access'} <= {p['name'] for p in d['profiles']}" "$T_TMP/d.json"
"$STK" doctor > "$T_TMP/d.txt" 2>&1
check_output "the text form prints the same checks" '^  (ok|warn|fail) +kernel ' cat "$T_TMP/d.txt"

# --- a module of a site's own, through --policy: no core change needed -------
for how in ok warn fail; do
        open_policy "$P"; add "{ phase: permission, control: required, module: t_scripted, args: { doctor: $how } }"
        "$STK" doctor --json --policy "$P" > "$T_TMP/s.json" 2>&1
        check_json "doctor --policy: the module's own check is there, status $how" \
                "c['scripted']['status'] == '$how' and c['scripted']['module'] == 't_scripted' and c['scripted']['own_value'] == '42'" \
                "$T_TMP/s.json"
done
check_json "doctor --policy: the policy is judged as a profile too" "any(p['name'] == '$P' for p in d['profiles'])" "$T_TMP/s.json"
check_status "a failing module check makes doctor exit 1" 1 "$STK" doctor --policy "$P"
open_policy "$P"; add "{ phase: permission, control: required, module: t_scripted, args: { doctor: error } }"
"$STK" doctor --json --policy "$P" > "$T_TMP/e.json" 2>&1
check_json "a doctor hook that fails is a failed check naming it" \
        "c['t_scripted']['status'] == 'fail' and 'doctor hook failed' in c['t_scripted']['summary']" "$T_TMP/e.json"
open_policy "$P"; add "{ phase: permission, control: required, module: t_scripted, args: { doctor: silent } }"
"$STK" doctor --json --policy "$P" > "$T_TMP/e.json" 2>&1
check_json "a doctor hook that reports nothing is a failed check" \
        "c['t_scripted']['status'] == 'fail' and 'reported nothing' in c['t_scripted']['summary']" "$T_TMP/e.json"

# --- outside doctor the report functions refuse -------------------------------
open_policy "$P"; add "{ phase: permission, control: required, module: t_scripted, args: { doctor: ok, marker: $M } }"
rm -f "$M"
(cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- true) > /dev/null 2>&1
check_output "doctor_check in a run is refused (EPERM)" "^doctor_check:-1\$" cat "$M"

# --- fs_bwrap's diagnosis follows its line's arguments -------------------------
if [ "$(t_backend)" = linux ]; then
        cat > "$P" <<EOP
stockade: 1
settings: { workspace: $T_TMP, write: ["$T_TMP"], network: { mode: off } }
stack:
  - { phase: pre-exec, control: required, module: fs_bwrap, args: { bwrap: $T_TMP/no-bwrap } }
EOP
        "$STK" doctor --json --policy "$P" > "$T_TMP/b.json" 2>&1
        check_json "doctor --policy asks fs_bwrap with that policy's bwrap argument" \
                "c['bwrap']['status'] == 'fail' and 'no-bwrap' in c['bwrap']['summary'] and c['bwrap_run']['status'] == 'warn'" \
                "$T_TMP/b.json"
        check_json "... and that policy cannot run" \
                "[p for p in d['profiles'] if p['name'] == '$P'][0]['status'] == 'fail'" "$T_TMP/b.json"
fi
