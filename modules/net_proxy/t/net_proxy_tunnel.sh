#!/bin/sh
# What reaches the origin through a tunnel (CONNECT and SOCKS5) and over
# plain HTTP: every request is checked, not only the first.  allowed.test
# and the denied evil.test share the origin's address (a CDN serving
# both); every request for evil.test, pipelined in the first packet, sent
# later on the same connection, named only by the request line, hidden
# after a body, or split over many reads, must never reach it, while
# keep-alive requests for allowed.test still do.  Then the TLS rule: a
# name tunnel's ClientHello must carry that name; a tunnel to a listed
# address may carry none, and no other.  Judged by the origin's log.
. "$(dirname "$0")/../../../t/lib.sh"
. "$(dirname "$0")/fixture.inc"

np_policy "$T_TMP/p.yaml" bwrap 'allow: [allowed.test, 127.0.0.1], deny: [evil.test]' \
        ", resolve: [\"allowed.test:127.0.0.1\", \"evil.test:127.0.0.1\"]"
run() { stk run --policy "$T_TMP/p.yaml" --workspace "$T_TMP" -- "$@"; }
A="allowed.test:$P" E="evil.test:$P"
# req METHOD PATH HOST [HEADER...]: a request head, every line ended by CRLF.
req() {
        m=$1 path=$2 h=$3; shift 3
        printf '%s /%s HTTP/1.1\r\nHost: %s\r\n' "$m" "$path" "$h"
        for x in "$@"; do printf '%s\r\n' "$x"; done
        printf '\r\n'
}
get() { req GET "$1" "$2"; }

# Pipelined in the first packet, and later on the same connection.
{ get t-one "$A"; get evil-pipelined "$E"; } > "$T_TMP/pipelined"
get t-two "$A" > "$T_TMP/first"
get evil-later "$E" > "$T_TMP/later"
# The request line names evil.test, the Host header allowed.test.
printf 'GET http://%s/evil-absolute HTTP/1.1\r\nHost: %s\r\n\r\n' "$E" "$A" > "$T_TMP/absolute"
get t-abs-first "$A" > "$T_TMP/abs-first"
# Bodies that look like a request: the next request starts exactly where
# the body ends, not where the bytes inside it would suggest.
get evil-in-body "$E" > "$T_TMP/body"
n=$(wc -c < "$T_TMP/body")
{ req POST t-cl "$A" "Content-Length: $n"; cat "$T_TMP/body"; get t-after-cl "$A"; get evil-after-cl "$E"; } > "$T_TMP/cl"
{ req POST t-chunked "$A" "Transfer-Encoding: chunked"; printf '%x\r\n' "$n"; cat "$T_TMP/body"; printf '\r\n0\r\n\r\n'
  get t-after-chunked "$A"; get evil-after-chunked "$E"; } > "$T_TMP/chunked"
# Keep-alive still works: four requests, three pipelined, one later.
{ get ka-1 "$A"; req POST ka-2 "$A" "Content-Length: 3"; printf 'abc'; get ka-3 "$A"; } > "$T_TMP/ka"
get ka-4 "$A" > "$T_TMP/ka-later"
# An upgrade would turn the rest of the stream into something else.
req GET evil-upgrade "$A" "Upgrade: websocket" "Connection: Upgrade" > "$T_TMP/upgrade"

# Each check's client must get its tunnel; what got through is judged below.
for how in "--connect $A" "--socks-name allowed.test $P"; do
        via=${how%% *}
        check "$via: a pipelined request for another host" run "$RAW" $how "$T_TMP/pipelined"
        check "$via: a later request for another host" run "$RAW" $how "$T_TMP/first" "$T_TMP/later"
        check "$via: a request line naming another host" run "$RAW" $how "$T_TMP/absolute"
        check "$via: ... after a good first request" run "$RAW" $how "$T_TMP/abs-first" "$T_TMP/absolute"
        check "$via: a request after a Content-Length body" run "$RAW" $how "$T_TMP/cl"
        check "$via: a request after a chunked body" run "$RAW" $how "$T_TMP/chunked"
        check "$via: requests split byte by byte" run "$RAW" $how --bytewise "$T_TMP/pipelined"
        check "$via: an Upgrade" run "$RAW" $how "$T_TMP/upgrade"
