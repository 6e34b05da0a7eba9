# a named pipe in a workspace subdirectory
NEEDS="mkfifo timeout"
inside() {
mkdir -p sub && mkfifo sub/p && (timeout 20 sh -c 'echo via-fifo > sub/p' &) && x=$(timeout 20 cat sub/p) && test "$x" = via-fifo
}
