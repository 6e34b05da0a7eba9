# git diff of a change
NEEDS="git"
inside() {
echo change >> file.txt
git diff | grep -q '^+change'
}
