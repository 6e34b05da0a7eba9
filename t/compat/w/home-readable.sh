# dotfiles in HOME are readable (a tool's config)
setup() {
echo compat > "$HOME/.toolrc"
}
inside() {
grep -q compat "$HOME/.toolrc"
}
