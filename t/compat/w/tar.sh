# tar create and extract, with modes
NEEDS="tar gzip"
inside() {
mkdir -p d/sub && echo x > d/sub/f && chmod 750 d/sub && tar czf d.tgz d && mkdir out && tar xzf d.tgz -C out && test "$(stat -c %a out/d/sub)" = 750
}
