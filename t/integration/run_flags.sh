#!/bin/sh
# stockade run's one-line flags and --json (issue 16 §4): each flag's
# effect judged from outside the sandbox, the CLI layer under the floor's
# `overridable`, explain's origin "cli", the conflicts as usage errors, and
# the JSON result beside (never inside) the command's stdout.
. "$(dirname "$0")/../lib.sh"

export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
WS=$T_TMP/ws EXTRA=$T_TMP/extra
mkdir -p "$WS" "$EXTRA" "$T_TMP/sibling"
r() { (cd "$WS" && "$STK" run "$@") 2>"$T_TMP/err"; }

# --- --write, --read-only ---------------------------------------------------------
r --write "$EXTRA" -- sh -c "echo x > '$EXTRA/f'; echo x > '$T_TMP/sibling/f'" >/dev/null
check "--write DIR: DIR is writable inside" test -f "$EXTRA/f"
check_status "--write DIR: a sibling of DIR is not" 1 test -e "$T_TMP/sibling/f"
r --write "$EXTRA" --write "$T_TMP/sibling" -- sh -c "echo x > '$T_TMP/sibling/g'" >/dev/null
check "--write is repeatable" test -f "$T_TMP/sibling/g"
r --read-only -- sh -c 'echo x > ro.txt' >/dev/null
check_status "--read-only: the workspace is not written" 1 test -e "$WS/ro.txt"
check_output "--read-only: the write fails with EROFS" 'Read-only file system' cat "$T_TMP/err"
check_output "--read-only: explain shows the island with origin cli" "^    $WS +<command line>:[0-9]+:[0-9]+ \\(cli\\)" \
        sh -c "cd '$WS' && '$STK' explain --read-only"

# --- --allow-env --------------------------------------------------------------------
check_output "--allow-env NAME: a token-like variable passes" '^in=secret$' \
        sh -c "cd '$WS' && RUNFLAGS_TOKEN=secret '$STK' run --allow-env RUNFLAGS_TOKEN -- sh -c 'echo in=\$RUNFLAGS_TOKEN'"
check_output "without it, it is stripped" '^in=$' \
        sh -c "cd '$WS' && RUNFLAGS_TOKEN=secret '$STK' run -- sh -c 'echo in=\$RUNFLAGS_TOKEN'"

# --- --timeout --------------------------------------------------------------------
mark="runflags-timeout-$$"
cp /bin/sleep "$T_TMP/$mark"  # a name of its own, to look for after
r --timeout 1 -- "$T_TMP/$mark" 30 >/dev/null; st=$?
check_status "--timeout 1: a sleep 30 is stopped with status 124" 0 test "$st" = 124
check_output "--timeout: the stop is said" 'ran for its --timeout of 1 s' cat "$T_TMP/err"
for _ in $(seq 20); do pgrep -f "$mark" >/dev/null || break; sleep 0.1; done  # a SIGKILLed one may take a moment to go
check_status "--timeout: no process is left" 1 pgrep -f "$mark"

# --- --network, --allow-domain ------------------------------------------------------
check_output "--allow-domain with the default profile switches to proxy" '^profile: proxy$' \
        sh -c "cd '$WS' && '$STK' explain --allow-domain example.test"
check_output "--allow-domain: explain shows the name with origin cli" 'example.test +<command line>:[0-9:]+ \(cli\)' \
        sh -c "cd '$WS' && '$STK' explain --allow-domain example.test"
r --profile workspace-write --allow-domain example.test -- true; st=$?
check_status "--allow-domain under a profile without net_proxy: 241" 0 test "$st" = "$STK_EXIT_POLICY"
check_output "... naming the reason" 'not enforced by profile workspace-write' cat "$T_TMP/err"
check_output "--network proxy: explain shows the mode with origin cli" 'network +proxy +<command line>' \
        sh -c "cd '$WS' && '$STK' explain --network proxy"
if [ "$(id -u)" = 0 ] && mkdir -p "$T_TMP/origin" && echo hello > "$T_TMP/origin/index.html" &&
   python3 -c 'import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 80))' 2>/dev/null; then
        (cd "$T_TMP/origin" && exec python3 -m http.server 80 --bind 127.0.0.1 >/dev/null 2>&1) &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        for _ in $(seq 50); do python3 -c 'import socket; socket.create_connection(("127.0.0.1", 80), 1)' 2>/dev/null && break; sleep 0.1; done
        # (--noproxy '': through the proxy, though NO_PROXY names loopback,
        # which is the sandbox's own)
        check_output "--allow-domain 127.0.0.1: the proxy reaches a host-only origin" '^hello$' \
                r --allow-domain 127.0.0.1 -- curl --noproxy '' -fsS -m 10 http://127.0.0.1/index.html
        check_status "--allow-domain other.test: the same origin is refused" 22 \
                r --allow-domain other.test -- curl --noproxy '' -fsS -m 10 http://127.0.0.1/index.html
else
        skip "--allow-domain reaches an origin" "port 80 of 127.0.0.1 is not ours to bind (not root, or taken)"
fi

# --- the floor holds: the CLI layer obeys overridable.user ---------------------------
cat > "$T_TMP/floor.yaml" <<EOF
stockade: 1
overridable: { user: [network.mode] }
settings:
  workspace: \${CWD}
  write: ["\${WORKSPACE}"]
  network: { mode: off }
