#!/bin/sh
# Egress questions through the real `stockade run`, answered over HTTP:
# net_proxy answers ASK for a name nobody listed, approval_webhook POSTs
# the question to http-helper, and the fetch through the proxy succeeds
# or is refused accordingly.  Needs a sandbox stack that can run here
# (bwrap or Landlock, as net_proxy's own test); skipped otherwise.
. "$(dirname "$0")/../../../t/lib.sh"

for f in modules/approval_webhook.so modules/net_proxy.so t/helpers/fetch-helper t/helpers/origin-helper \
         t/helpers/http-helper; do
        [ -e "$STK_BUILD/$f" ] || { skip "approval_webhook egress" "no $f"; exit 0; }
done
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
# SANITIZE=1 builds: libcurl brings dynamic TLS (GnuTLS, p11-kit) into the
# supervisor, and the __tls_get_addr interceptor of GCC <= 13 / LLVM <= 16
# misreads a block that malloc happens to place at offset 16 in a page, so
# LeakSanitizer's tracer crashed at exit now and then ("Tracer caught signal
# 11", ScanRangeForPointers; google/sanitizers#1322).  Not recording dynamic
# TLS avoids it; the other sanitizer checks are unchanged.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0"
F=$(t_helper fetch-helper)
"$STK_BUILD/t/helpers/origin-helper" "$T_TMP/origin.log" > "$T_TMP/origin.port" &
T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
t_wait_for -s "$T_TMP/origin.port"
PORT=$(cat "$T_TMP/origin.port")
n_srv=0

# serve MODE...: http-helper answering one connection per MODE; sets SRV and URL
serve() {
        n_srv=$((n_srv + 1))
        SRV=$T_TMP/srv$n_srv
        mkdir -p "$SRV"
        "$STK_BUILD/t/helpers/http-helper" "$SRV" "$@" > /dev/null 2> "$SRV/err" &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        t_wait_for -s "$SRV/port"
        URL="http://127.0.0.1:$(cat "$SRV/port")/egress"
}

policy() {  # policy: asked.test is nobody's (net_proxy asks), listed.test is allowed
        cat > "$T_TMP/p.yaml" <<EOF
stockade: 1
settings:
  workspace: "\${CWD}"
  write: ["\${WORKSPACE}"]
  private_tmp: true
  network: { mode: proxy, allow: [listed.test] }
  approval: on-request
stack:
  - { phase: pre-exec,   control: required,   module: net_proxy, args: { ports: ["$PORT"],
      resolve: ["asked.test:127.0.0.1", "listed.test:127.0.0.1"] } }
  - { phase: pre-exec,   control: sufficient, module: fs_bwrap }
  - { phase: pre-exec,   control: required,   module: fs_landlock }
  - { phase: in-sandbox, control: required,   module: net_proxy }
  - { phase: in-sandbox, control: required,   module: fs_landlock, args: { fallback: true } }
  - { phase: in-sandbox, control: required,   module: fs_guard }
  - { phase: in-sandbox, control: required,   module: net_seccomp }
  - { phase: egress,     control: required,   module: net_proxy }
  - { phase: egress,     control: optional,   module: approval_webhook, args: { url: "$URL", timeout: 5 } }
EOF
}
run() { (cd "$T_TMP" && "$STK" run --policy "$T_TMP/p.yaml" --workspace "$T_TMP" -- "$F" "$@"); }

serve allow
policy
run "http://listed.test:$PORT/" > "$T_TMP/out" 2>&1; st=$?
if [ "$st" != 0 ]; then
        skip "approval_webhook egress" "the proxy stack cannot run here (status $st): $(tail -c 200 "$T_TMP/out" | tr '\n' ' ')"
        exit 0
fi
check_output "an unlisted name, approved over HTTP: the fetch goes through" 'status=200 .*origin ok' \
        run "http://asked.test:$PORT/x"
check "the POST carried the egress question" \
        grep -q "{\"stockade_question\":1,\"kind\":\"egress\",\"host\":\"asked.test\",\"port\":$PORT,\"scheme\":\"http\"," \
        "$SRV/req-1"
serve deny
policy
check_output "an unlisted name, denied over HTTP: refused by the proxy" 'status=403 .*approval_webhook' \
        run "http://asked.test:$PORT/y"
serve 500 500 500
policy
check_output "no usable answer: refused" 'status=403' run "http://asked.test:$PORT/z"
if grep -q ' /[yz]' "$T_TMP/origin.log" 2>/dev/null; then not_ok "denied requests never reached the origin"
else ok "denied requests never reached the origin"; fi
