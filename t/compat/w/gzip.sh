# gzip and gunzip in place
NEEDS="gzip"
inside() {
seq 1000 > g.txt && gzip g.txt && gunzip g.txt.gz && test "$(wc -l < g.txt)" = 1000
}
