# a node script writing a file
NEEDS="node"
inside() {
node -e 'require("fs").writeFileSync("n.txt", "node ok")' && grep -q 'node ok' n.txt
}
