# cp -a of a tree (modes, times, ACL xattr)
inside() {
mkdir -p src/sub && echo x > src/sub/f && chmod 640 src/sub/f && cp -a src dst && test "$(stat -c %a dst/sub/f)" = 640
}
