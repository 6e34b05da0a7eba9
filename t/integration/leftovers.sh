#!/bin/sh
# The supervisor's own sweep of what the command left (core/run/supervisor.c
# kill_leftovers), shown apart from the keeper's: the command kills the
# process that started it (the keeper, which would otherwise kill its
# descendants on the way out), leaving a daemon in a session of its own.
# The daemon must still be gone when stockade returns (make mutate: with
# the supervisor's sweep removed, every test passed, the keeper doing the
# work).  The stack enforces nothing (write: [/], network on).
. "$(dirname "$0")/../lib.sh"

[ "$(t_backend)" = linux ] || { skip "leftovers" "the portable build has no subreaper"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
P=$T_TMP/p.yaml
open_policy "$P"
(cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- sh -c "
setsid sh -c 'sleep 34; touch $T_TMP/survived' > /dev/null 2>&1 < /dev/null & echo \$! > $T_TMP/daemon.pid
kill -9 \$PPID; sleep 1") > "$T_TMP/out" 2>&1; st=$?
check "the command killed its keeper: stockade reports SIGKILL (137)" test "$st" = 137
dpid=$(cat "$T_TMP/daemon.pid" 2>/dev/null)
dstat=$(ps -o stat= -p "$dpid" 2>/dev/null)
if [ -n "$dpid" ] && { [ -z "$dstat" ] || [ "${dstat#Z}" != "$dstat" ]; }; then
        ok "its daemon is gone when stockade returns"
else
        not_ok "its daemon is gone when stockade returns" "pid $dpid: ${dstat:-?}"
        kill -9 "$dpid" 2>/dev/null
fi
