#!/bin/sh
# net_proxy through the real CLI: libcurl (fetch-helper) inside the sandbox
# against an origin server on 127.0.0.1 that the test starts, reached through
# the proxy's resolve map.  Allowed names work over plain HTTP, CONNECT and
# SOCKS5; denied, unlisted, raw-IP, wrong-port and private destinations are
# refused with the proxy's reason; a direct connect fails; fronting (Host,
# SNI) is refused; hostile input leaves the proxy serving.  Both the bwrap
# stack (listener handed over from the sandbox's namespace) and the Landlock
# stack (no namespace) are tried.
. "$(dirname "$0")/../../../t/lib.sh"

. "$(dirname "$0")/fixture.inc"

# policy FILE STACK [EXTRA-ARGS]: the names these checks use.
policy() {
        np_policy "$1" "$2" 'allow: [allowed.test, "*.good.test", private.test, localhost], deny: [bad.good.test]' \
                ", resolve: [\"allowed.test:127.0.0.1\", \"x.good.test:$P:127.0.0.1\", \"bad.good.test:127.0.0.1\", \"other.test:127.0.0.1\"]${3-}"
}
policy "$T_TMP/bwrap.yaml" bwrap
policy "$T_TMP/landlock.yaml" landlock
policy "$T_TMP/private.yaml" bwrap ", allow_private: [127.0.0.0/8]"

for stack in bwrap landlock; do
        run() { stk run --policy "$T_TMP/$stack.yaml" --workspace "$T_TMP" -- "$@"; }
        check_output "$stack: plain HTTP to an allowed name" 'status=200 .*origin ok' run "$F" "http://allowed.test:$P/plain"
        check_output "$stack: CONNECT to an allowed name" 'status=200 .*origin ok' run "$F" --tunnel "http://allowed.test:$P/connect"
        check_output "$stack: SOCKS5 to an allowed name" 'status=200 .*origin ok' run "$F" --socks "http://x.good.test:$P/socks"
        check_output "$stack: a denied name is refused" 'status=403 .*network.deny has "bad.good.test"' \
                run "$F" "http://bad.good.test:$P/"
        check_output "$stack: an unlisted name under approval never is refused" 'status=403 .*approval: never' \
                run "$F" "http://other.test:$P/"
        check_output "$stack: a raw IP is refused" 'status=403 .*address literal' run "$F" "http://127.0.0.1:$P/"
        check_output "$stack: a port not in ports is refused" 'status=403 .*port 8 is not in' run "$F" "http://allowed.test:8/"
        check_output "$stack: SOCKS5 to a denied name is refused" 'error=97' run "$F" --socks "http://bad.good.test:$P/"
        check_output "$stack: a direct connect ignoring the proxy fails" 'error=7 ' run "$F" --noproxy "http://127.0.0.1:$P/"
        check_output "$stack: plain HTTP with another Host is refused" 'status=403 .*Host header' \
                run "$F" --header "Host: other.test:$P" "http://allowed.test:$P/"
        check_output "$stack: a tunnel carrying another Host is closed" 'error=52' \
                run "$F" --tunnel --header "Host: other.test:$P" "http://allowed.test:$P/"
done
grep -q "other.test" "$ORIGIN_LOG" && not_ok "fronted requests never reached the origin" "$(cat "$ORIGIN_LOG")" \
        || ok "fronted requests never reached the origin"

# Landlock matches TCP ports, not addresses: the proxy's port number on
# another address must stay unreachable (net_seccomp's connect check).
python3 -c '
import socket,sys,time
# a port free on 127.0.0.1 too, where the proxy will ask for it (an
# ephemeral port taken there by another connection made this test flaky)
while True:
    s=socket.socket(); s.bind(("127.0.0.2",0))
    t=socket.socket()
    try:
        t.bind(("127.0.0.1",s.getsockname()[1])); t.close(); break
    except OSError:
        t.close(); s.close()
s.listen(8)
open(sys.argv[1],"w").write(str(s.getsockname()[1]))
s.settimeout(60)
try:
    c,_=s.accept(); open(sys.argv[2],"w").write("reached")
except Exception: pass' "$T_TMP/q.port" "$T_TMP/q.reached" &
T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
t_wait_for -s "$T_TMP/q.port"
Q=$(cat "$T_TMP/q.port")
policy "$T_TMP/landlock-q.yaml" landlock ", listen_port: $Q"
check_output "landlock: the proxy's port on another address is refused" 'error=7 ' \
        stk run --policy "$T_TMP/landlock-q.yaml" --workspace "$T_TMP" -- "$F" --noproxy "http://127.0.0.2:$Q/"
[ -e "$T_TMP/q.reached" ] && not_ok "landlock: nothing reached 127.0.0.2:$Q" || ok "landlock: nothing reached 127.0.0.2:$Q"
check_output "landlock: the proxy itself still works on that port" 'status=200' \
        stk run --policy "$T_TMP/landlock-q.yaml" --workspace "$T_TMP" -- "$F" "http://allowed.test:$P/"

