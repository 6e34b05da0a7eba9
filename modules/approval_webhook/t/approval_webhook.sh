#!/bin/sh
# approval_webhook through the real `stockade run`: t_scripted answers ASK
# in the permission phase, approval_webhook POSTs the question to
# http-helper (a scripted HTTP server on 127.0.0.1), and the command runs
# (marker file) only on a 200 with a well-formed "allow".  The helper saves
# each request, so the method, headers, token and body are checked too.
# HTTPS is tested with a CA made here, when openssl and python3 exist.
. "$(dirname "$0")/../../../t/lib.sh"

H=$STK_BUILD/t/helpers/http-helper
[ -x "$STK" ] || { skip "approval_webhook" "no $STK"; exit 0; }
[ -f "$STK_BUILD/modules/approval_webhook.so" ] || { skip "approval_webhook" "module not built"; exit 0; }
[ -f "$STK_BUILD/t/modules/t_scripted.so" ] || { skip "approval_webhook" "no t_scripted test module"; exit 0; }
[ -x "$H" ] || { skip "approval_webhook" "no $H"; exit 0; }

export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
# SANITIZE=1 builds: libcurl brings dynamic TLS (GnuTLS, p11-kit) into the
# supervisor, and the __tls_get_addr interceptor of GCC <= 13 / LLVM <= 16
# misreads a block that malloc happens to place at offset 16 in a page, so
# LeakSanitizer's tracer crashed at exit now and then ("Tracer caught signal
# 11", ScanRangeForPointers; google/sanitizers#1322).  Not recording dynamic
# TLS avoids it; the other sanitizer checks are unchanged.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0"
P=$T_TMP/p.yaml
RAN=$T_TMP/ran
TOKEN=$T_TMP/token
printf 'T0ken-for-the-test\n' > "$TOKEN"
chmod 600 "$TOKEN"
n_srv=0

# serve MODE...: a fresh http-helper answering one connection per MODE;
# sets SRV (its directory, with req-N files), SRV_PID and URL.
serve() {
        n_srv=$((n_srv + 1))
        SRV=$T_TMP/srv$n_srv
        mkdir -p "$SRV"
        "$H" "$SRV" "$@" > /dev/null 2> "$SRV/err" &
        SRV_PID=$!
        T_CLEANUP="$T_CLEANUP; kill $SRV_PID 2>/dev/null"
        t_wait_for -s "$SRV/port"
        URL="http://127.0.0.1:$(cat "$SRV/port")/approve"
}
requests() { ls "$SRV" | grep -c '^req-'; }

# policy ARGS: t_scripted asks, one approval_webhook line with ARGS
policy() {
        open_policy "$P"
        cat >> "$P" <<EOF
stack:
  - { phase: permission, control: required, module: t_scripted, args: { result: ask } }
  - { phase: permission, control: optional, module: approval_webhook, args: { $1 } }
EOF
}

# case_run NAME WANT_STATUS WANT_RAN [LOG-PATTERN]: run `touch $RAN` under $P
case_run() {
        rm -f "$RAN"
        (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- touch "$RAN") > "$T_TMP/out" 2>&1; st=$?
        has=no; [ -e "$RAN" ] && has=yes
        if [ "$st" != "$2" ] || [ "$has" != "$3" ]; then
                not_ok "$1" "status $st want $2, ran $has want $3: $(tail -c 400 "$T_TMP/out" | tr '\n' ' ')"
        elif [ -n "${4:-}" ] && ! grep -qE -- "$4" "$T_TMP/out"; then
                not_ok "$1" "no /$4/ in: $(tail -c 400 "$T_TMP/out" | tr '\n' ' ')"
        else
                ok "$1"
        fi
}
# want_requests NAME N: the server saw exactly N requests
want_requests() {
        got=$(requests)
        if [ "$got" = "$2" ]; then ok "$1"; else not_ok "$1" "$got requests, want $2"; fi
}

