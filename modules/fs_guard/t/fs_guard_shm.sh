#!/bin/sh
# host_shm (issue 15): under the Landlock stack the command's own entries in
# the host's /dev/shm are made by the supervisor (sem_open, shm_open, Python's
# multiprocessing work); the host's entries stay refused and untouched; what
# the command leaves there is removed after the run, cold and warm (serve);
# host_shm: false gives the old refusal.  Judged from the host's /dev/shm.
. "$(dirname "$0")/../../../t/lib.sh"

CHECKS="sem shm multiprocessing host-write host-trunc host-unlink host-rename host-replace cleanup serve off"
skip_all() {
        for c in $CHECKS; do skip "$c" "$1"; done
        exit 0
}
[ -x "$STK" ] || skip_all "no stockade binary at $STK yet"
for m in fs_guard fs_landlock net_seccomp; do
        [ -f "$STK_BUILD/modules/$m.so" ] || skip_all "module $m not built"
done
[ -f "$STK_BUILD/t/helpers/shm-helper" ] || skip_all "no shm-helper built"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip_all "no writable /dev/shm on this host"
command -v python3 >/dev/null || skip_all "no python3"

t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
H=$(t_helper shm-helper)
# Names unique to this script's run: nothing else on the host is touched.
P=stk-t-$$
T_CLEANUP="$T_CLEANUP; rm -f /dev/shm/$P-* /dev/shm/sem.$P-*"
sbx() { (cd "$T_WS" && timeout 60 "$STK" run --profile landlock --workspace "$T_WS" -- "$@"); }

out=$(sbx true 2>&1) || {
        printf '%s' "$out" | grep -q 'Landlock unavailable\|needs Landlock ABI' && skip_all "no usable Landlock here"
        skip_all "the landlock profile does not run here: $out"
}

# ---- the command's own semaphores and shared memory, across a fork -----------
check_output "sem_open, sem_post in a child, sem_wait, sem_unlink" '^sem: ok$' sbx "$H" sem "/$P-sem"
check "the semaphore's name is gone from the host" test ! -e "/dev/shm/sem.$P-sem"
check_output "shm_open, mmap, a child writes, opened again by name, shm_unlink" '^shm: ok$' sbx "$H" shm "/$P-shm"
check "the shared memory's name is gone from the host" test ! -e "/dev/shm/$P-shm"
check "python3 multiprocessing Pool" sbx python3 -c 'import multiprocessing as m
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
check_status "a host entry opened for writing: Landlock's EACCES" 13 sbx python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_WRONLY))"
check_status "... with O_CREAT (the name exists: not ours)" 13 sbx python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_RDWR | os.O_CREAT, 0o600))"
check_status "... with O_TRUNC" 13 sbx python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-host', os.O_WRONLY | os.O_TRUNC))"
check_status "a host entry truncated (truncate(2))" 13 sbx python3 -c "$PYERR
attempt(lambda: os.truncate('/dev/shm/$P-host', 0))"
check_status "a host entry unlinked" 13 sbx python3 -c "$PYERR
attempt(lambda: os.unlink('/dev/shm/$P-host'))"
check_status "a host entry renamed" 13 sbx python3 -c "$PYERR
attempt(lambda: os.rename('/dev/shm/$P-host', '/dev/shm/$P-moved'))"
check "... nothing moved" test ! -e "/dev/shm/$P-moved"
# The command's own entry, made first, then put over the host's name.
MINE="fd = os.open('/dev/shm/$P-mine', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600); os.write(fd, b'mine')"
check_status "its own entry renamed over a host entry" 13 sbx python3 -c "$PYERR
$MINE
attempt(lambda: os.rename('/dev/shm/$P-mine', '/dev/shm/$P-host'))"
check_status "its own entry linked over a host entry: EEXIST" 17 sbx python3 -c "$PYERR
$MINE
attempt(lambda: os.link('/dev/shm/$P-mine', '/dev/shm/$P-host'))"
check_status "its own entry exchanged with a host entry (RENAME_EXCHANGE)" 13 sbx sh -c "
python3 -c \"import os; $MINE\" && exec '$H' exchange /dev/shm/$P-mine /dev/shm/$P-host"
check "the host entry: the same inode, the same data" host_unchanged
check "the host entry: still mode 644" test "$(stat -c %a "/dev/shm/$P-host")" = 644
# Between its own entries all of it works (what glibc's sem_open does, and more).
check_output "its own entries: link, rename over its own, exchange, truncate, unlink" '^ok$' sbx sh -c "
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
check "... none of them left on the host" sh -c "! ls /dev/shm | grep -q '^$P-\(mine\|mine2\|other\)\$'"
# Reads are not notified: its own entry read by name stays refused (the
# trade-off stockade-fs_guard(8) states).
check_status "reading its own entry by name (O_RDONLY) stays refused" 13 sbx python3 -c "$PYERR
$MINE
attempt(lambda: os.open('/dev/shm/$P-mine', os.O_RDONLY))"

