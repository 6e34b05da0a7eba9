# a loopback HTTP server (python http.server) and a client that honours the proxy variables
NEEDS="python3"
DENIED="landlock:network\.mode"
KNOWN="proxy: HTTP_PROXY sends 127.0.0.1 to net_proxy, which refuses it (NO_PROXY is emptied on purpose); NO_PROXY=127.0.0.1 in the command's environment is the way"
inside() {
python3 - <<'E'
import http.server, threading, urllib.request
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
body = urllib.request.urlopen("http://127.0.0.1:%d/file.txt" % srv.server_address[1], timeout=10).read()
assert body == b"hello\n", body
E
}