# --- allow, and what was sent ---------------------------------------------------
serve allow
policy "url: \"$URL\", token_file: $TOKEN"
case_run "a 200 allow runs the command" 0 yes
R=$SRV/req-1
check "the request is a POST to the URL's path" grep -q '^POST /approve HTTP/1.1' "$R"
check "Content-Type: application/json" grep -qi '^Content-Type: application/json' "$R"
check "the bearer token from token_file is sent" grep -q '^Authorization: Bearer T0ken-for-the-test' "$R"
if command -v python3 > /dev/null; then
        python3 - "$R" "$RAN" "$T_TMP" > "$T_TMP/q.out" 2>&1 <<'EOF'
import json, sys
raw = open(sys.argv[1], "rb").read()
body = raw.split(b"\r\n\r\n", 1)[1]
q = json.loads(body.decode("utf-8"))
want = {"stockade_question": 1, "kind": "command", "argv": ["touch", sys.argv[2]],
        "cwd": sys.argv[3], "profile": "default", "reason": "t_scripted"}
assert q == want, "got %r" % q
EOF
        check_status "the body is the documented JSON question" 0 test "$(cat "$T_TMP/q.out")" = ""
else
        check "the body is the JSON question" grep -q '"stockade_question":1,"kind":"command","argv":\["touch"' "$R"
fi
if grep -q 'T0ken-for-the-test' "$P"; then not_ok "the token is not in the policy"; else ok "the token is not in the policy"; fi

serve allow
policy "url: \"$URL\""
case_run "no token_file: still asked" 0 yes
if grep -qi '^Authorization:' "$SRV/req-1"; then not_ok "no token_file, no Authorization header"
else ok "no token_file, no Authorization header"; fi

# --- deny, ignore ----------------------------------------------------------------
serve deny
policy "url: \"$URL\", token_file: $TOKEN"
case_run "a 200 deny stops the command (240)" $STK_EXIT_DENIED no 'deny: the test server says no'
serve ignore
policy "url: \"$URL\""
case_run "ignore with no other approver is a deny" $STK_EXIT_DENIED no 'no approval module answered'

# --- retries: only connection errors and 5xx --------------------------------------
serve 500 allow
policy "url: \"$URL\""
case_run "a 500 then an allow: retried, runs" 0 yes
want_requests "... after exactly two requests" 2
serve close allow
policy "url: \"$URL\""
case_run "a dropped connection then an allow: retried, runs" 0 yes
serve 500 500 500 allow
policy "url: \"$URL\", retries: 2"
case_run "5xx on every try is a deny" $STK_EXIT_DENIED no 'HTTP 500'
want_requests "... after 1 + retries requests" 3
serve 500 allow
policy "url: \"$URL\", retries: 0"
case_run "retries: 0 tries once" $STK_EXIT_DENIED no 'HTTP 500'
serve 404 allow
policy "url: \"$URL\""
case_run "a 404 is a deny, even with an allow body" $STK_EXIT_DENIED no 'HTTP 404'
want_requests "... and is never retried" 1
serve 302 allow
policy "url: \"$URL\""
case_run "a 302 is a deny" $STK_EXIT_DENIED no 'HTTP 302 \(redirects are not followed\)'
want_requests "... and the redirect is not followed" 1

# --- bodies that are not a verdict ---------------------------------------------------
serve malformed
policy "url: \"$URL\""
case_run "a malformed 200 is a deny, the bytes are shown" $STK_EXIT_DENIED no 'trailing bytes.*and then some'
serve huge
policy "url: \"$URL\""
case_run "a huge reply (Content-Length) is a deny" $STK_EXIT_DENIED no 'longer than 65536 bytes'
serve hugestream
policy "url: \"$URL\""
case_run "a huge reply (no length) is a deny" $STK_EXIT_DENIED no 'longer than 65536 bytes'

# --- time ----------------------------------------------------------------------------
serve slow
policy "url: \"$URL\", timeout: 1"
start=$(date +%s)
case_run "a server slower than the timeout is a deny" $STK_EXIT_DENIED no 'no answer .*1 try'
took=$(( $(date +%s) - start ))
# (the server answers "allow" after 3 s: a timeout not kept would have run the command)
if [ "$took" -lt 3 ]; then ok "the timeout is kept (${took}s)"; else not_ok "the timeout is kept" "took ${took}s"; fi
serve allow
port=$(cat "$SRV/port")
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
sleep 0.2
policy "url: \"http://127.0.0.1:$port/approve\", retries: 1"
case_run "nobody listening is a deny (after the retries)" $STK_EXIT_DENIED no 'no answer .*after 2 tries'

