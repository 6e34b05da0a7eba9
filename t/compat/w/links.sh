# symbolic and hard links in the workspace
inside() {
ln -s file.txt sym && ln file.txt hard && test "$(cat sym)" = hello && test "$(stat -c %h hard)" = 2
}
