# a unix socket server and client in a workspace subdirectory
NEEDS="python3"
inside() {
mkdir -p run && python3 - <<'E'
import socket, threading
s = socket.socket(socket.AF_UNIX); s.bind("run/s.sock"); s.listen(1)
def serve():
    c, _ = s.accept(); c.sendall(b"pong"); c.close()
threading.Thread(target=serve, daemon=True).start()
c = socket.socket(socket.AF_UNIX); c.connect("run/s.sock"); assert c.recv(4) == b"pong"
E
}
