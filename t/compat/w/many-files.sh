# 1000 files in a subdirectory, then removed
inside() {
mkdir many && i=0; while [ $i -lt 1000 ]; do echo x > many/f$i; i=$((i + 1)); done; test "$(ls many | wc -l)" = 1000 && rm -r many
}
