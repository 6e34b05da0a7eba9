# a named pipe in a workspace subdirectory
NEEDS="mkfifo timeout"
KNOWN="landlock: a FIFO in a directory made during the run cannot be opened for writing"
inside() {
mkdir -p sub && mkfifo sub/p && (timeout 20 sh -c 'echo via-fifo > sub/p' &) && x=$(timeout 20 cat sub/p) && test "$x" = via-fifo
}
