#!/bin/sh
# Audit sinks besides files (issue 17): `audit: syslog[:/socket]` sends RFC
# 5424 messages, `audit: journal[:/socket]` the journal's native protocol,
# each checked here by a listener on a private socket in T_TMP, never the
# machine's own syslog or journal.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null 2>&1 || { skip "audit sinks" "no python3"; exit 0; }

# listen SOCKET OUT: a unix datagram listener writing what it receives to
# OUT, one JSON line per datagram (bytes, and a passed memfd's contents).
listen() {
        python3 -c '
import array, json, os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(path); s.settimeout(20)
open(out + ".ready", "w").close()
with open(out, "w") as f:
    try:
        while True:
            fds = array.array("i")
            data, anc, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(4))
            for level, kind, d in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(d[:4])
            memfd = b""
            for fd in fds:
                memfd = os.pread(fd, 1 << 22, 0); os.close(fd)
            f.write(json.dumps({"data": data.decode(), "memfd": memfd.decode()}) + "\n"); f.flush()
    except socket.timeout:
        pass' "$1" "$2" &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        t_wait_for -e "$2.ready"
}

# wait_lines FILE N: up to 10 s for the listener to have written N datagrams
wait_lines() {
        _i=0
        while [ $_i -lt 100 ] && [ "$(wc -l < "$1")" -lt "$2" ]; do sleep 0.1; _i=$((_i + 1)); done
}

P=$T_TMP/open.yaml
open_policy "$P"
SL=$T_TMP/syslog.sock JN=$T_TMP/journal.sock
listen "$SL" "$T_TMP/syslog.out"
listen "$JN" "$T_TMP/journal.out"

check_status "a run with audit: syslog:SOCKET" 0 "$STK" run --policy "$P" --audit "syslog:$SL" -- true
wait_lines "$T_TMP/syslog.out" 2
check "syslog: RFC 5424 messages, the JSON record as the message" python3 -c '
import json, re, sys
lines = [json.loads(l)["data"] for l in open(sys.argv[1])]
assert len(lines) >= 2, lines
rx = re.compile(r"^<86>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \S+ stockade \d+ (\S+) - (\{.*\})$")
types = []
for l in lines:
    m = rx.match(l); assert m, l
    rec = json.loads(m.group(2)); assert rec["type"] == m.group(1), l
    types.append(rec["type"])
assert "run" in types and "decision" in types, types
' "$T_TMP/syslog.out"

check_status "a run with audit: journal:SOCKET" 0 "$STK" run --policy "$P" --audit "journal:$JN" -- true
big=$(python3 -c 'print("x" * 100000)')
check_status "a run whose record is larger than a datagram" 0 "$STK" run --policy "$P" --audit "journal:$JN" -- \
        true "$big" "$big" "$big"
wait_lines "$T_TMP/journal.out" 4
check "journal: native protocol fields, MESSAGE the JSON record; a large one in a memfd" python3 -c '
import json, sys
recs = []
for l in open(sys.argv[1]):
    d = json.loads(l); text = d["memfd"] or d["data"]
    fields = dict(f.split("=", 1) for f in text.rstrip("\n").split("\n"))
    assert fields["SYSLOG_IDENTIFIER"] == "stockade" and fields["PRIORITY"] == "6", fields
    rec = json.loads(fields["MESSAGE"])
    assert rec["type"] == fields["STOCKADE_TYPE"] and rec["run"] == fields["STOCKADE_RUN"], fields
    recs.append((rec, bool(d["memfd"])))
assert any(r["type"] == "run" and not m for r, m in recs), "no small run record"
assert any(r["type"] == "run" and m and len(r["argv"]) == 4 for r, m in recs), "no large run record in a memfd"
' "$T_TMP/journal.out"

check_status "a sink whose socket is missing: the run does not start" $STK_EXIT_SETUP \
        "$STK" run --policy "$P" --audit "journal:$T_TMP/none.sock" -- touch "$T_TMP/ran"
check "... and the command did not run" test ! -e "$T_TMP/ran"
check_output "... naming the socket" "audit sink .*none.sock" \
        "$STK" run --policy "$P" --audit "syslog:$T_TMP/none.sock" -- true
check_status "a sink with a relative socket is a policy error" $STK_EXIT_POLICY \
        "$STK" run --policy "$P" --audit "syslog:relative.sock" -- true
# A file setting in a policy file, as a site would write it.
cat "$P" > "$T_TMP/sink.yaml"
sed -i "s|^settings:|settings:\n  audit: \"syslog:$SL\"|" "$T_TMP/sink.yaml"
check_status "audit: syslog:SOCKET in a policy file" 0 "$STK" run --policy "$T_TMP/sink.yaml" -- true
check_output "explain shows the sink" "syslog:$SL" "$STK" explain --policy "$T_TMP/sink.yaml"
