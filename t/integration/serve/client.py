#!/usr/bin/env python3
# A client of `stockade serve` (stockade-serve(1)): one JSON line and the
# three stdio fds as SCM_RIGHTS, one JSON line back.  As a program:
#   client.py SOCKET [--cwd DIR] -- CMD ARG...   (exits with the command's status)
import json, os, socket, sys

def request(path, argv, cwd=None, fds=(0, 1, 2), raw=None, env=None):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    msg = {"argv": argv, "cwd": cwd or os.getcwd()}
    if env is not None:
        msg["env"] = env
    data = raw if raw is not None else (json.dumps(msg) + "\n").encode()
    if fds:
        socket.send_fds(s, [data], list(fds))
    else:
        s.sendall(data)
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    s.close()
    return json.loads(buf) if buf else None

if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0)
    cwd = None
    if args[0] == "--cwd":
        cwd = args[1]; args = args[2:]
    assert args.pop(0) == "--"
    r = request(path, args, cwd)
    sys.exit(r["exit_status"] if r else 255)
