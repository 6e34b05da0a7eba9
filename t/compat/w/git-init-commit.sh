# git init and commit in a new directory of the workspace
NEEDS="git"
inside() {
mkdir proj && cd proj && git init -q && echo a > a && git add a && git commit -qm a && git log --oneline | grep -q a
}
