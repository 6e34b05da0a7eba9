# git status in the workspace
NEEDS="git"
inside() {
echo change >> file.txt
git status --short | grep -q 'M file.txt'
}
