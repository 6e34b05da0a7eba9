#!/usr/bin/env python3
# A scripted MCP client (issue 16, part 2): speaks JSON-RPC 2.0 to
# `stockade mcp` over pipes, as Claude Code 2.1 does (protocol 2025-11-25,
# a _meta object on tools/call), and prints "ok - ..." / "not ok - ..."
# lines for t/lib.sh's counting.  Usage: client.py STOCKADE WORKSPACE MARK
import json, os, select, signal, subprocess, sys, time

STK, WS, MARK = sys.argv[1], sys.argv[2], sys.argv[3]
NAME = "mcp"

def report(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + NAME + ": " + what + ("" if cond else " (" + str(detail)[:300] + ")"))
    sys.stdout.flush()

class Server:
    def __init__(self, *args, cwd=WS):
        self.p = subprocess.Popen([STK, "mcp"] + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd)
        self.next = 100
    def raw(self, b):
        self.p.stdin.write(b); self.p.stdin.flush()
    def send(self, o):
        self.raw((json.dumps(o) + "\n").encode())
    def recv(self, wait=120):
        r, _, _ = select.select([self.p.stdout], [], [], wait)
        if not r:
            return None
        line = self.p.stdout.readline()
        return json.loads(line) if line else None
    def call(self, method, params=None, meta=False):
        self.next += 1
        m = {"jsonrpc": "2.0", "id": self.next, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return self.recv()
    def init(self, version="2025-11-25", caps=None):
        r = self.call("initialize", {"protocolVersion": version, "capabilities": caps or {},
                                     "clientInfo": {"name": "t-client", "version": "1.0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r
    def run(self, meta=True, **arguments):
        params = {"name": "run_command", "arguments": arguments}
        if meta:
            params["_meta"] = {"progressToken": "t-1", "claudecode/toolUseId": "toolu_01"}
        return self.call("tools/call", params)
    def close(self):
        self.p.stdin.close()
        try:
            return self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill(); return None

def sc(r):
    return (r or {}).get("result", {}).get("structuredContent", {})

def err(r):
    return (r or {}).get("error", {})

def sleeper_alive():
    return subprocess.run(["pgrep", "-f", "^sleep " + MARK + "$"], stdout=subprocess.DEVNULL).returncode == 0

# --- the lifecycle ----------------------------------------------------------
s = Server("--workspace", WS)
r = s.init()
report(r and r.get("result", {}).get("protocolVersion") == "2025-11-25", "initialize: 2025-11-25 is answered with itself", r)
report("tools" in r.get("result", {}).get("capabilities", {}), "initialize: the tools capability", r)
report(r.get("result", {}).get("serverInfo", {}).get("name") == "stockade", "initialize: serverInfo", r)
r = s.call("ping")
report(r == {"jsonrpc": "2.0", "id": s.next, "result": {}}, "ping answers an empty result", r)
r = s.call("tools/list")
tools = r.get("result", {}).get("tools", [])
report(len(tools) == 1 and tools[0]["name"] == "run_command" and tools[0]["inputSchema"]["type"] == "object",
       "tools/list offers run_command with an input schema", r)

# --- tools/call ---------------------------------------------------------------
r = s.run(command="echo hi; echo oops >&2; exit 3")
report(sc(r).get("exit_status") == 3 and sc(r).get("stdout") == "hi\n" and sc(r).get("stderr") == "oops\n",
       "tools/call: a command's status, stdout and stderr apart", r)
report(r["result"]["content"][0]["type"] == "text" and r["result"]["isError"] is False,
       "tools/call: a text block too, isError false for an exit status", r)
r = s.run(argv=["sh", "-c", "echo made > from-mcp.txt"])
report(sc(r).get("exit_status") == 0 and open(os.path.join(WS, "from-mcp.txt")).read() == "made\n",
       "tools/call: argv; a write in the workspace lands on the host", r)
r = s.run(command="touch /etc/stockade-mcp-test")
report(sc(r).get("exit_status") != 0 and "Read-only" in sc(r).get("stderr", ""), "tools/call: /etc is read-only", r)
r = s.run(argv=["cat"], stdin="piped in\n")
report(sc(r).get("stdout") == "piped in\n", "tools/call: stdin reaches the command", r)
r = s.run(command="cat")
report(sc(r).get("exit_status") == 0 and sc(r).get("stdout") == "", "tools/call: no stdin is an empty one", r)
os.makedirs(os.path.join(WS, "sub"), exist_ok=True)
r = s.run(command="pwd", cwd="sub")
report(sc(r).get("stdout") == os.path.realpath(os.path.join(WS, "sub")) + "\n", "tools/call: cwd inside the workspace", r)
r = s.run(command="pwd", cwd="/etc")
report(err(r).get("code") == -32602 and "outside the workspace" in err(r).get("message", ""),
       "tools/call: cwd outside the workspace is invalid params", r)
r = s.run(command="head -c 400000 /dev/zero | tr '\\0' x")
report(sc(r).get("stdout_truncated") is True and len(sc(r).get("stdout", "")) == 256 * 1024,
       "tools/call: stdout is bounded, with a truncation flag", {k: v for k, v in sc(r).items() if k != "stdout"})
r = s.run(command="printf 'a\\377b'")
report(sc(r).get("stdout") == "a\ufffdb", "tools/call: output that is not UTF-8 stays valid JSON", r)
r = s.run(command="sleep 30", timeout=1)
report(sc(r).get("timed_out") is True and r["result"]["isError"] is True, "tools/call: the timeout ends the command", r)
r = s.run(command="kill -9 $$")
report(sc(r).get("signal") == 9, "tools/call: a signal is reported", r)
r = s.call("tools/call", {"name": "rm_rf", "arguments": {}})
report(err(r).get("code") == -32602 and "unknown tool" in err(r).get("message", ""), "tools/call: an unknown tool", r)
r = s.run(command="true", argv=["true"])
report(err(r).get("code") == -32602, "tools/call: command and argv together are refused", r)
r = s.run(command="true", env={"A": "1"})
report(err(r).get("code") == -32602, "tools/call: an argument the tool does not take is refused", r)
r = s.run(command="true", timeout=0)
report(err(r).get("code") == -32602, "tools/call: a zero timeout is refused", r)
r = s.call("resources/list")
report(err(r).get("code") == -32601, "an unknown method: -32601", r)

# --- malformed JSON-RPC: an error naming the bytes, and the server goes on --------------
def bad(line, code, needle, what):
    s.raw(line)
    r = s.recv(30)
    e = err(r)
    report(e.get("code") == code and needle in e.get("message", ""), what, r)

bad(b'{"jsonrpc":"2.0","id":7,"method":"ping"\n', -32700, "byte", "a cut JSON text: parse error with the byte offset")
bad(b'{"jsonrpc":"2.0","id":8,"method":"ping"} trailing\n', -32700, "trailing", "bytes after the value are named")
bad(b'{"jsonrpc":"2.0","id":9,"method":"p\xffng"}\n', -32700, "\\xff", "invalid UTF-8 is named by its byte")
bad(b'{"jsonrpc":"1.0","id":10,"method":"ping"}\n', -32600, "2.0", "jsonrpc 1.0: invalid request")
bad(b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n', -32600, "id", "a null id: invalid request")
bad(b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n', -32600, "id", "a fractional id: invalid request")
bad(b'[{"jsonrpc":"2.0","id":11,"method":"ping"}]\n', -32600, "batch", "a batch: invalid request")
bad(b'{"jsonrpc":"2.0","id":12,"method":"ping","params":"x"}\n', -32600, "params", "params a string: invalid request")
bad(b'{"jsonrpc":"2.0","id":13,"method":"ping","extra":1}\n', -32600, "extra", "an unknown member is named")
bad(b'{"jsonrpc":"2.0","id":14,"method":"ping",}\n', -32700, "byte", "a trailing comma (strict JSON)")
bad(b'{"jsonrpc":"2.0","id":15,"method":"ping"}' + b' ' * (1 << 20) + b'\n', -32600, "larger than",
    "an oversized message: an error, dropped to its newline")
r = s.call("ping")
report(r and r.get("result") == {}, "after all that the server still answers", r)
rc = s.close()
report(rc == 0, "end of stdin: a clean exit", rc)

# --- versions and order ---------------------------------------------------------------------
s = Server("--workspace", WS)
r = s.call("tools/list")
report(err(r).get("code") == -32600 and "before initialize" in err(r).get("message", ""), "tools/list before initialize", r)
r = s.init(version="2025-06-18")
report(r["result"]["protocolVersion"] == "2025-06-18", "an older revision we speak is answered with itself", r)
r = s.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
report(err(r).get("code") == -32600, "a second initialize is refused", r)
s.close()
s = Server("--workspace", WS)
r = s.init(version="2099-01-01")
report(r["result"]["protocolVersion"] == "2025-11-25", "an unknown revision is answered with our latest", r)
s.close()

# --- roots: the workspace from the client ------------------------------------------------------
s = Server(cwd="/")
s.init(caps={"roots": {"listChanged": True}})
q = s.recv(30)
report(q and q.get("method") == "roots/list" and "id" in q, "no --workspace: the server asks the client's roots", q)
s.send({"jsonrpc": "2.0", "id": q["id"], "result": {"roots": [{"uri": "file://" + WS.replace(" ", "%20"), "name": "ws"}]}})
r = s.run(command="pwd")
report(sc(r).get("stdout") == os.path.realpath(WS) + "\n", "the first root is the workspace", r)
s.close()
s = Server(cwd="/")
s.init()
r = s.run(command="pwd")
report(err(r).get("code") == -32602 and "workspace" in err(r).get("message", ""),
       "no --workspace and no roots: every call is refused with the reason", r)
s.close()

# --- the permission phase ------------------------------------------------------------------------
s = Server("--workspace", WS, "--profile", "agent")
s.init()
r = s.run(command="git push --force origin main")
report(sc(r).get("verdict") == "deny" and sc(r).get("exit_status") == 240 and r["result"]["isError"] is True,
       "agent profile: a force push is refused with the verdict", r)
report("perm_rules" in sc(r).get("decided_by", ""), "... and the module that decided", r)
s.close()

# --- approval_mcp: an ASK goes to a client that declared elicitation ---------------------------
def asked_run(s, answer, **arguments):
    """tools/call; the elicitation/create it brings is answered with answer(request)."""
    s.next += 1
    cid = s.next
    s.send({"jsonrpc": "2.0", "id": cid, "method": "tools/call",
            "params": {"name": "run_command", "arguments": arguments}})
    asked = None
    while True:
        m = s.recv(60)
        if m is None or m.get("id") == cid and "method" not in m:
            return asked, m
        if m.get("method") == "elicitation/create":
            asked = m
            s.send(dict({"jsonrpc": "2.0", "id": m["id"]}, **answer(m)))

def approvals_store():
    path = os.path.join(os.environ["HOME"], ".local/state/stockade/approvals")
    return open(path).read() if os.path.exists(path) else ""

ASK_CMD = "git push origin main"  # agent.yaml: git push is an ask, a force push a deny
accept = lambda m: {"result": {"action": "accept", "content": {"approve": True}}}
s = Server("--workspace", WS, "--profile", "agent")
s.init(caps={"elicitation": {}})
asked, r = asked_run(s, accept, command=ASK_CMD + " 2>/dev/null; echo ran-after-yes")
p = (asked or {}).get("params", {})
report(asked is not None and "git push origin main" in p.get("message", "")
       and p.get("requestedSchema", {}).get("properties", {}).get("approve", {}).get("type") == "boolean",
       "approval_mcp: an ASK becomes elicitation/create with the command and a boolean schema", asked)
report("ran-after-yes" in sc(r).get("stdout", ""), "approval_mcp: accept with approve true runs the command", r)
asked, r = asked_run(s, lambda m: {"result": {"action": "decline"}}, command=ASK_CMD + "; echo ran-after-no")
report(asked and sc(r).get("verdict") == "deny" and sc(r).get("exit_status") == 240
       and "approval_mcp" in sc(r).get("decided_by", "") and "ran-after-no" not in json.dumps(r),
       "approval_mcp: decline is refused with the verdict and the decider in the tool result", r)
asked, r = asked_run(s, lambda m: {"result": {"action": "cancel"}}, command=ASK_CMD)
report(asked and sc(r).get("verdict") == "deny", "approval_mcp: cancel is a deny", r)
asked, r = asked_run(s, lambda m: {"result": {"action": "accept", "content": {"approve": False}}}, command=ASK_CMD)
report(asked and sc(r).get("verdict") == "deny", "approval_mcp: accept with approve false is a deny", r)
for bad_answer, what in (({"result": {"action": "accept"}}, "accept without content"),
                         ({"result": {"action": "accept", "content": {"approve": "yes"}}}, "approve not a boolean"),
                         ({"result": {"action": "sure"}}, "an unknown action"),
                         ({"error": {"code": -32601, "message": "no"}}, "a JSON-RPC error")):
    # a server each: a warm run stops asking after approval.ask_limit refusals
    s.close()
    s = Server("--workspace", WS, "--profile", "agent")
    s.init(caps={"elicitation": {}})
    asked, r = asked_run(s, lambda m, a=bad_answer: a, command=ASK_CMD)
    report(asked and sc(r).get("verdict") == "deny" and "approval_mcp" in sc(r).get("decided_by", ""),
           "approval_mcp: a malformed answer (%s) is a deny" % what, r)
asked, r = asked_run(s, lambda m: {"result": {"action": "always"}}, command=ASK_CMD)
report(approvals_store() == "", "approval_mcp: nothing is saved to the approvals store", approvals_store())
s.close()
err_text = s.p.stderr.read().decode(errors="replace")  # the last server: its answer was malformed
report("malformed answer to elicitation/create" in err_text, "approval_mcp: a malformed answer is logged", err_text[-600:])

# Without the capability, the question falls to the next approver: no tty here, so a deny.
s = Server("--workspace", WS, "--profile", "agent")
s.init()
asked, r = asked_run(s, accept, command=ASK_CMD + "; echo ran-unasked")
report(asked is None and sc(r).get("verdict") == "deny" and "approval_mcp" not in sc(r).get("decided_by", "")
       and "ran-unasked" not in json.dumps(r),
       "approval_mcp: a client without elicitation is not asked; the next approver (no tty) denies", r)
s.close()
# An older revision has no elicitation: the capability alone is not enough.
s = Server("--workspace", WS, "--profile", "agent")
s.init(version="2025-03-26", caps={"elicitation": {}})
asked, r = asked_run(s, accept, command=ASK_CMD)
report(asked is None and sc(r).get("verdict") == "deny", "approval_mcp: not asked under revision 2025-03-26", r)
s.close()
# approval.mcp: off (a system layer's way to forbid it; here the user layer, which may tighten).
xdg_dir = os.path.join(os.environ["XDG_CONFIG_HOME"], "stockade")
os.makedirs(xdg_dir, exist_ok=True)
with open(os.path.join(xdg_dir, "agent.yaml"), "w") as f:
    f.write("stockade: 1\nsettings: { approval: { mcp: off } }\n")
s = Server("--workspace", WS, "--profile", "agent")
s.init(caps={"elicitation": {}})
asked, r = asked_run(s, accept, command=ASK_CMD + "; echo ran-forbidden")
report(asked is None and sc(r).get("verdict") == "deny" and "ran-forbidden" not in json.dumps(r),
       "approval_mcp: under approval.mcp off the client is never asked", r)
s.close()
os.unlink(os.path.join(xdg_dir, "agent.yaml"))

# --- a client that goes away mid-call; a server killed mid-call ------------------------------------
for how in ("closes stdin", "is killed"):
    s = Server("--workspace", WS)
    s.init()
    s.send({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": "exec sleep " + MARK}}})
    for _ in range(100):
        if sleeper_alive():
            break
        time.sleep(0.1)
    report(sleeper_alive(), "the command of a call runs (%s)" % how)
    if how == "closes stdin":
        rc = s.close()
        report(rc == 0, "a client that disappears mid-call: the server exits cleanly", rc)
    else:
        s.p.kill(); s.p.wait()
    for _ in range(100):
        if not sleeper_alive():
            break
        time.sleep(0.1)
    report(not sleeper_alive(), "no command outlives the server (the client %s)" % how)

# --- cancellation ------------------------------------------------------------------------------------
s = Server("--workspace", WS)
s.init()
s.send({"jsonrpc": "2.0", "id": 60, "method": "tools/call",
        "params": {"name": "run_command", "arguments": {"command": "exec sleep " + MARK}}})
for _ in range(100):
    if sleeper_alive():
        break
    time.sleep(0.1)
s.send({"jsonrpc": "2.0", "id": 61, "method": "ping"})
r = s.recv(30)
report(r and r.get("id") == 61, "a ping is answered while a command runs", r)
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 60, "reason": "user"}})
for _ in range(100):
    if not sleeper_alive():
        break
    time.sleep(0.1)
report(not sleeper_alive(), "notifications/cancelled ends the call's command")
r = s.call("ping")
report(r and r.get("id") == s.next, "the cancelled call gets no reply", r)
s.close()

# --- the warm session: what a command could change is looked at again ---------------------
xdg = os.path.join(os.environ["XDG_CONFIG_HOME"], "stockade")
extra = os.path.join(os.path.dirname(WS), "extra-writable")
os.makedirs(xdg, exist_ok=True)
os.makedirs(extra, exist_ok=True)
s = Server("--workspace", WS)
s.init()
r = s.run(command="echo x > %s/one" % extra)
report(sc(r).get("exit_status") != 0, "warm: a directory outside the workspace is read-only", r)
user = os.path.join(xdg, "default.yaml")
with open(user, "w") as f:
    f.write("stockade: 1\nsettings:\n  write: [\"%s\"]\n" % extra)
r = s.run(command="echo x > %s/two" % extra)
report(sc(r).get("exit_status") == 0 and os.path.exists(os.path.join(extra, "two")),
       "warm: a new user-layer file is read before the next command", r)
# The same size and mtime, other bytes: only ctime tells.
v1 = 'stockade: 1\nsettings: { write: ["%s"] }\n' % extra
v2 = 'stockade: 1\nsettings: {' + ' ' * (len(v1) - len('stockade: 1\nsettings: {}\n')) + '}\n'
with open(user, "w") as f:
    f.write(v1)
r = s.run(command="echo x > %s/three" % extra)
st = os.stat(user)
with open(user, "r+") as f:
    f.write(v2)
os.utime(user, ns=(st.st_atime_ns, st.st_mtime_ns))
st2 = os.stat(user)
r = s.run(command="echo x > %s/four" % extra)
report(st.st_size == st2.st_size and st.st_mtime_ns == st2.st_mtime_ns and sc(r).get("exit_status") != 0
       and not os.path.exists(os.path.join(extra, "four")),
       "warm: a rewrite that keeps size and mtime is seen (ctime)", r)
with open(user, "w") as f:
    f.write("stockade: 1\nsettings: [\n")
r = s.run(command="true")
report(sc(r).get("exit_status") == 241 and r["result"]["isError"] is True, "warm: a broken user layer stops the next call (241)", r)
os.unlink(user)
r = s.run(command="git init -q nested && mkdir -p nested/.git/hooks && echo ok")
report(sc(r).get("exit_status") == 0, "warm: a command makes a nested repository", r)
r = s.run(command="echo '#!/bin/sh' > nested/.git/hooks/pre-commit")
report(sc(r).get("exit_status") != 0 and not os.path.exists(os.path.join(WS, "nested/.git/hooks/pre-commit")),
       "warm: the next command finds it protected (the protected paths are re-scanned)", r)
s.close()
