#!/bin/sh
# fs_seatbelt through the real CLI.  On Linux: the module loads, a run
# refuses with a clear message, check names the module, a `sufficient` line
# falls through, explain --details prints the profile, and a hostile
# workspace name reaches sandbox-exec only as a -D value.  On macOS: the
# same policy confines a command for real.
. "$(dirname "$0")/../../../t/lib.sh"

case $(uname -s) in Darwin) SOEXT=dylib ;; *) SOEXT=so ;; esac
MOD="$STK_BUILD/modules/fs_seatbelt.$SOEXT"
J="$STK_BUILD/t/helpers/sb-json-helper"

skip_all() {
        for c in "run refuses" "check names the module" "sufficient falls through" "explain shows the profile" \
                 "hostile workspace"; do
                skip "$c" "$1"
        done
        exit 0
}

[ -x "$STK" ] || skip_all "no stockade binary at $STK yet"
[ -f "$MOD" ] || skip_all "fs_seatbelt not built"

t_make_home
t_make_workspace
echo "FIXTURE-NETRC" > "$T_HOME/.netrc"

# policy FILE [CONTROL] [MORE STACK LINES]
policy() {
        { t_default_settings; cat; } > "$1" <<EOF
stack:
  - { phase: pre-exec, control: ${2:-required}, module: fs_seatbelt }
${3:-}
EOF
}
POL="$T_TMP/policy.yaml"
policy "$POL"

sbx() {
        pol=$1; shift
        (cd "$T_WS" && HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" "$STK" run --policy "$pol" --workspace "$T_WS" -- "$@")
}
explain() {
        (cd "$T_WS" && HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" "$STK" explain --details --policy "$@")
}

if [ "$(uname -s)" != Darwin ]; then
        sbx "$POL" true > "$T_TMP/run.out" 2>&1; rc=$?
        if [ "$rc" = "$STK_EXIT_SETUP" ] && grep -q 'fs_seatbelt.*Seatbelt (sandbox-exec) exists only on macOS; use fs_bwrap or fs_landlock here' "$T_TMP/run.out" &&
           grep -q 'the command did not run' "$T_TMP/run.out"; then
                ok "run refuses (exit $rc) and says why"
        else
                not_ok "run refuses" "status $rc: $(tail -c 300 "$T_TMP/run.out" | tr '\n' ' ')"
        fi

        (cd "$T_WS" && HOME="$T_HOME" "$STK" check "$POL") > "$T_TMP/check.out" 2>&1; rc=$?
        if [ "$rc" != 0 ] && grep -q 'fs_seatbelt' "$T_TMP/check.out" && grep -q 'exists only on macOS' "$T_TMP/check.out"; then
                ok "check names the module (exit $rc)"
        else
                not_ok "check names the module" "status $rc: $(tail -c 300 "$T_TMP/check.out" | tr '\n' ' ')"
        fi

        # One policy for both systems: seatbelt sufficient, then a Linux
        # module.  fs_bwrap alone leaves the host's unix sockets to
        # net_seccomp, which is not the point here: net_unix is best_effort.
        FB="$T_TMP/fallback.yaml"
        { t_default_settings off net_unix
          printf 'stack:\n  - { phase: pre-exec, control: sufficient, module: fs_seatbelt }\n'
          printf '  - { phase: pre-exec, control: required, module: fs_bwrap }\n'; } > "$FB"
        BW="$T_TMP/bwrap-only.yaml"
        sed '/fs_seatbelt/d' "$FB" > "$BW"
        if [ ! -f "$STK_BUILD/modules/fs_bwrap.so" ]; then
                skip "sufficient falls through" "fs_bwrap not built"
        elif ! sbx "$BW" true > "$T_TMP/bw.out" 2>&1 && why=$(t_bwrap_cannot_run "$T_TMP/bw.out"); then
                skip "sufficient falls through" "fs_bwrap cannot run here either: $why"
        else
                check_output "sufficient falls through to fs_bwrap" '^inside$' sbx "$FB" sh -c 'echo inside'
        fi
fi

explain "$POL" > "$T_TMP/explain.out" 2>&1; rc=$?
if [ "$rc" = 0 ] && grep -q '^(version 1)$' "$T_TMP/explain.out" && grep -q '^(deny default)$' "$T_TMP/explain.out" &&
   grep -qF -- "-D WRITE_0=$T_WS" "$T_TMP/explain.out" && grep -q '^  /usr/bin/sandbox-exec$' "$T_TMP/explain.out"; then
        ok "explain shows the profile and argv"
else
        not_ok "explain shows the profile" "status $rc: $(tail -c 300 "$T_TMP/explain.out" | tr '\n' ' ')"
fi

# A workspace whose name would end a string and open a rule, if spliced.
EVIL="$T_TMP/w\"s)(allow default)(;
(allow file-write* (subpath \"/\"))"
mkdir -p "$EVIL"
if [ ! -x "$J" ]; then
        skip "hostile workspace" "no $J"
else
        (cd "$EVIL" && HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" "$STK" explain --details --json --policy "$POL" \
                --workspace "$EVIL") > "$T_TMP/evil.json" 2> "$T_TMP/evil.err"
        "$J" "$T_TMP/evil.json" details fs_seatbelt > "$T_TMP/evil.details"
        sed -n '/^PROFILE:$/,$p' "$T_TMP/evil.details" > "$T_TMP/evil.profile"
        if [ -s "$T_TMP/evil.profile" ] && ! grep -qF 'w"s' "$T_TMP/evil.profile" &&
           ! grep -qF '(allow default)' "$T_TMP/evil.profile" && ! grep -qF "$T_TMP" "$T_TMP/evil.profile" &&
           grep -qF -- "-D \$'WRITE_0=$T_TMP/w\"s)(allow default)(;\\n(allow file-write* (subpath \"/\"))'" "$T_TMP/evil.details"; then
                ok "hostile workspace: only in a -D value, never in the profile"
        else
                not_ok "hostile workspace" "$(grep -n 'WRITE_0\|allow default' "$T_TMP/evil.details" | head -n 3 | tr '\n' ' ')"
        fi
fi

[ "$(uname -s)" = Darwin ] || exit 0

# ---- macOS: the profile for real ------------------------------------------------
OUT="$T_TMP/outside"
mkdir -p "$OUT" "$T_WS/.git/hooks"
check "runs a command" sbx "$POL" true
check "writes in the workspace" sbx "$POL" sh -c 'echo new > created.txt'
check "cannot write outside" sbx "$POL" sh -c "! echo x > '$OUT/x'"
check "cannot write .git (island)" sbx "$POL" sh -c '! echo x > .git/hooks/pre-commit'
check "cannot create a missing protected path" sbx "$POL" sh -c '! mkdir .vscode'
check "cannot rename the workspace" sbx "$POL" sh -c "! mv '$T_WS' '$T_WS.moved'"
check "cannot read a hidden file" sbx "$POL" sh -c "! cat '$T_HOME/.netrc'"
check "private TMPDIR is writable" sbx "$POL" sh -c 'echo x > "$TMPDIR/x"'
check "host /tmp is not writable" sbx "$POL" sh -c '! echo x > /tmp/stockade-fs_seatbelt-test'
check "no network" sbx "$POL" sh -c '! /usr/bin/nc -z -w 2 127.0.0.1 22'
