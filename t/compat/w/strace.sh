# strace of a child (ptrace refused by intent: kernel surface)
NEEDS="strace"
DENIED="default:ptrace|not.permitted workspace-write:ptrace|not.permitted landlock:ptrace|not.permitted proxy:ptrace|not.permitted"
inside() {
strace -f -o tr.txt true && grep -q execve tr.txt
}
