# a program under a pty (script(1))
NEEDS="script"
inside() {
script -qec 'test -t 0 && test -t 1 && echo tty ok' /dev/null | grep -q 'tty ok'
}
