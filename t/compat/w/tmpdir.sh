# mktemp in $TMPDIR
inside() {
d=$(mktemp -d) && echo x > "$d/f" && test -f "$d/f"
}
