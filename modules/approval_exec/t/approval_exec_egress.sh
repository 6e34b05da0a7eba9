#!/bin/sh
# Egress questions through the real `stockade run`: net_proxy answers ASK
# for a name nobody listed, approval_exec asks its program, and the fetch
# through the proxy succeeds or is refused accordingly.  The program gets
# the documented egress question.  Needs a sandbox stack that can run here
# (bwrap or Landlock, as net_proxy's own test); skipped otherwise.
. "$(dirname "$0")/../../../t/lib.sh"

for f in modules/approval_exec.so modules/net_proxy.so t/helpers/fetch-helper t/helpers/origin-helper; do
        [ -e "$STK_BUILD/$f" ] || { skip "approval_exec egress" "no $f"; exit 0; }
done
command -v python3 > /dev/null || { skip "approval_exec egress" "no python3 to read the question"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home
F=$(t_helper fetch-helper)
"$STK_BUILD/t/helpers/origin-helper" "$T_TMP/origin.log" > "$T_TMP/origin.port" &
T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
t_wait_for -s "$T_TMP/origin.port"
PORT=$(cat "$T_TMP/origin.port")
A=$T_TMP/approvers
mkdir -p "$A"
approver() { printf '#!/bin/sh\n%s\n' "$2" > "$A/$1" && chmod 755 "$A/$1"; }
approver allow 'cat > "$0.question"; echo "{\"verdict\":\"allow\",\"reason\":\"egress ok\"}"'
approver deny 'cat > "$0.question"; echo "{\"verdict\":\"deny\",\"reason\":\"not that host\"}"'

# policy PROGRAM: asked.test is nobody's (net_proxy asks), listed.test is allowed
policy() {
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
  - { phase: egress,     control: optional,   module: approval_exec, args: { program: $A/$1, timeout: 5 } }
EOF
}
run() { (cd "$T_TMP" && "$STK" run --policy "$T_TMP/p.yaml" --workspace "$T_TMP" -- "$F" "$@"); }

policy allow
run "http://listed.test:$PORT/" > "$T_TMP/out" 2>&1; st=$?
if [ "$st" != 0 ]; then
        skip "approval_exec egress" "the proxy stack cannot run here (status $st): $(tail -c 200 "$T_TMP/out" | tr '\n' ' ')"
        exit 0
fi
if [ -e "$A/allow.question" ]; then not_ok "a listed name is not asked about"; else ok "a listed name is not asked about"; fi

check_output "an unlisted name, approved: the fetch goes through" 'status=200 .*origin ok' run "http://asked.test:$PORT/x"
python3 - "$A/allow.question" "$PORT" > "$T_TMP/q.out" 2>&1 <<'EOF'
import json, sys
q = json.loads(open(sys.argv[1], encoding="utf-8").read())
pid = q.pop("pid", None)
want = {"stockade_question": 1, "kind": "egress", "host": "asked.test", "port": int(sys.argv[2]),
        "scheme": "http", "profile": "default", "reason": "net_proxy"}
assert q == want, "got %r" % q
assert isinstance(pid, int) and pid >= 0, "pid %r" % pid
EOF
check_status "the program got the documented egress question" 0 test "$(cat "$T_TMP/q.out")" = ""

policy deny
check_output "an unlisted name, denied: refused by the proxy" 'status=403 .*approval_exec' run "http://asked.test:$PORT/y"
check_output "... and the program's reason is logged" 'deny: not that host' run "http://asked.test:$PORT/y"
check_output "a CONNECT tunnel is asked about too, and refused" 'response 403' run --tunnel "http://asked.test:$PORT/z"
check "... with scheme connect in the question" grep -q '"scheme":"connect"' "$A/deny.question"
if grep -q ' /y' "$T_TMP/origin.log" 2>/dev/null; then not_ok "a denied request never reached the origin" "$(cat "$T_TMP/origin.log")"
else ok "a denied request never reached the origin"; fi
