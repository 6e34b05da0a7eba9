# flock(1) and fcntl locks in the workspace
NEEDS="flock python3"
inside() {
flock lockfile -c 'echo locked > l.txt' && python3 -c 'import fcntl; f = open("l2", "w"); fcntl.lockf(f, fcntl.LOCK_EX); print("ok")' | grep -q ok
}
