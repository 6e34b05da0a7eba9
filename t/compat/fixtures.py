"""Fixtures of the compatibility suite, made outside the sandbox.

  fixtures.py wheel DIR   a pure-Python wheel (cxwheel) and a PEP 503 simple
                          index for it under DIR/simple/
  fixtures.py serve DIR   an origin on 127.0.0.1 (its port on stdout)
                          serving DIR, plus an npm registry document for
                          the cxpkg tarball at /cxpkg
"""
import base64, hashlib, http.server, json, os, socketserver, sys, zipfile

NAME, VERSION = "cxwheel", "1.0"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel(out):
    info = f"{NAME}-{VERSION}.dist-info"
    files = {
        f"{NAME}/__init__.py": b"def hello():\n    return 'cxwheel ok'\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: compat\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    whl = f"{NAME}-{VERSION}-py3-none-any.whl"
    os.makedirs(os.path.join(out, "simple", NAME), exist_ok=True)
    with zipfile.ZipFile(os.path.join(out, whl), "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    with open(os.path.join(out, "simple", NAME, "index.html"), "w") as f:
        f.write(f'<html><body><a href="../../{whl}">{whl}</a></body></html>\n')
    with open(os.path.join(out, "simple", "index.html"), "w") as f:
        f.write(f'<html><body><a href="{NAME}/">{NAME}</a></body></html>\n')
    print(whl)


def serve(root):
    tgz = os.path.join(root, "cxpkg-1.0.0.tgz")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=root, **k)

        def log_message(self, fmt, *args):
            sys.stderr.write("%s\n" % (fmt % args))

        def do_GET(self):
            if self.path.rstrip("/") == "/cxpkg" and os.path.exists(tgz):
                data = open(tgz, "rb").read()
                host = self.headers.get("Host", "origin.test")
                doc = {"name": "cxpkg", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {
                    "name": "cxpkg", "version": "1.0.0", "bin": {"cxbin": "bin/cxbin.js"},
                    "dist": {"tarball": f"http://{host}/cxpkg-1.0.0.tgz",
                             "shasum": hashlib.sha1(data).hexdigest(),
                             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}}}}
                body = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    srv = Server(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    {"wheel": wheel, "serve": serve}[sys.argv[1]](sys.argv[2])
