#!/bin/sh
# network.allow: ["*"] must not open the host's own services: a name
# pattern, `*` included, never admits an address literal, in any spelling
# (IPv4, IPv6, IPv4-mapped, decimal, hex), over plain HTTP, CONNECT and
# SOCKS5 (IPv4, IPv6 and domain address types); only an address or prefix
# entry does.  Judged at the origin, a host-only server on 127.0.0.1 and
# ::1: none of these requests may reach it.
. "$(dirname "$0")/../../../t/lib.sh"
. "$(dirname "$0")/fixture.inc"

np_policy "$T_TMP/star.yaml" bwrap 'allow: ["*"]'
np_policy "$T_TMP/listed.yaml" bwrap 'allow: ["*", "127.0.0.1"]'
run() { stk run --policy "$T_TMP/star.yaml" --workspace "$T_TMP" -- "$@"; }

hosts="v4=127.0.0.1 mapped=[::ffff:127.0.0.1] dec=2130706433 hex=0x7f000001"
if np_origin_v6; then hosts="$hosts v6=[::1]"; else skip "IPv6 loopback literal" "the origin cannot listen on [::1]"; fi
for how in plain tunnel socks; do
        opt=; [ $how = plain ] || opt=--$how
        for kv in $hosts; do
                form=${kv%%=*} host=${kv#*=}
                check_output "\"*\": $form literal over $how is refused" 'status=403|error=' \
                        run "$F" $opt "http://$host:$P/lit-$form-$how"
        done
done

# The SOCKS5 address types, sent as such (curl picks one by itself).
printf 'GET /lit-socks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' > "$T_TMP/req"
for args in "--socks4 127.0.0.1" "--socks6 ::ffff:127.0.0.1" "--socks-name 127.0.0.1" \
            "--socks-name 2130706433" "--socks-name 0x7f000001"; do
        check_output "\"*\": SOCKS5 $args is refused" 'tunnel: socks reply [1-9]' run "$RAW" $args "$P" "$T_TMP/req"
done
if np_origin_v6; then
        for a in ::1 0:0:0:0:0:0:0:1; do
                check_output "\"*\": SOCKS5 --socks6 $a is refused" 'tunnel: socks reply [1-9]' \
                        run "$RAW" --socks6 "$a" "$P" "$T_TMP/req"
        done
fi
np_never "no literal reached the host-only origin" '/lit-'

check_output "\"*\": a name resolving to loopback is refused" 'status=403 .*not a public address' \
        run "$F" "http://localhost:$P/lit-name"
np_never "nor did localhost" '/lit-name'

# The control: an address entry is what admits an address.
check_output "an address entry admits that literal" 'status=200 .*origin ok' \
        stk run --policy "$T_TMP/listed.yaml" --workspace "$T_TMP" -- "$F" "http://2130706433:$P/listed"
np_reached '/listed' && ok "the listed literal reached the origin" || not_ok "the listed literal reached the origin"
check_output "an address entry admits that address only" 'status=403' \
        stk run --policy "$T_TMP/listed.yaml" --workspace "$T_TMP" -- "$F" "http://127.0.0.2:$P/lit-other"
