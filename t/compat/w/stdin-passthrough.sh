# stdin reaches the command
INPUT=input.txt
setup() {
seq 1000 > input.txt
}
inside() {
cat > got.txt
}
verify() {
[ "$RC" = 0 ] && cmp -s input.txt got.txt
}