# --- the environment does not redirect the question --------------------------------------
serve allow
policy "url: \"$URL\", token_file: $TOKEN"
export http_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9
case_run "proxy variables in the environment are not used" 0 yes
unset http_proxy HTTP_PROXY https_proxy ALL_PROXY

# --- arguments: refused before anything runs -------------------------------------------
policy "url: \"http://example.com/approve\""
case_run "plain http off the loopback is a policy error" $STK_EXIT_POLICY no 'https:// is required'
policy "url: \"https://user:pw@example.com/approve\""
case_run "credentials in the URL are a policy error" $STK_EXIT_POLICY no 'credentials in the URL'
chmod 640 "$TOKEN"
policy "url: \"$URL\", token_file: $TOKEN"
case_run "a group-readable token file is refused" $STK_EXIT_POLICY no 'readable by group or others'
chmod 600 "$TOKEN"
policy "url: \"$URL\", timeout: 0"
case_run "timeout 0 is refused" $STK_EXIT_POLICY no 'timeout "0"'
policy "url: \"$URL\", client_key: $TOKEN"
case_run "a client_key without client_cert is refused" $STK_EXIT_POLICY no 'without client_cert'

# --- HTTPS with a CA of our own ------------------------------------------------------------
if ! command -v openssl > /dev/null; then
        skip "https" "no openssl to make a CA"; exit 0
fi
if ! command -v python3 > /dev/null; then
        skip "https" "no python3 for the TLS end (http-helper speaks plain HTTP)"; exit 0
fi
C=$T_TMP/ca
mkdir -p "$C"
if ! (cd "$C" &&
      openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=stockade-test-ca \
              -keyout ca.key -out ca.pem &&
      openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout srv.key -out srv.csr &&
      printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > ext &&
      openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
              -extfile ext -out srv.pem) > "$C/log" 2>&1; then
        skip "https" "openssl could not make the test CA: $(tail -c 200 "$C/log")"; exit 0
fi
chmod 600 "$C/ca.key" "$C/srv.key"

# tls_front PLAIN_PORT MODE: a TLS end on 127.0.0.1 that relays to http-helper;
# sets TLS_PORT
tls_front() {
        python3 - "$C/srv.pem" "$C/srv.key" "$1" "$C/tls_port" <<'EOF' 2> "$C/tls.err" &
import signal, socket, ssl, sys, threading
signal.alarm(60)  # never outlive the test for long, whatever happens
cert, key, plain, portfile = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(cert, key)
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(4); ls.settimeout(30)
open(portfile + ".tmp", "w").write(str(ls.getsockname()[1])); import os; os.rename(portfile + ".tmp", portfile)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    try: b.shutdown(socket.SHUT_WR)
    except OSError: pass
while True:
    try: c, _ = ls.accept()
    except OSError: break
    try: t = ctx.wrap_socket(c, server_side=True)
    except (ssl.SSLError, OSError): c.close(); continue
    p = socket.create_connection(("127.0.0.1", plain))
    threading.Thread(target=pipe, args=(t, p), daemon=True).start()
    pipe(p, t); t.close()
EOF
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        t_wait_for -s "$C/tls_port"
        TLS_PORT=$(cat "$C/tls_port")
        rm -f "$C/tls_port"
}

serve allow allow
tls_front "$(cat "$SRV/port")"
policy "url: \"https://127.0.0.1:$TLS_PORT/approve\", ca_file: $C/ca.pem, token_file: $TOKEN"
case_run "https with the test CA in ca_file: allow runs" 0 yes
check "the token went over TLS" grep -q '^Authorization: Bearer T0ken-for-the-test' "$SRV/req-1"
policy "url: \"https://127.0.0.1:$TLS_PORT/approve\""
case_run "https without the CA: the certificate is refused, deny" $STK_EXIT_DENIED no 'no answer'
want_requests "... and the question never reached the server" 1
