# git branch and switch
NEEDS="git"
DENIED="default:Read-only|\.git proxy:Read-only|\.git landlock:Read-only|Permission|\.git"
inside() {
git branch feature && git switch -q feature
}
verify() {
[ "$RC" = 0 ] && git rev-parse --verify -q feature >/dev/null
}
