# sort with temporary files (a small buffer, in TMPDIR)
NEEDS="sort seq"
inside() {
seq 200000 | sort -R > r.txt && sort -n -S 64K r.txt > s.txt && test "$(tail -n1 s.txt)" = 200000
}