# A host subdirectory of /dev/shm is not the command's: nothing is made in it.
mkdir -p "/dev/shm/$P-dir"
check_status "a new name in a host subdirectory of /dev/shm: EACCES" 13 sbx python3 -c "$PYERR
attempt(lambda: os.open('/dev/shm/$P-dir/x', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))"
check "... nothing made there" test ! -e "/dev/shm/$P-dir/x"
rmdir "/dev/shm/$P-dir"

# A name the command made, replaced meanwhile by a host program with an
# inode of its own, is the host's: not written, and not removed after.
rm -f "$T_WS/made" "$T_WS/swapped"
sbx python3 -c "$PYERR
import time
$MINE
open('made', 'w').close()
while not os.path.exists('swapped'): time.sleep(0.05)
attempt(lambda: os.open('/dev/shm/$P-mine', os.O_WRONLY))" > /dev/null 2>&1 &
SBX=$!
t_wait_for -e "$T_WS/made"
rm -f "/dev/shm/$P-mine" && printf 'host data\n' > "/dev/shm/$P-mine" && touch "$T_WS/swapped"
wait $SBX; RC=$?
check_status "its name, replaced by a host program's file: opened for writing refused" 13 sh -c "exit $RC"
check "... the host's file keeps its data, and stays after the run" test "$(cat "/dev/shm/$P-mine")" = "host data"
rm -f "/dev/shm/$P-mine"

# ---- what the command left is removed after the run ---------------------------
check_output "a name made and left behind" '^keep: ok$' sbx "$H" keep "/$P-kept"
check "... is gone from the host after the run" test ! -e "/dev/shm/$P-kept"
check "two links of one entry, renamed one onto the other (both stay), left behind" sbx python3 -c "
import os
$MINE
os.link('/dev/shm/$P-mine', '/dev/shm/$P-mine2')
os.rename('/dev/shm/$P-mine', '/dev/shm/$P-mine2')
assert os.path.exists('/dev/shm/$P-mine')"
check "... both gone from the host after the run" sh -c "! ls /dev/shm | grep -q '^$P-mine'"
check "the host's entry is still there after the runs" host_unchanged

# ---- the same in a warm session (stockade serve): its worker cleans up -------
t_reachable_dir
SOCK=$T_REACH/run/s.sock
C="$T_TOP/t/integration/serve/client.py"
"$STK" serve --socket "$SOCK" --profile landlock --workspace "$T_WS" 2> "$T_TMP/server.err" &
SERVER=$!
T_CLEANUP="$T_CLEANUP; kill $SERVER 2>/dev/null"
t_wait_for -S "$SOCK"
call() { (cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- "$@"); }
check_output "serve: shm_open and a name left behind" '^keep: ok$' call "$H" keep "/$P-served"
check "serve: ... gone from the host after the command" test ! -e "/dev/shm/$P-served"
check_output "serve: the next command's semaphores work too" '^sem: ok$' call "$H" sem "/$P-sem2"
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
check_output "mcp: shm_open and a name left behind" '^keep: ok$' mcp_keep "$H keep /$P-mcp"
check "mcp: ... gone from the host after the command" test ! -e "/dev/shm/$P-mcp"

# ---- host_shm: false: the old refusal ----------------------------------------
{ t_default_settings off ""; printf 'stack:\n'
  printf '  - { phase: pre-exec,   control: required, module: fs_landlock }\n'
  printf '  - { phase: in-sandbox, control: required, module: fs_landlock }\n'
  printf '  - { phase: in-sandbox, control: required, module: fs_guard, args: { host_shm: false } }\n'
  printf '  - { phase: in-sandbox, control: required, module: net_seccomp }\n'; } > "$T_TMP/off.yaml"
off() { (cd "$T_WS" && timeout 60 "$STK" run --policy "$T_TMP/off.yaml" --workspace "$T_WS" -- "$@"); }
check_status "host_shm: false: shm_open refused (EACCES)" 13 off "$H" shm "/$P-off"
check "host_shm: false: nothing made on the host" test ! -e "/dev/shm/$P-off"
check_output "explain --details names host_shm" 'host_shm: the command' \
        sh -c "cd '$T_WS' && '$STK' explain --details --profile landlock --workspace '$T_WS'"
check_output "explain --details without it under host_shm: false" '^0$' \
        sh -c "cd '$T_WS' && '$STK' explain --details --policy '$T_TMP/off.yaml' --workspace '$T_WS' | grep -c 'host_shm:'"
