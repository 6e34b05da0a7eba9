# git worktree add
NEEDS="git"
DENIED="default:Read-only|\.git proxy:Read-only|\.git landlock:Read-only|Permission|\.git"
inside() {
git worktree add -q ../wt-$$ 2>&1 || git worktree add -q wt
}
