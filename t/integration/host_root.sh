#!/bin/sh
# Issue 21, point 1: a command must not reach the host kernel's settings
# through /proc or /sys.  Run as root, bwrap maps the sandbox's uid 0 to
# host uid 0, and procfs lets that uid write root-owned entries whatever
# the capabilities (kernel.core_pattern gave a helper run as host root).
# Checked on every sandboxing profile: the escape probe that writes a
# global sysctl, judged from the host, and a scan of every root-owned
# writable file under the sandbox's /proc and /sys.  As a user the same
# checks hold for the plain reason that those files are root's.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "host root" "no $STK"; exit 0; }
RUN=$(cd "$(dirname "$0")/../escape" && pwd)/run
PROBES=$STK_BUILD/t/escape
export STOCKADE_ESCAPE_TMP="$T_TMP"
SCAN=$(t_helper writable-scan)
t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
PROFILES="default workspace-write read-only ci proxy agent landlock"

# The scan sees the class it looks for, or its zero would prove nothing.
"$SCAN" /proc/sys > "$T_TMP/scan.host" 2>&1
n=$(sed -n 's/^\([0-9]*\) candidates.*/\1/p' "$T_TMP/scan.host")
if [ "${n:-0}" -ge 100 ]; then ok "the scan finds $n root-owned writable-mode files in the host's /proc/sys"
else not_ok "the scan finds the host's root-owned sysctls" "$(tail -c 200 "$T_TMP/scan.host")"; fi

for p in $PROFILES; do
        if ! "$STK" check --profile "$p" --workspace "$T_WS" > "$T_TMP/check.err" 2>&1; then
                skip "$p" "cannot run here: $(head -c 200 "$T_TMP/check.err")"
                continue
        fi
        (cd "$T_WS" && "$STK" run --profile "$p" -- "$SCAN" /proc /sys) > "$T_TMP/scan" 2>&1; st=$?
        n=$(sed -n 's/^\([0-9]*\) candidates.*/\1/p' "$T_TMP/scan")
        if [ "$st" = 0 ] && [ "${n:-0}" -ge 100 ]; then
                ok "$p: none of the $n root-owned writable-mode files under /proc and /sys opens for writing"
        else
                not_ok "$p: root-owned files under /proc and /sys are unwritable" \
                        "status $st: $(grep -m 5 writable: "$T_TMP/scan" | tr '\n' ' ')$(tail -n 1 "$T_TMP/scan")"
        fi
        if [ ! -x "$PROBES/probes/kern_sysctl_write" ]; then
                skip "$p: kern_sysctl_write" "probes not built (make escape-suite)"
                continue
        fi
        sh "$RUN" --stockade "$STK" --probes "$PROBES" --profile "$p" --only kern_sysctl_write > "$T_TMP/probe" 2>&1
        line=$(grep '^kern_sysctl_write ' "$T_TMP/probe")
        case $line in
        *" CONTAINED "*) ok "$p: a global sysctl stays unchanged on the host (${line#* CONTAINED  })" ;;
        *) not_ok "$p: kern_sysctl_write contained" "$line $(tail -c 200 "$T_TMP/probe")" ;;
        esac
done
