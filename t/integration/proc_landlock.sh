#!/bin/sh
# Issue 13, §4: other processes' /proc under the Landlock stack.  What
# Landlock closes (environ, maps, fd, cwd, root: its ptrace scoping) is
# checked closed; what it cannot (cmdline, status) is checked to be named
# by explain and doctor as not enforced, never a silent gap; the bwrap
# stack hides them all.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "proc_landlock" "no $STK"; exit 0; }
t_make_workspace
export XDG_CONFIG_HOME="$T_TMP/xdg"
sleep 300 & other=$!
T_CLEANUP="$T_CLEANUP; kill $other"
in_ws() { (cd "$T_WS" && "$STK" "$@"); }
# reads PROFILE ENTRY: cat a file, list a directory ("none": no sandbox)
reads() {
        c="cat /proc/$other/$2 > /dev/null || exit 1"
        case $2 in
        cwd | root) c="ls /proc/$other/$2/ > /dev/null || exit 1" ;;
        # the fd numbers can be listed; what they are open on cannot
        fd) c="readlink /proc/$other/fd/1 > /dev/null || exit 1" ;;
        esac
        if [ "$1" = none ]; then sh -c "$c"; else in_ws run --profile "$1" -- sh -c "$c"; fi
}
for f in cmdline status environ maps cwd root fd; do
        check_status "control: another process's /proc/PID/$f is readable without a sandbox" 0 reads none "$f"
done

if ! "$STK" check --profile landlock > "$T_TMP/ll.err" 2>&1; then
        skip "landlock profile" "not available: $(head -c 200 "$T_TMP/ll.err")"
else
        for f in environ maps cwd root fd; do
                check_status "landlock: another process's /proc/PID/$f is closed" 1 reads landlock "$f"
        done
        check "landlock: ps still lists the command's own tree" \
                in_ws run --profile landlock -- sh -c 'grep -q "^Pid:" /proc/self/status'
        check_output "landlock: explain names proc as not enforced" "proc +required +not enforced \(best_effort\)" \
                in_ws explain --profile landlock
        check_output "landlock: doctor warns of it" "not enforced here, accepted as best_effort: proc" \
                "$STK" doctor
fi
if in_ws explain 2>/dev/null | grep -Eq "proc +required +by fs_bwrap"; then
        for f in cmdline status environ; do
                check_status "bwrap: another process's /proc/PID/$f is absent" 1 reads default "$f"
        done
else
        skip "bwrap hides other processes" "fs_bwrap does not enforce proc here"
fi
