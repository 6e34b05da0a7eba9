#!/bin/sh
# host_shm (issue 15): under the Landlock stack the command's own entries in
# the host's /dev/shm are made by the supervisor (sem_open, shm_open, Python's
# multiprocessing work); the host's entries stay refused and untouched; what
# the command leaves there is removed after the run, cold and warm (serve,
# mcp); host_shm: false gives the old refusal.  Judged from the host's
# /dev/shm.
. "$(dirname "$0")/../../../t/lib.sh"

CASES="sem sem-name-gone shm shm-name-gone multiprocessing-pool host-open-write host-open-creat \
host-open-trunc host-truncate host-unlink host-rename host-rename-nothing-moved \
own-renamed-over-host own-linked-over-host-eexist own-exchanged-with-host host-same-inode-data \
host-same-mode own-link-rename-exchange-truncate-unlink own-none-left own-read-by-name-refused \
host-subdir-refused host-subdir-nothing-made swapped-name-not-written swapped-name-kept left-behind \
left-behind-removed same-inode-rename same-inode-both-removed host-entry-survives serve-left-behind \
serve-left-behind-removed serve-next-sem mcp-left-behind mcp-left-behind-removed off-refused \
off-nothing-made explain-names-host-shm explain-off-silent"
NEEDS="python3 timeout"
. "$(dirname "$0")/landlock.inc"
[ -f "$STK_BUILD/t/helpers/shm-helper" ] || skip_all "no shm-helper built"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip_all "no writable /dev/shm on this host"
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
H=$(t_helper shm-helper)
# Names unique to this script's run: nothing else on the host is touched.
P=stk-t-$$
T_CLEANUP="$T_CLEANUP; rm -f /dev/shm/$P-* /dev/shm/sem.$P-*"

# ---- the command's own semaphores and shared memory, across a fork -----------
# sem_open, sem_post in a child, sem_wait, sem_unlink
check_output "sem" '^sem: ok$' ll "$H" sem "/$P-sem"
# the semaphore's name is gone from the host
check "sem-name-gone" test ! -e "/dev/shm/sem.$P-sem"
# shm_open, mmap, a child writes, opened again by name, shm_unlink
check_output "shm" '^shm: ok$' ll "$H" shm "/$P-shm"
# the shared memory's name is gone from the host
check "shm-name-gone" test ! -e "/dev/shm/$P-shm"
# python3 multiprocessing Pool
check "multiprocessing-pool" ll python3 -c 'import multiprocessing as m
if __name__ == "__main__":
    assert m.Pool(2).map(abs, [-1, -2]) == [1, 2]'

# ---- the host's own entries: neither written, truncated, removed nor replaced
printf 'host data\n' > "/dev/shm/$P-host"
chmod 644 "/dev/shm/$P-host"
INO=$(stat -c %i "/dev/shm/$P-host")
host_unchanged() {
        test "$(cat "/dev/shm/$P-host")" = "host data" && test "$(stat -c %i "/dev/shm/$P-host")" = "$INO"
}
PYERR='
import errno, os, sys
def attempt(f):
    try: f()
    except OSError as e: sys.exit(e.errno)
    sys.exit(0)
