#!/bin/sh
# The command stands still while a question is asked (issue 21 §2): an
# egress question goes to approval_exec while a process of the command
# keeps appending to a file; the approver, outside, sees the file stop
# growing, answers, and the writer goes on afterwards.  Under bwrap and
# under the Landlock stack (where the keeper's descendants are the
# command's processes).
. "$(dirname "$0")/../lib.sh"
linux_only

for f in modules/approval_exec.so modules/net_proxy.so t/helpers/fetch-helper t/helpers/origin-helper; do
        [ -e "$STK_BUILD/$f" ] || { skip "freeze" "no $f"; exit 0; }
done
export XDG_CONFIG_HOME=$T_TMP/xdg
F=$(t_helper fetch-helper)
"$STK_BUILD/t/helpers/origin-helper" "$T_TMP/origin.log" > "$T_TMP/origin.port" &
T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
t_wait_for -s "$T_TMP/origin.port"
PORT=$(cat "$T_TMP/origin.port")
mkdir -p "$T_TMP/ws" "$T_TMP/a"
TICKS=$T_TMP/ws/ticks
# The approver: the file's size twice, 400 ms apart, then allow.
cat > "$T_TMP/a/watch" <<EOF
#!/bin/sh
cat > /dev/null
a=\$(wc -c < "$TICKS"); sleep 0.4; b=\$(wc -c < "$TICKS")
if [ "\$a" = "\$b" ] && [ "\$a" -gt 0 ]; then echo frozen > "$T_TMP/a/seen"; else echo "running \$a \$b" > "$T_TMP/a/seen"; fi
echo '{"verdict":"allow","reason":"watched"}'
EOF
chmod 755 "$T_TMP/a/watch"

# policy WRAPPER-LINE: the proxy stack, with or without fs_bwrap
policy() {
        cat > "$T_TMP/p.yaml" <<EOF
stockade: 1
settings:
  workspace: "$T_TMP/ws"
  write: ["$T_TMP/ws"]
  private_tmp: true
  network: { mode: proxy, allow: [] }
  approval: on-request
  best_effort: [proc]   # Landlock cannot hide other processes' /proc (issue 13 §4)
stack:
  - { phase: pre-exec,   control: required,   module: net_proxy, args: { ports: ["$PORT"], resolve: ["asked.test:127.0.0.1"] } }
$1
  - { phase: pre-exec,   control: required,   module: fs_landlock }
  - { phase: in-sandbox, control: required,   module: net_proxy }
  - { phase: in-sandbox, control: required,   module: fs_landlock, args: { fallback: true } }
  - { phase: in-sandbox, control: required,   module: fs_guard }
  - { phase: in-sandbox, control: required,   module: net_seccomp }
  - { phase: egress,     control: required,   module: net_proxy }
  - { phase: egress,     control: optional,   module: approval_exec, args: { program: $T_TMP/a/watch, timeout: 10 } }
EOF
}

for stack in bwrap landlock; do
        if [ $stack = bwrap ]; then policy "  - { phase: pre-exec,   control: sufficient, module: fs_bwrap }"; else policy ""; fi
        rm -f "$TICKS" "$T_TMP/a/seen"
        (cd "$T_TMP/ws" && "$STK" run --policy "$T_TMP/p.yaml" -- sh -c '
                (while :; do echo tick >> ticks; done) & w=$!
                sleep 0.3; "$1" "http://asked.test:$2/x"; n=$(wc -c < ticks); sleep 0.2
                kill $w; [ "$(wc -c < ticks)" -gt "$n" ] && echo "went on"' sh "$F" "$PORT") > "$T_TMP/out" 2>&1; st=$?
        if [ "$st" != 0 ] && ! grep -q 'status=' "$T_TMP/out"; then
                skip "$stack" "the proxy stack cannot run here (status $st): $(tail -c 200 "$T_TMP/out" | tr '\n' ' ')"
                continue
        fi
        check_output "$stack: the command's writer is stopped while the question is asked" '^frozen$' cat "$T_TMP/a/seen"
        check_output "$stack: the answer went through" 'status=200' cat "$T_TMP/out"
        check_output "$stack: and the writer went on afterwards" '^went on$' cat "$T_TMP/out"
done
