#!/bin/sh
# Approvals that ask (issue 13 §5, issue 21 §2): the shipped profiles put an
# ASK to the human at the controlling terminal (a pty played by
# t/helpers/pty-human.py, which answers what the screen shows); with no
# terminal the answer is a DENY that names the settings that answer without
# one; approval_exec and approval_webhook pass until approval.exec or
# approval.webhook is set, which the user layer does with the snippet of
# stockade.yaml(5); a project may not; and after approval.ask_limit
# questions denied or unanswered, the rest of a run's are denied unasked.
. "$(dirname "$0")/../lib.sh"
linux_only

HUMAN="$(cd "$(dirname "$0")/.." && pwd)/helpers/pty-human.py"
for f in modules/approval_tty.so modules/approval_exec.so modules/approval_webhook.so modules/perm_rules.so; do
        [ -e "$STK_BUILD/$f" ] || { skip "approvals" "no $f"; exit 0; }
done
command -v python3 > /dev/null || { skip "approvals" "no python3 for the pty human"; exit 0; }

export XDG_CONFIG_HOME="$T_TMP/xdg"     # the user layer of this test only
export XDG_STATE_HOME="$T_TMP/xdgstate" # and its remembered answers
UL="$XDG_CONFIG_HOME/stockade"
mkdir -p "$UL" "$T_TMP/ws" "$T_TMP/a"
WS="$T_TMP/ws"
MARK="$WS/marker"
# eval is what perm_rules cannot read through: the agent profile asks.
ASKING='eval "touch marker"'
if ! (cd "$WS" && "$STK" run --profile agent -- true) > "$T_TMP/first" 2>&1; then
        skip "approvals" "the agent profile cannot run here: $(tail -c 200 "$T_TMP/first" | tr '\n' ' ')"
        exit 0
fi

# human OPTS...: `stockade run --profile agent -- sh -c "$ASKING"` on a pty;
# sets $st.  What the terminal showed is $T_TMP/tty, stockade's stderr
# $T_TMP/err.
human() {
        rm -f "$MARK"
        (cd "$WS" && python3 "$HUMAN" --log "$T_TMP/tty" --err "$T_TMP/err" "$@" -- \
                "$STK" run --profile agent -- sh -c "$ASKING") > "$T_TMP/human.out" 2>&1
        st=$?
}
ran() { [ -e "$MARK" ] && echo ran || echo "did not run"; }
# expect NAME STATUS RAN: the last run
expect() {
        if [ "$st" = "$2" ] && [ "$(ran)" = "$3" ]; then ok "$1"
        else not_ok "$1" "status $st, $(ran): $(tail -c 300 "$T_TMP/err" | tr '\n' ' ') $(cat "$T_TMP/human.out")"; fi
}
KEY="sh -c 'eval \"touch marker\"'"

# --- the shipped profile asks on the terminal --------------------------------------
human --answer y
expect "agent profile, y at the terminal: the command runs" 0 ran
check_output "the line the answer is typed on names the command" \
        "^Run $KEY\\? y = yes once" tr -d '\r' < "$T_TMP/tty"
check_output "the answer is said back with what it approved" \
        "stockade: allowed once: run $KEY\$" tr -d '\r' < "$T_TMP/tty"
human --answer n
expect "agent profile, n at the terminal: denied (240), did not run" $STK_EXIT_DENIED "did not run"
check_output "... and said back" "stockade: denied: run $KEY\$" tr -d '\r' < "$T_TMP/tty"

# --- no terminal: a clear DENY, naming the settings -----------------------------------
human --no-tty
expect "no terminal: denied, did not run" $STK_EXIT_DENIED "did not run"
check_output "no terminal: the message names approval.exec and approval.webhook and the user file" \
        "set approval.exec .* or approval.webhook .* in the user layer, $UL/agent.yaml" cat "$T_TMP/err"
check_output "no terminal: approval_tty says why it did not ask" 'no terminal to ask on \(/dev/tty: ' cat "$T_TMP/err"

# --- unset, approval_exec and approval_webhook answer nothing -----------------------------
check_output "explain: approval_exec passes until approval.exec is set" \
        'answers nothing \(IGNORE\): no program; set approval.exec' "$STK" explain --profile agent --workspace "$WS" --details
check_output "explain: approval_webhook passes until approval.webhook is set" \
        'answers nothing \(IGNORE\): no URL; set approval.webhook' "$STK" explain --profile agent --workspace "$WS" --details

# --- the user layer chooses: approval.exec -------------------------------------------------
# The approver runs with an environment of its own: its verdict is a file.
echo allow > "$T_TMP/a/verdict"
cat > "$T_TMP/a/approver" <<EOF
#!/bin/sh
cat > "$T_TMP/a/question"
echo x >> "$T_TMP/a/count"
echo '{"verdict":"'"\$(cat "$T_TMP/a/verdict")"'","reason":"the test approver"}'
EOF
chmod 755 "$T_TMP/a/approver"
# The snippet of stockade.yaml(5), APPROVALS, as written there.
cat > "$UL/agent.yaml" <<EOF
stockade: 1
settings:
  approval: { exec: $T_TMP/a/approver }
EOF
human --no-tty
expect "user layer approval.exec, no terminal: the program answers, the command runs" 0 ran
check_output "the program got the question: the command's argv" '"argv": *\[ *"sh", *"-c", *"eval \\"touch marker\\""' \
        cat "$T_TMP/a/question"
