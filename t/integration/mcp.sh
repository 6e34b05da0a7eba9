#!/bin/sh
# Issue 16, part 2: `stockade mcp` driven by a scripted MCP client over
# pipes (t/integration/mcp/client.py): the lifecycle, run_command, the
# permission verdict, malformed JSON-RPC, a client that goes away, roots.
. "$(dirname "$0")/../lib.sh"
linux_only
command -v python3 >/dev/null || { skip "mcp" "no python3"; exit 0; }
t_make_home
t_make_workspace
export HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg"
python3 "$(dirname "$0")/mcp/client.py" "$STK" "$T_WS" "300.$$"
# The JSON-RPC parser's fuzz harness over its committed corpus (make fuzz
# FUZZ_TARGETS=jsonrpc runs it under libFuzzer).
corpus="$(dirname "$0")/../fuzz/corpus/jsonrpc"
check_output "the fuzz harness's properties hold on the corpus" "^[1-9][0-9]* inputs replayed" \
        "$STK_BUILD/t/helpers/jsonrpc-replay" "$corpus"/*
