#!/bin/sh
# FIFOs under the Landlock stack (issue 15): a named pipe where Landlock
# grants nothing (the workspace top, a directory made during the run) is
# opened for writing by fs_guard's supervisor, which keeps the call until a
# reader comes (STK_NOTIFY_LATER) instead of stalling every other call.
# Judged from outside: what the reader got, the exit statuses, and that
# the supervisor kept answering other calls while a writer waited.
. "$(dirname "$0")/../../../t/lib.sh"

CASES="top-writer-first top-reader-first subdir nonblock-enxio other-calls-answered killed-writer epipe \
read-only-refused protected-refused"
NEEDS="python3 timeout mkfifo"
. "$(dirname "$0")/landlock.inc"

# The writer starts first and waits in the supervisor for the reader.
check_output "top-writer-first" '^via-fifo$' ll sh -c \
        'mkfifo p1 && { timeout 20 sh -c "echo via-fifo > p1" & } && sleep 0.3 && timeout 20 cat p1'
# The reader is there first: the supervisor's non-blocking open meets it.
check_output "top-reader-first" '^via-fifo$' ll sh -c \
        'mkfifo p2 && { timeout 20 cat p2 > got2 & } && sleep 0.3 && timeout 20 sh -c "echo via-fifo > p2"; wait; cat got2'
check_output "subdir" '^via-fifo$' ll sh -c \
        'mkdir -p made/deeper && mkfifo made/deeper/p && { timeout 20 sh -c "echo via-fifo > made/deeper/p" & } && timeout 20 cat made/deeper/p'
# O_NONBLOCK with no reader: ENXIO, as the kernel answers.
check_output "nonblock-enxio" '^ENXIO$' ll python3 -c '
import errno, os
os.mkfifo("p3")
try:
    os.open("p3", os.O_WRONLY | os.O_NONBLOCK)
    print("opened")
except OSError as e:
    print(errno.errorcode[e.errno])'
# While one writer waits for a reader, the same command makes files and
# opens others for writing: the kept call blocks nobody but its caller.
check_output "other-calls-answered" '^made 50, then via-fifo$' ll python3 -c '
import os, subprocess, time
os.mkfifo("p4")
w = subprocess.Popen(["sh", "-c", "echo via-fifo > p4"])
time.sleep(0.3)
for i in range(50):
    with open("n%d" % i, "w") as f:
        f.write("x")
n = len([x for x in os.listdir(".") if x.startswith("n")])
with open("p4") as r:
    got = r.read().strip()
w.wait(timeout=20)
print("made %d, then %s" % (n, got))'
# A writer killed while it waits: the call is dropped, the run ends, no
# process is left, and the next writer is served.
check_output "killed-writer" '^served$' ll sh -c '
mkfifo p5
sh -c "echo lost > p5" & pid=$!
sleep 0.3; kill -9 $pid; wait $pid 2>/dev/null
{ timeout 20 sh -c "echo served > p5" & } ; timeout 20 cat p5'
# A real write end: when the reader goes, the writer gets EPIPE.
check_output "epipe" '^EPIPE$' ll python3 -c '
import errno, os, signal, subprocess
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
os.mkfifo("p6")
r = subprocess.Popen(["sh", "-c", "head -c 1 p6 > /dev/null"])
fd = os.open("p6", os.O_WRONLY)
os.write(fd, b"x")
r.wait(timeout=20)
try:
    for _ in range(100):
        os.write(fd, b"x" * 4096)
    print("no EPIPE")
except OSError as e:
    print(errno.errorcode[e.errno])'
# Outside the writable roots the kernel decides, and Landlock refuses.
OUTFIFO="$T_TMP/outside-fifo"
mkfifo "$OUTFIFO"
check_status "read-only-refused" 1 ll python3 -c '
import os, sys
try:
    os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
except PermissionError:
    sys.exit(1)
except OSError as e:
    print(e); sys.exit(3)
sys.exit(0)' "$OUTFIFO"
# A FIFO inside a protected island (made there before the run): refused.
mkfifo "$T_WS/.git/stk-fifo"
check_status "protected-refused" 1 ll python3 -c '
import os, sys
try:
    os.open(".git/stk-fifo", os.O_WRONLY | os.O_NONBLOCK)
except PermissionError:
    sys.exit(1)
except OSError as e:
    print(e); sys.exit(3)
sys.exit(0)'