done
np_never "no request for evil.test reached the origin" 'evil'
missing=
for path in t-one t-two t-abs-first t-cl t-after-cl t-chunked t-after-chunked; do
        [ "$(grep -c " /$path " "$ORIGIN_LOG")" -ge 2 ] || missing="$missing $path"
done
[ -z "$missing" ] && ok "the allowed requests around them did reach it" ||
        not_ok "the allowed requests around them did reach it" "not twice:$missing"

: > "$ORIGIN_LOG"
run "$RAW" --connect "$A" "$T_TMP/ka" "$T_TMP/ka-later" > "$T_TMP/ka.out" 2>&1
n=$(grep -c '^HTTP/1.1 200' "$T_TMP/ka.out")
[ "$n" = 4 ] && [ "$(grep -c ' /ka-' "$ORIGIN_LOG")" = 4 ] && ok "keep-alive and pipelining work in a tunnel" ||
        not_ok "keep-alive and pipelining work in a tunnel" "$n answers; origin: $(tr '\n' ' ' < "$ORIGIN_LOG")"

# A tunnel to a listed address: the Host must be that address.
get t-ip "127.0.0.1:$P" > "$T_TMP/ip-good"
get evil-ip "$E" > "$T_TMP/ip-evil"
check "a tunnel to an address" run "$RAW" --connect "127.0.0.1:$P" "$T_TMP/ip-good" "$T_TMP/ip-evil"
np_reached ' /t-ip ' && ok "carries requests for that address" || not_ok "carries requests for that address"
np_never "but none naming another host" 'evil-ip'

# Plain HTTP is one request per connection: nothing after the first goes on.
printf 'GET http://%s/t-plain HTTP/1.1\r\nHost: %s\r\n\r\nGET http://%s/evil-plain HTTP/1.1\r\nHost: %s\r\n\r\n' \
        "$A" "$A" "$E" "$E" > "$T_TMP/plain"
printf 'GET http://%s/evil-plain-later HTTP/1.1\r\nHost: %s\r\n\r\n' "$E" "$E" > "$T_TMP/plain-later"
check_output "plain HTTP: the first request is served" 'origin ok' run "$RAW" --plain "$T_TMP/plain" "$T_TMP/plain-later"
np_never "plain HTTP: no second request reached the origin" 'evil-plain'

# TLS: the first bytes decide, and the origin logs "tls" when a hello reached it.
tls_case() { # NAME WANT(reached|refused) RAW-ARGS...
        name=$1 want=$2; shift 2
        : > "$ORIGIN_LOG"
        run "$RAW" "$@" > "$T_TMP/tls.out" 2>&1
        got=refused; grep -q '^tls' "$ORIGIN_LOG" && got=reached
        [ $got = "$want" ] && ok "$name" || not_ok "$name" "$got: $(tr '\n' ' ' < "$T_TMP/tls.out" | tail -c 200)"
}
tls_case "a ClientHello naming the CONNECT host reaches the origin" reached --connect "$A" @hello=allowed.test
tls_case "a ClientHello without SNI in a name tunnel does not" refused --connect "$A" @hello
tls_case "... nor over SOCKS5" refused --socks-name allowed.test "$P" @hello
tls_case "a ClientHello without SNI to a listed address reaches it" reached --connect "127.0.0.1:$P" @hello
tls_case "... over SOCKS5 too" reached --socks4 127.0.0.1 "$P" @hello
tls_case "a ClientHello naming a host in a tunnel to an address does not" refused --connect "127.0.0.1:$P" @hello=allowed.test
: > "$ORIGIN_LOG"
run "$F" "https://127.0.0.1:$P/" > /dev/null 2>&1 # curl sends no SNI for an address
np_reached '^tls' && ok "curl's handshake to a listed address reaches it" ||
        not_ok "curl's handshake to a listed address reaches it" "$(cat "$ORIGIN_LOG")"
