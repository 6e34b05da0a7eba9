# git log
NEEDS="git"
inside() {
git log --oneline | grep -q init
}
