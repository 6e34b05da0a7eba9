# git rebase of a topic branch
NEEDS="git"
DENIED="default:Read-only|\.git proxy:Read-only|\.git landlock:Read-only|Permission|\.git"
inside() {
git switch -qc topic && echo t > t.txt && git add t.txt && git commit -qm t &&
git switch -q - && echo m >> notes.txt && git commit -qam m && git switch -q topic && git rebase -q - && test -f t.txt
}
