# ps and its own processes
NEEDS="ps"
inside() {
ps -e -o pid=,comm= > ps.txt
}
verify() {
[ "$RC" = 0 ] && grep -q ps ps.txt
}