'
# a host entry opened for writing: Landlock's EACCES
check_status "host-open-write" 13 ll python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_WRONLY))"
# ... with O_CREAT (the name exists: not ours)
check_status "host-open-creat" 13 ll python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_RDWR | os.O_CREAT, 0o600))"
# ... with O_TRUNC
check_status "host-open-trunc" 13 ll python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_WRONLY | os.O_TRUNC))"
# a host entry truncated (truncate(2))
check_status "host-truncate" 13 ll python3 -c "$PYERR
attempt(lambda: os.truncate('/dev/shm/$P-host', 0))"
# a host entry unlinked
check_status "host-unlink" 13 ll python3 -c "$PYERR
attempt(lambda: os.unlink('/dev/shm/$P-host'))"
# a host entry renamed
check_status "host-rename" 13 ll python3 -c "$PYERR
attempt(lambda: os.rename('/dev/shm/$P-host', '/dev/shm/$P-moved'))"
# ... nothing moved
check "host-rename-nothing-moved" test ! -e "/dev/shm/$P-moved"
# The command's own entry, made first, then put over the host's name.
MINE="fd = os.open('/dev/shm/$P-mine', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600); os.write(fd, b'mine')"
# its own entry renamed over a host entry
check_status "own-renamed-over-host" 13 ll python3 -c "$PYERR
$MINE
attempt(lambda: os.rename('/dev/shm/$P-mine', '/dev/shm/$P-host'))"
# its own entry linked over a host entry: EEXIST
check_status "own-linked-over-host-eexist" 17 ll python3 -c "$PYERR
$MINE
attempt(lambda: os.link('/dev/shm/$P-mine', '/dev/shm/$P-host'))"
# its own entry exchanged with a host entry (RENAME_EXCHANGE)
check_status "own-exchanged-with-host" 13 ll sh -c "
python3 -c \"import os; $MINE\" && exec '$H' exchange /dev/shm/$P-mine /dev/shm/$P-host"
# the host entry: the same inode, the same data
check "host-same-inode-data" host_unchanged
# the host entry: still mode 644
check "host-same-mode" test "$(stat -c %a "/dev/shm/$P-host")" = 644
# Between its own entries all of it works (what glibc's sem_open does, and more).
# its own entries: link, rename over its own, exchange, truncate, unlink
check_output "own-link-rename-exchange-truncate-unlink" '^ok$' ll sh -c "
python3 -c \"
import os
$MINE
os.link('/dev/shm/$P-mine', '/dev/shm/$P-mine2')
fd2 = os.open('/dev/shm/$P-other', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
os.rename('/dev/shm/$P-mine2', '/dev/shm/$P-other')
os.truncate('/dev/shm/$P-other', 2)
assert os.fstat(fd).st_size == 2
\" && '$H' exchange /dev/shm/$P-mine /dev/shm/$P-other >/dev/null && python3 -c \"
import os
os.unlink('/dev/shm/$P-mine'); os.unlink('/dev/shm/$P-other'); print('ok')\""
# ... none of them left on the host
check "own-none-left" sh -c "! ls /dev/shm | grep -q '^$P-\(mine\|mine2\|other\)\$'"
# Reads are not notified: its own entry read by name stays refused (the
# trade-off stockade-fs_guard(8) states).
# reading its own entry by name (O_RDONLY) stays refused
check_status "own-read-by-name-refused" 13 ll python3 -c "$PYERR
$MINE
attempt(lambda: os.open('/dev/shm/$P-mine', os.O_RDONLY))"

# A host subdirectory of /dev/shm is not the command's: nothing is made in it.
mkdir -p "/dev/shm/$P-dir"
# a new name in a host subdirectory of /dev/shm: EACCES
check_status "host-subdir-refused" 13 ll python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-dir/x', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))"
# ... nothing made there
check "host-subdir-nothing-made" test ! -e "/dev/shm/$P-dir/x"
rmdir "/dev/shm/$P-dir"

# A name the command made, replaced meanwhile by a host program with an
# inode of its own, is the host's: not written, and not removed after.
rm -f "$T_WS/made" "$T_WS/swapped"
ll python3 -c "$PYERR
import time
$MINE
open('made', 'w').close()
while not os.path.exists('swapped'): time.sleep(0.05)
attempt(lambda: os.open('/dev/shm/$P-mine', os.O_WRONLY))" > /dev/null 2>&1 &
SBX=$!
t_wait_for -e "$T_WS/made"
rm -f "/dev/shm/$P-mine" && printf 'host data\n' > "/dev/shm/$P-mine" && touch "$T_WS/swapped"
wait $SBX; RC=$?
# its name, replaced by a host program's file: opened for writing refused
check_status "swapped-name-not-written" 13 sh -c "exit $RC"
# ... the host's file keeps its data, and stays after the run
check "swapped-name-kept" test "$(cat "/dev/shm/$P-mine")" = "host data"
rm -f "/dev/shm/$P-mine"

# ---- what the command left is removed after the run ---------------------------
# a name made and left behind
check_output "left-behind" '^keep: ok$' ll "$H" keep "/$P-kept"
# ... is gone from the host after the run
check "left-behind-removed" test ! -e "/dev/shm/$P-kept"
# two links of one entry, renamed one onto the other (both stay), left behind
check "same-inode-rename" ll python3 -c "
import os
$MINE
os.link('/dev/shm/$P-mine', '/dev/shm/$P-mine2')
os.rename('/dev/shm/$P-mine', '/dev/shm/$P-mine2')
assert os.path.exists('/dev/shm/$P-mine')"
# ... both gone from the host after the run
check "same-inode-both-removed" sh -c "! ls /dev/shm | grep -q '^$P-mine'"
# the host's entry is still there after the runs
check "host-entry-survives" host_unchanged

# ---- the same in a warm session (stockade serve): its worker cleans up -------
t_reachable_dir
SOCK=$T_REACH/run/s.sock
C="$T_TOP/t/integration/serve/client.py"
"$STK" serve --socket "$SOCK" --profile landlock --workspace "$T_WS" 2> "$T_TMP/server.err" &
SERVER=$!
T_CLEANUP="$T_CLEANUP; kill $SERVER 2>/dev/null"
t_wait_for -S "$SOCK"
call() { (cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- "$@"); }
# serve: shm_open and a name left behind
check_output "serve-left-behind" '^keep: ok$' call "$H" keep "/$P-served"
# serve: ... gone from the host after the command
check "serve-left-behind-removed" test ! -e "/dev/shm/$P-served"
# serve: the next command's semaphores work too
check_output "serve-next-sem" '^sem: ok$' call "$H" sem "/$P-sem2"
kill "$SERVER" 2>/dev/null

# ---- and in an MCP session (stockade mcp): its worker too ---------------------
mcp_keep() { # a tools/call of `shm-helper keep NAME`; prints the command's stdout
        (cd "$T_WS" && timeout 60 python3 -c '
import json, subprocess, sys
stk, ws, cmd = sys.argv[1:]
p = subprocess.Popen([stk, "mcp", "--profile", "landlock", "--workspace", ws], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def answer(i):
    for line in p.stdout:
        m = json.loads(line)
        if m.get("id") == i:
            return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "run_command", "arguments": {"command": cmd}}})
print(answer(2)["result"]["structuredContent"]["stdout"], end="")
p.stdin.close(); p.wait()' "$STK" "$T_WS" "$1")
}
# mcp: shm_open and a name left behind
check_output "mcp-left-behind" '^keep: ok$' mcp_keep "$H keep /$P-mcp"
# mcp: ... gone from the host after the command
check "mcp-left-behind-removed" test ! -e "/dev/shm/$P-mcp"

