# git commit -am (writes .git: refused under git: whole)
NEEDS="git"
DENIED="default:Read-only|\.git proxy:Read-only|\.git landlock:Read-only|Permission|\.git"
inside() {
echo change >> file.txt
git commit -qam change
}
verify() {
[ "$RC" = 0 ] && git log --oneline | grep -q change
}
