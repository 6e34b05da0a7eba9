#!/bin/sh
# A question the command could redraw (issue 21 §2), judged by what reached
# the origin.  The command shares the terminal with stockade (its stdout and
# stderr are the pty, as a command typed in a terminal has them): it asks
# for evil.test while a process of its own keeps redrawing the question's
# host and prompt lines as allowed.test.  The human (t/helpers/pty-human.py)
# reads the screen, not the byte stream, and says yes only to a question
# that names allowed.test or fine.test.  Since the command stands still
# while the question is on the screen (core/run/freeze.c), the human sees
# evil.test and says no: evil.test never reaches the origin, while the
# honest question for fine.test that follows is answered yes and does.
# Under bwrap and under the Landlock stack.
. "$(dirname "$0")/../lib.sh"
linux_only

HUMAN="$(cd "$(dirname "$0")/.." && pwd)/helpers/pty-human.py"
for f in modules/approval_tty.so modules/net_proxy.so t/helpers/fetch-helper t/helpers/origin-helper; do
        [ -e "$STK_BUILD/$f" ] || { skip "prompt_repaint" "no $f"; exit 0; }
done
command -v python3 > /dev/null || { skip "prompt_repaint" "no python3 for the pty human"; exit 0; }
export XDG_CONFIG_HOME=$T_TMP/xdg XDG_STATE_HOME=$T_TMP/state
F=$(t_helper fetch-helper)
"$STK_BUILD/t/helpers/origin-helper" "$T_TMP/origin.log" > "$T_TMP/origin.port" &
T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
t_wait_for -s "$T_TMP/origin.port"
PORT=$(cat "$T_TMP/origin.port")
mkdir -p "$T_TMP/ws"

# policy WRAPPER-LINE: the proxy stack, with or without fs_bwrap, asking on the terminal
policy() {
        cat > "$T_TMP/p.yaml" <<EOF
stockade: 1
settings:
  workspace: "$T_TMP/ws"
  write: ["$T_TMP/ws"]
  private_tmp: true
  network: { mode: proxy, allow: [allowed.test] }
  approval: on-request
stack:
  - { phase: pre-exec,   control: required,   module: net_proxy, args: { ports: ["$PORT"],
      resolve: ["allowed.test:127.0.0.1", "evil.test:127.0.0.1", "fine.test:127.0.0.1"] } }
$1
  - { phase: pre-exec,   control: required,   module: fs_landlock }
  - { phase: in-sandbox, control: required,   module: net_proxy }
  - { phase: in-sandbox, control: required,   module: fs_landlock, args: { fallback: true } }
  - { phase: in-sandbox, control: required,   module: fs_guard }
  - { phase: in-sandbox, control: required,   module: net_seccomp }
  - { phase: egress,     control: required,   module: net_proxy }
  - { phase: egress,     control: optional,   module: approval_tty, args: { timeout: 20 } }
EOF
}

# The painter: up one line (the host line), "allowed.test" there, then the
# prompt line again, every 20 ms, for as long as it runs.
PAINT='while :; do
        printf "\r\033[1A\033[2K    allowed.test:%s (http)\r\n\033[2KConnect to allowed.test:%s? y = yes once, a = always, n = no, N = never (20 s): " "$1" "$1"
        sleep 0.02
done'
ATTACK='sh -c "$3" sh "$2" & p=$!
sleep 0.3
"$1" "http://evil.test:$2/evil"
"$1" "http://fine.test:$2/fine"
kill $p'

for stack in bwrap landlock; do
        if [ $stack = bwrap ]; then policy "  - { phase: pre-exec,   control: sufficient, module: fs_bwrap }"; else policy ""; fi
        : > "$T_TMP/origin.log"
        (cd "$T_TMP/ws" && python3 "$HUMAN" --stdio-tty --willing allowed.test --willing fine.test \
                --log "$T_TMP/tty" -- "$STK" run --policy "$T_TMP/p.yaml" -- sh -c "$ATTACK" sh "$F" "$PORT" "$PAINT") \
                > "$T_TMP/out" 2>&1; st=$?
        if ! grep -q 'status=' "$T_TMP/tty"; then
                skip "$stack" "the proxy stack cannot run here (status $st): $(tr -d '\r' < "$T_TMP/tty" | tail -c 200 | tr '\n' ' ')"
                continue
        fi
        check_status "$stack: two questions were put to the human" 0 test "$(grep -c -- '--- screen' "$T_TMP/tty.screens")" = 2
        check_output "$stack: the screen the human answered showed evil.test" '^Connect to evil.test:[0-9]+\? y = yes once' \
                cat "$T_TMP/tty.screens"
        if grep -q 'evil.test' "$T_TMP/origin.log"; then
                not_ok "$stack: the request for evil.test never reached the origin" "$(cat "$T_TMP/origin.log")"
        else
                ok "$stack: the request for evil.test never reached the origin"
        fi
        check_output "$stack: the honest question that followed was answered yes and reached it" '^http fine.test' \
                cat "$T_TMP/origin.log"
done
