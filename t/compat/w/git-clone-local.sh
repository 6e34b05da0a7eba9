# git clone of a local bare repository into the workspace
NEEDS="git"
inside() {
git clone -q "$F/bare.git" clone && test -f clone/one
}
verify() {
[ "$RC" = 0 ] && test -f clone/one
}
