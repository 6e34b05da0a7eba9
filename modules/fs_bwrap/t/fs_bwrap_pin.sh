#!/bin/sh
# bwrap_sha256 compares all 64 digits (issue 20: a pin compared on a prefix
# passed every test, whose only wrong pin was all zeros).  A pin equal to
# the real hash but for its last digit, or its first, must stop the run
# before the command; the real hash, in either case, runs it.
. "$(dirname "$0")/../../../t/lib.sh"

BWRAP=/usr/bin/bwrap
[ -f "$STK_BUILD/modules/fs_bwrap.so" ] || { skip "pin" "fs_bwrap.so not built"; exit 0; }
[ -x "$BWRAP" ] || { skip "pin" "no $BWRAP (install bubblewrap)"; exit 0; }
command -v sha256sum > /dev/null 2>&1 || { skip "pin" "no sha256sum"; exit 0; }

t_make_workspace
real=$(sha256sum "$BWRAP" | cut -d' ' -f1)
# flip C: the hex digit after C (f wraps to 0)
flip() { printf '%s' "$1" | tr '0-9a-f' '1-9a-f0'; }
head63=${real%?} last=${real#"$head63"}
tail63=${real#?} first=${real%"$tail63"}

pin_run() {  # pin_run PIN: the status of `touch marker` under fs_bwrap pinned to PIN
        { t_default_settings off net_unix
          printf 'stack:\n  - { phase: pre-exec, control: required, module: fs_bwrap, args: { bwrap_sha256: "%s" } }\n' "$1"
        } > "$T_TMP/p.yaml"
        rm -f "$T_WS/marker"
        (cd "$T_WS" && "$STK" run --policy "$T_TMP/p.yaml" --workspace "$T_WS" -- touch marker) > "$T_TMP/out" 2>&1
}

pin_run "$real"; st=$?
if [ "$st" != 0 ] && grep -q 'user namespaces are blocked' "$T_TMP/out"; then
        skip "pin" "$(grep -o 'user namespaces are blocked.*' "$T_TMP/out" | head -n1)"; exit 0
fi
[ "$st" = 0 ] && [ -e "$T_WS/marker" ] && ok "the real hash runs the command" ||
        not_ok "the real hash runs the command" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
pin_run "$(printf '%s' "$real" | tr a-f A-F)"; st=$?
[ "$st" = 0 ] && ok "the real hash in capitals runs it too" || not_ok "the real hash in capitals runs it too" "status $st"

for wrong in "$head63$(flip "$last")" "$(flip "$first")$tail63"; do
        which=last; [ "${wrong%?}" = "$head63" ] || which=first
        pin_run "$wrong"; st=$?
        if [ "$st" = "$STK_EXIT_INTEGRITY" ] && [ ! -e "$T_WS/marker" ] && grep -q "bwrap_sha256 pins $wrong" "$T_TMP/out"; then
                ok "a pin wrong in its $which digit only stops the run ($st) before the command"
        else
                not_ok "a pin wrong in its $which digit only stops the run" \
                        "status $st, marker $(ls "$T_WS/marker" 2>/dev/null): $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
        fi
done
