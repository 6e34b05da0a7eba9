# ~/.ssh stays hidden (the policy's intent)
SANDBOXED="credentials hidden"
setup() {
mkdir -p "$HOME/.ssh" && echo KEY > "$HOME/.ssh/id_rsa"
}
inside() {
cat "$HOME/.ssh/id_rsa"
}
verify() {
[ "$RC" != 0 ] && ! grep -q KEY "$OUT"
}
