#!/bin/sh
# `make bench` fails loudly when it cannot measure (issue 17: run before the
# test helpers were built, bench/proxy printed "direct loopback 1000000
# MB/s, CONNECT 0 MB/s" and exited 0).  Timed results are not checked here
# (they belong in bench/), only that a benchmark without numbers fails.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
F=$T_TMP/build
mkdir -p "$F/bench" "$F/t/helpers"
cp "$STK" "$F/stockade"
printf '#!/bin/sh\nexit 1\n' > "$F/bench/proxy-client"
chmod 755 "$F/bench/proxy-client"
STK_BUILD=$F sh "$top/bench/proxy" > "$T_TMP/out" 2>&1; st=$?
if [ "$st" != 0 ] && grep -q 'FAILED: .*origin-helper is not built' "$T_TMP/out"; then
        ok "bench/proxy without the test helpers fails, naming the missing one"
else
        not_ok "bench/proxy without the test helpers fails" "status $st: $(tail -c 300 "$T_TMP/out")"
fi
# An origin that serves nothing: every transfer fails, nothing is measured.
printf '#!/bin/sh\necho 1\nexec sleep 30\n' > "$F/t/helpers/origin-helper"
chmod 755 "$F/t/helpers/origin-helper"
STK_BENCH_PROXY_ROUNDS=1 STK_BUILD=$F sh "$top/bench/proxy" > "$T_TMP/out" 2>&1; st=$?
if [ "$st" != 0 ] && grep -q 'FAILED: could not measure' "$T_TMP/out" && ! grep -q 'MB/s' "$T_TMP/out"; then
        ok "bench/proxy with transfers that fail reports no figure and fails"
else
        not_ok "bench/proxy with transfers that fail reports no figure and fails" "status $st: $(tail -c 300 "$T_TMP/out")"
fi
