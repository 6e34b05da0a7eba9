# a named pipe in the workspace
NEEDS="mkfifo"
inside() {
mkfifo p && (echo via-fifo > p &) && read x < p && test "$x" = via-fifo
}
