# cp -p of a file
inside() {
chmod 600 notes.txt && cp -p notes.txt n2 && test "$(stat -c %a n2)" = 600
}
