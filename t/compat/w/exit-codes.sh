# the command's exit status comes back
inside() {
sh -c 'exit 37'
}
verify() {
[ "$RC" = 37 ]
}
