# 10 MiB to stdout
inside() {
head -c 10485760 /dev/zero
}
verify() {
[ "$RC" = 0 ] && test "$(wc -c < "$OUT")" = 10485760
}