# DNS rebinding: "localhost" resolves (through /etc/hosts) to loopback.
run() { stk run --policy "$T_TMP/bwrap.yaml" --workspace "$T_TMP" -- "$@"; }
check_output "a name resolving to loopback is refused" 'status=403 .*not a public address' run "$F" "http://localhost:$P/"
check_output "allow_private lets it through" 'status=200' \
        stk run --policy "$T_TMP/private.yaml" --workspace "$T_TMP" -- "$F" "http://localhost:$P/"

# SNI: a ClientHello for another name than the CONNECT host is refused
# before it reaches the origin; the right name passes (the origin logs "tls").
: > "$ORIGIN_LOG"
check_output "CONNECT whose ClientHello names another host is closed" 'error=(35|56)' \
        run "$F" --connect-to "other.test:$P:allowed.test:$P" "https://other.test:$P/"
grep -q '^tls' "$ORIGIN_LOG" && not_ok "the fronted ClientHello never reached the origin" || ok "the fronted ClientHello never reached the origin"
run "$F" "https://allowed.test:$P/" > /dev/null 2>&1
grep -q '^tls' "$ORIGIN_LOG" && ok "a ClientHello naming the CONNECT host reaches the origin" \
        || not_ok "a ClientHello naming the CONNECT host reaches the origin" "$(cat "$ORIGIN_LOG")"

# Hostile input: each refused cleanly, and a good request still works after.
for m in bighead garbage slowloris socks-trunc; do
        check "hostile $m: a clean refusal" run sh -c "$HOSTILE $m"
done
run sh -c "$HOSTILE idle 1000 > $T_TMP/held & i=0; while ! grep -q held $T_TMP/held && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
            cat $T_TMP/held; $F http://allowed.test:$P/after-idle; kill \$!" > "$T_TMP/idle.out" 2>&1
if grep -q 'held 1000' "$T_TMP/idle.out" && grep -q 'status=200' "$T_TMP/idle.out"; then
        ok "1000 idle connections held open, and a good request is served meanwhile"
else
        not_ok "1000 idle connections held open, and a good request is served meanwhile" "$(grep -v 'no complete request' "$T_TMP/idle.out" | tail -c 300)"
fi
check_output "after all that the proxy still serves" 'status=200' run sh -c "$HOSTILE garbage; $F http://allowed.test:$P/"

# ASK goes to the approval modules: approval_exec answers for the egress
# question (its program sees kind "egress" and the host) when approval is on-request.
if [ -f "$STK_BUILD/modules/approval_exec.so" ]; then
        printf '#!/bin/sh\nq=$(cat)\ncase "$q" in *\\"egress\\"*\\"other.test\\"*) echo "{\\"verdict\\":\\"allow\\"}";; *) echo "{\\"verdict\\":\\"deny\\"}";; esac\n' \
                > "$T_TMP/approver" && chmod 755 "$T_TMP/approver"
        sed -e 's/approval: never/approval: on-request/' "$T_TMP/bwrap.yaml" > "$T_TMP/ask.yaml"
        echo "  - { phase: permission, control: optional, module: approval_exec, args: { program: \"$T_TMP/approver\" } }" >> "$T_TMP/ask.yaml"
        check_output "an unlisted name the approval module allows is reached" 'status=200 .*origin ok' \
                stk run --policy "$T_TMP/ask.yaml" --workspace "$T_TMP" -- "$F" "http://other.test:$P/asked"
        check_output "an unlisted name the approval module denies is refused, naming it" 'status=403 .*approval_exec' \
                stk run --policy "$T_TMP/ask.yaml" --workspace "$T_TMP" -- "$F" "http://unlisted.test:$P/asked"
else
        skip "egress approvals" "approval_exec not built"
fi

# NO_PROXY: exactly loopback inside bwrap's own network namespace (a dev
# server there is the sandbox's), empty under Landlock (loopback is the
# host's); the user's own value never gets through.
stk_user_no_proxy() {
        (export NO_PROXY=intranet.example no_proxy=intranet.example
         stk run --policy "$1" --workspace "$T_TMP" -- sh -c 'echo "np=[$NO_PROXY|$no_proxy]"')
}
check_output "bwrap: NO_PROXY is exactly loopback, the user's own dropped" \
        '^np=\[localhost,127\.0\.0\.1,::1\|localhost,127\.0\.0\.1,::1\]$' \
        stk_user_no_proxy "$T_TMP/bwrap.yaml"
check_output "landlock: NO_PROXY stays empty, the user's own dropped" '^np=\[\|\]$' \
        stk_user_no_proxy "$T_TMP/landlock.yaml"

# Audit: one record per connection, with bytes and the verdict.
stk run --policy "$T_TMP/bwrap.yaml" --workspace "$T_TMP" --audit "$T_TMP/audit.jsonl" -- "$F" "http://allowed.test:$P/audit" > /dev/null 2>&1
check_output "each connection leaves an audit record" '"egress-connection".*"verdict": *"allow".*"bytes_in": *[1-9]' \
        grep egress-connection "$T_TMP/audit.jsonl"
check_output "explain shows the proxy" 'SOCKS5 proxy in the supervisor' \
        stk explain --details --policy "$T_TMP/bwrap.yaml" --workspace "$T_TMP"
