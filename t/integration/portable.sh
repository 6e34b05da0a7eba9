#!/bin/sh
# The portable build (core/os/os.h: os_posix.c, loop_poll.c), the code a Mac
# runs, built on Linux by `make check` (make portable) with POSIX and XSI
# declarations only, so a Linux-only call fails to compile there.  Here:
#   - the core's own tests (core.sh) run again against that binary: exit
#     statuses, signals, fds, sessions, leftovers, the loader, control flags;
#   - what only the portable code does: the inner helper exec'd by path with
#     its config through a socket and its modules loaded by path (a
#     stand-in wrapper, t_scripted's `wrap`), root refused where nothing
#     takes root's privileges away, doctor and compare on such a system.
. "$(dirname "$0")/../lib.sh"

PB=${STK_PORTABLE_BUILD:-}
if [ -z "$PB" ] || [ ! -x "$PB/stockade" ]; then
        skip "portable build" "no STK_PORTABLE_BUILD (make check builds it on Linux)"
        exit 0
fi
PS=$PB/stockade
export XDG_CONFIG_HOME=$T_TMP/xdg

check_output "it is the portable build" 'posix build\)$' "$PS" --version

# core.sh and approval_tty's tests against it; their lines are ours, renamed.
here=$(cd "$(dirname "$0")/../.." && pwd)
# (As root the portable build refuses every run that enforces something,
# below, which is every run of approval_tty.sh: that one skips itself then.)
for t in t/integration/core.sh modules/approval_tty/t/approval_tty.sh; do
        STK_BUILD=$PB STK=$PS sh "$here/$t" 2>&1 | sed -n 's/^\(ok\|not ok\|skip\) - /\1 - portable: /p'
done

policy() {  # policy FILE STACK-LINE...
        f=$1; shift
        open_policy "$f"
        printf '  approval: never\nstack:\n' >> "$f"
        for l in "$@"; do echo "  - $l" >> "$f"; done
}

# A wrapper's inner helper: exec'd by path, config through a socket,
# module by path, READY over a stream status channel.
P=$T_TMP/wrap.yaml M=$T_TMP/inner.marker
policy "$P" "{ phase: pre-exec, control: required, module: t_scripted, args: { wrap: [/usr/bin/env, STK_WRAPPED=yes] } }" \
            "{ phase: in-sandbox, control: required, module: t_scripted, args: { marker: $M } }"
check_status "the wrapped command's status comes back" 9 "$PS" run --policy "$P" -- sh -c 'test "$STK_WRAPPED" = yes && exit 9'
if [ -s "$M" ] && grep -q in-sandbox "$M"; then ok "the inner helper ran the in-sandbox line inside the wrapper"
else not_ok "the inner helper ran the in-sandbox line inside the wrapper" "no marker"; fi
exec 7>"$T_TMP/leak"
check_status "no fd but 0-2 reaches the wrapped command" 0 "$PS" run --policy "$P" -- sh -c '! [ -e /proc/self/fd/7 ]'
exec 7>&-
check_status "a command that is not there: 127" 127 "$PS" run --policy "$P" -- /nonexistent/cmd
policy "$P" "{ phase: pre-exec, control: required, module: t_scripted, args: { wrap: [/usr/bin/env] } }" \
            "{ phase: in-sandbox, control: required, module: t_scripted, args: { result: fail, marker: $M } }"
rm -f "$M" "$T_TMP/ran"
check_status "a failing in-sandbox line: setup failure, nothing runs" 242 "$PS" run --policy "$P" -- touch "$T_TMP/ran"
if [ ! -e "$T_TMP/ran" ]; then ok "  and the command did not run"; else not_ok "  and the command did not run"; fi

# Root: no capabilities to drop, so a stack that enforces anything refuses.
policy "$P" "{ phase: pre-exec, control: required, module: t_scripted, args: { covers: [write, read_only, process, ipc, metadata, proc] } }"
sed -i "s|^  write: \[/\]|  write: [$T_TMP]|" "$P" # now something must be enforced
if [ "$(id -u)" = 0 ]; then
        rm -f "$T_TMP/ran"
        check_output "as root, a sandboxed run is refused" 'dropping capabilities' "$PS" run --policy "$P" -- touch "$T_TMP/ran"
        if [ ! -e "$T_TMP/ran" ]; then ok "  and the command did not run (root)"; else not_ok "  and the command did not run (root)"; fi
else
        check_status "not root: the same stack runs" 0 "$PS" run --policy "$P" -- true
fi

# The profiles a Mac gets: default's settings, fs_seatbelt's stack.
check_output "the built-in default profile is enforced by fs_seatbelt" '"module": *"fs_seatbelt"' "$PS" explain --json
settings_of() {  # settings_of STOCKADE PROFILE: explain's settings, with their origins
        (cd "$T_TMP" && "$1" explain --profile "$2" 2>/dev/null) | sed -n '/^settings:/,/^enforcement:/p'
}
for p in default read-only; do
        settings_of "$STK" $p > "$T_TMP/linux.settings"; settings_of "$PS" $p > "$T_TMP/posix.settings"
        if [ -s "$T_TMP/linux.settings" ] && cmp -s "$T_TMP/linux.settings" "$T_TMP/posix.settings"; then
                ok "  $p: the same settings, from the same lines, as the Linux build's"
        else not_ok "  $p: the same settings, from the same lines, as the Linux build's" \
                "$(diff "$T_TMP/linux.settings" "$T_TMP/posix.settings" | head -5 | tr '\n' ' ')"; fi
done
rm -f "$T_TMP/ran"
check_output "on Linux its run refuses, saying why" 'exists only on macOS' "$PS" run -- touch "$T_TMP/ran"
if [ ! -e "$T_TMP/ran" ]; then ok "  and the command did not run (default)"; else not_ok "  and the command did not run (default)"; fi

check_output "doctor reports the system and Seatbelt" '"name": *"seatbelt"' "$PS" doctor --json
check_output "compare says it needs the Linux stacks" 'posix build does not have' "$PS" compare
check_status "  with the usage status" 244 "$PS" compare
