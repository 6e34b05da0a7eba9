# a unix socket bound at the workspace top
NEEDS="python3"
inside() {
python3 - <<'E'
import socket
s = socket.socket(socket.AF_UNIX); s.bind("top.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("top.sock")
E
}
