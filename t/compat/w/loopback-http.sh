# a loopback HTTP server (python http.server) and a client that honours the proxy variables
NEEDS="python3"
DENIED="landlock:network\.mode"
inside() {
python3 - <<'E'
import http.server, threading, urllib.request
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
body = urllib.request.urlopen("http://127.0.0.1:%d/file.txt" % srv.server_address[1], timeout=10).read()
assert body == b"hello\n", body
E
}