check_output "explain shows approval.exec and where it came from" "approval_exec +$T_TMP/a/approver +$UL/agent.yaml:3" \
        "$STK" explain --profile agent --workspace "$WS"
human --answer n
expect "approval.exec comes before the terminal: it answers, nobody is asked" 0 ran
check_status "... no question on the terminal" 1 grep -q 'y = yes once' "$T_TMP/tty"
echo deny > "$T_TMP/a/verdict"
human --no-tty
expect "approval.exec denies: denied" $STK_EXIT_DENIED "did not run"
echo allow > "$T_TMP/a/verdict"

# --- the user layer chooses: approval.webhook ------------------------------------------------
WH="$STK_BUILD/t/helpers/http-helper"
if [ -x "$WH" ]; then
        mkdir -p "$T_TMP/wh"
        "$WH" "$T_TMP/wh" allow > /dev/null 2>&1 &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        t_wait_for -s "$T_TMP/wh/port"
        cat > "$UL/agent.yaml" <<EOF
stockade: 1
settings:
  approval: { webhook: "http://127.0.0.1:$(cat "$T_TMP/wh/port")/ask" }
EOF
        human --no-tty
        expect "user layer approval.webhook, no terminal: the endpoint answers, the command runs" 0 ran
        check_output "the endpoint got the question" 'eval \\"touch marker\\"' cat "$T_TMP/wh/req-1"
else
        skip "user layer approval.webhook" "no $WH"
fi

# --- approval.tty: off ---------------------------------------------------------------------------
printf 'stockade: 1\nsettings:\n  approval: { tty: off }\n' > "$UL/agent.yaml"
human --answer y
expect "approval.tty off: a terminal, yet nobody is asked: denied" $STK_EXIT_DENIED "did not run"
check_status "... no question on the terminal" 1 grep -q 'y = yes once' "$T_TMP/tty"
rm -f "$UL/agent.yaml"

# --- who may not choose ---------------------------------------------------------------------------
printf 'stockade: 1\nsettings:\n  approval: { exec: %s }\n' "$T_TMP/a/approver" > "$WS/.stockade.yaml"
check_status "a project file that sets approval.exec: policy error (241)" $STK_EXIT_POLICY \
        sh -c "cd '$WS' && '$STK' run --profile agent -- true"
check_output "... naming the key and why" '"approval.exec" in the project layer.*must not pick who approves' \
        sh -c "cd '$WS' && '$STK' run --profile agent -- true"
rm -f "$WS/.stockade.yaml"
printf 'stockade: 1\nsettings:\n  approval: { exec: %s }\nstack: []\n' "$T_TMP/a/approver" > "$T_TMP/nostack.yaml"
check_output "approval.exec with no approval_exec line to use it: policy error naming it" \
        'approval.exec is set, but no approval_exec line in the stack' \
        "$STK" run --policy "$T_TMP/nostack.yaml" --workspace "$WS" -- true
check_status "... exit 241" $STK_EXIT_POLICY "$STK" run --policy "$T_TMP/nostack.yaml" --workspace "$WS" -- true

# --- approval.ask_limit: a run that keeps asking -----------------------------------------------------
F="$STK_BUILD/t/helpers/fetch-helper"
if [ -x "$F" ] && [ -e "$STK_BUILD/modules/net_proxy.so" ]; then
        F=$(t_helper fetch-helper)
        # limit N: five unlisted names, each an egress question the approver denies
        limit_run() {
                rm -f "$T_TMP/a/count"
                { printf 'stockade: 1\nsettings:\n  approval: { exec: %s%s }\n' "$T_TMP/a/approver" "$1"; } > "$UL/proxy.yaml"
                echo deny > "$T_TMP/a/verdict"
                (cd "$WS" && "$STK" run --profile proxy -- sh -c \
                        'for h in a1 a2 a3 a4 a5; do "$0" "http://$h.test/"; done; true' "$F") > "$T_TMP/limit.out" 2>&1
                asked=$(wc -l < "$T_TMP/a/count" 2>/dev/null || echo 0)
        }
        limit_run ""
        if grep -q 'status=403' "$T_TMP/limit.out"; then
                check_status "5 questions, the approver denies: it is asked 3 times (the default limit), not 5 ($asked)" 0 test "$asked" = 3
                check_output "... the rest denied without asking, naming approval.ask_limit" \
                        '3 questions of this run were denied or went unanswered: the rest are denied without asking \(approval.ask_limit: 3\)' \
                        cat "$T_TMP/limit.out"
                check_status "... every fetch refused (5 x 403)" 0 test "$(grep -c 'status=403' "$T_TMP/limit.out")" = 5
                limit_run ", ask_limit: 1"
                check_status "approval.ask_limit: 1 in the user layer: asked once ($asked)" 0 test "$asked" = 1
                limit_run ", ask_limit: 50"
                check_status "approval.ask_limit: 50 (the shipped profile grants approval): all 5 asked ($asked)" 0 test "$asked" = 5
        else
                skip "approval.ask_limit" "the proxy profile cannot run here: $(tail -c 200 "$T_TMP/limit.out" | tr '\n' ' ')"
        fi
        rm -f "$UL/proxy.yaml"
else
        skip "approval.ask_limit" "no fetch-helper or net_proxy"
fi