# ---- host_shm: false: the old refusal ----------------------------------------
{ t_default_settings off ""; printf 'stack:\n'
  printf '  - { phase: pre-exec,   control: required, module: fs_landlock }\n'
  printf '  - { phase: in-sandbox, control: required, module: fs_landlock }\n'
  printf '  - { phase: in-sandbox, control: required, module: fs_guard, args: { host_shm: false } }\n'
  printf '  - { phase: in-sandbox, control: required, module: net_seccomp }\n'; } > "$T_TMP/off.yaml"
off() { (cd "$T_WS" && timeout 60 "$STK" run --policy "$T_TMP/off.yaml" --workspace "$T_WS" -- "$@"); }
# host_shm: false: shm_open refused (EACCES)
check_status "off-refused" 13 off "$H" shm "/$P-off"
# host_shm: false: nothing made on the host
check "off-nothing-made" test ! -e "/dev/shm/$P-off"
# explain --details names host_shm
check_output "explain-names-host-shm" 'host_shm: the command' \
        sh -c "cd '$T_WS' && '$STK' explain --details --profile landlock --workspace '$T_WS'"
# explain --details without it under host_shm: false
check_output "explain-off-silent" '^0$' \
        sh -c "cd '$T_WS' && '$STK' explain --details --policy '$T_TMP/off.yaml' --workspace '$T_WS' | grep -c 'host_shm:'"
