# find | xargs grep
NEEDS="find xargs grep"
inside() {
find . -name '*.txt' -not -path './.git/*' | xargs grep -l hello | grep -q file.txt
}
