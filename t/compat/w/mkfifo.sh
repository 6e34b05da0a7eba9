# a named pipe at the workspace top: a writer and a reader meet
NEEDS="mkfifo timeout"
inside() {
mkfifo p && (timeout 20 sh -c 'echo via-fifo > p' &) && x=$(timeout 20 cat p) && test "$x" = via-fifo
}