stack:
  - { phase: pre-exec,   control: required, module: fs_bwrap }
  - { phase: in-sandbox, control: required, module: fs_guard }
  - { phase: in-sandbox, control: required, module: net_seccomp }
EOF
r --policy "$T_TMP/floor.yaml" --write "$EXTRA" -- true; st=$?
check_status "a floor that does not let write be loosened: --write is 241" 0 test "$st" = "$STK_EXIT_POLICY"
check_output "... naming the rule" 'cli layer may only tighten: .*overridable: \{ user: \[write\] \}' cat "$T_TMP/err"
check_status "... and a tightening flag still works under it" 0 r --policy "$T_TMP/floor.yaml" --read-only -- true

# --- conflicts and meaningless flags: usage errors (244), naming both ----------------
conflict() { # NAME PATTERN ARGS...
        n=$1 pat=$2; shift 2
        (cd "$WS" && "$STK" "$@") >/dev/null 2>"$T_TMP/err"; st=$?
        if [ "$st" = "$STK_EXIT_USAGE" ] && grep -qE -- "$pat" "$T_TMP/err"; then ok "$n: a usage error naming it"
        else not_ok "$n: a usage error naming it" "status $st: $(tr '\n' ' ' < "$T_TMP/err")"; fi
}
conflict "--profile with --policy" '--profile ci and --policy .* name two policies' run --profile ci --policy "$T_TMP/floor.yaml" -- true
conflict "--read-only with --write" '--read-only and --write' run --read-only --write "$EXTRA" -- true
conflict "--network off with --allow-domain" '--network off and --allow-domain x.test' run --network off --allow-domain x.test -- true
conflict "--network bogus" '--network bogus: expected off or proxy' run --network bogus -- true
conflict "--timeout 0" '--timeout 0: expected a whole number' run --timeout 0 -- true
conflict "--timeout abc" '--timeout abc' run --timeout abc -- true
conflict "--json -" '--json -: expected a file or /dev/fd/N' run --json - -- true
conflict "check --json (it prints no JSON)" "unrecognized option '--json'" check --json
conflict "check --timeout" "unrecognized option '--timeout'" check --timeout 3
conflict "explain --timeout" "unrecognized option '--timeout'" explain --timeout 3
conflict "run with no command" 'no command given' run --write "$EXTRA"

# --- --help of each ------------------------------------------------------------------
for c in run check explain; do
        check_output "$c --help lists its options" '^  --allow-domain NAME ' "$STK" $c --help
done
check_output "run --help documents the short options" '^  -p, --profile P ' "$STK" run --help
check_output "run --help lists --json FILE" '^  -j, --json FILE ' "$STK" run --help
check_output "explain --help lists --details" '^  -D, --details ' "$STK" explain --help

# --- --json FILE ---------------------------------------------------------------------
(cd "$WS" && "$STK" run -- sh -c 'echo out; echo err >&2; exit 3') > "$T_TMP/plain.out" 2>/dev/null
(cd "$WS" && "$STK" run --json "$T_TMP/r.json" -- sh -c 'echo out; echo err >&2; exit 3') > "$T_TMP/json.out" 2>/dev/null; st=$?
check_status "--json: the command's status is the run's" 0 test "$st" = 3
check "--json: the command's stdout is the same as without it" cmp "$T_TMP/plain.out" "$T_TMP/json.out"
check_output "--json: one object with the fields" '^ok$' python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
need = ["v", "run", "profile", "status", "signal", "timed_out", "duration_ms", "stack", "decisions", "egress", "denied"]
missing = [k for k in need if k not in d]
assert not missing, missing
assert d["status"] == 3 and d["signal"] is None and d["timed_out"] is False, d
assert d["decisions"][0]["phase"] == "permission" and d["decisions"][0]["verdict"] == "allow", d["decisions"]
assert any(l["module"] == "fs_bwrap" for l in d["stack"]), d["stack"]
assert d["denied"]["total"] >= 0
print("ok")' "$T_TMP/r.json"
exec 9>"$T_TMP/fd.json"
(cd "$WS" && "$STK" run --json /dev/fd/9 -- sh -c 'kill -TERM $$') >/dev/null 2>&1
exec 9>&-
check_output "--json /dev/fd/N: the signal of a killed command" '^15$' \
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signal"])' "$T_TMP/fd.json"
(cd "$WS" && "$STK" run --timeout 1 --json "$T_TMP/t.json" -- sleep 30) >/dev/null 2>&1
check_output "--json: a timed-out run says so" '^True 124$' \
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["timed_out"], d["status"])' "$T_TMP/t.json"
(cd "$WS" && "$STK" run --profile landlock --json "$T_TMP/d.json" -- sh -c 'chmod 600 /etc/hostname; touch /etc/x') >/dev/null 2>&1
check_output "--json: the supervisor's refusals are counted (landlock: chmod outside)" '^[1-9][0-9]*$' \
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["denied"]["total"])' "$T_TMP/d.json"
r --json "$T_TMP/nodir/r.json" -- touch "$WS/should-not" >/dev/null; st=$?
check_status "--json into a directory that is not there: 244, before anything runs" 0 test "$st" = "$STK_EXIT_USAGE"
check_status "... and the command did not run" 1 test -e "$WS/should-not"
