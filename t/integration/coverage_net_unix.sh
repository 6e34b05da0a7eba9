#!/bin/sh
# net_unix is required coverage with the network off (core/run/coverage.c):
# a host's pathname unix sockets (docker.sock, the session bus) are network
# too.  fs_bwrap alone does not guard them, so a network-off stack of
# fs_bwrap without net_seccomp must refuse to run, naming net_unix, unless
# the policy lists net_unix under best_effort; with net_seccomp it runs
# (issue 20: dropping net_unix from the required set was caught only by a
# missing JSON key in compare.sh).
. "$(dirname "$0")/../lib.sh"

linux_only
[ -f "$STK_BUILD/modules/fs_bwrap.so" ] && [ -f "$STK_BUILD/modules/net_seccomp.so" ] ||
        { skip "net_unix coverage" "fs_bwrap or net_seccomp not built"; exit 0; }
[ -x /usr/bin/bwrap ] || { skip "net_unix coverage" "no /usr/bin/bwrap (install bubblewrap)"; exit 0; }

t_make_workspace
P=$T_TMP/p.yaml
# policy BEST_EFFORT [PHASE:MODULE...]: network off, these lines
policy() {
        be=$1; shift
        { t_default_settings off "$be"; echo "stack:"
          for m in "$@"; do echo "  - { phase: ${m%%:*}, control: required, module: ${m#*:} }"; done
        } > "$P"
}
run_touch() {
        rm -f "$T_WS/ran"
        (cd "$T_WS" && "$STK" run --policy "$P" --workspace "$T_WS" -- touch ran) > "$T_TMP/out" 2>&1
}

# A run that cannot start bwrap at all says so; only that is a skip.
policy net_unix pre-exec:fs_bwrap
run_touch; st=$?
if [ "$st" != 0 ] && grep -q 'user namespaces are blocked' "$T_TMP/out"; then
        skip "net_unix coverage" "$(grep -o 'user namespaces are blocked.*' "$T_TMP/out" | head -n1)"; exit 0
fi
[ "$st" = 0 ] && [ -e "$T_WS/ran" ] && ok "fs_bwrap alone runs once net_unix is best_effort" ||
        not_ok "fs_bwrap alone runs once net_unix is best_effort" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"

policy "" pre-exec:fs_bwrap
run_touch; st=$?
if [ "$st" = "$STK_EXIT_POLICY" ] && [ ! -e "$T_WS/ran" ] &&
   grep -q 'network.mode: off requires net_unix enforced, and no line of profile .* enforces it: add a line of .*module: net_seccomp' \
        "$T_TMP/out"; then
        ok "network off, fs_bwrap without net_seccomp: refused naming net_unix, the command did not run"
else
        not_ok "network off, fs_bwrap without net_seccomp: refused naming net_unix" \
                "status $st, ran $(ls "$T_WS/ran" 2>/dev/null): $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
fi

policy "" pre-exec:fs_bwrap in-sandbox:net_seccomp
run_touch; st=$?
[ "$st" = 0 ] && [ -e "$T_WS/ran" ] && ok "with net_seccomp the same run goes ahead" ||
        not_ok "with net_seccomp the same run goes ahead" "status $st: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"
