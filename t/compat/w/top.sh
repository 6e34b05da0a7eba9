# top -bn1
NEEDS="top"
inside() {
top -bn1 | head -n 5 | grep -qi tasks
}
