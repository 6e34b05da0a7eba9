# a loopback TCP server and client (a test server), plain sockets
NEEDS="python3"
DENIED="landlock:network\.mode"
inside() {
python3 - <<'E'
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
def serve():
    c, _ = s.accept(); c.sendall(b"pong"); c.close()
threading.Thread(target=serve, daemon=True).start()
c = socket.create_connection(s.getsockname(), timeout=10); assert c.recv(4) == b"pong"
E
}
