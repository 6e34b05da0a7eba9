# git stash and pop
NEEDS="git"
DENIED="default:- proxy:- landlock:-"
inside() {
echo change >> file.txt
git stash && git stash pop && grep -q change file.txt
}
