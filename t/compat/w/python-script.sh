# a python script writing a file
NEEDS="python3"
inside() {
python3 -c 'open("py.txt", "w").write("py ok")'
}
verify() {
[ "$RC" = 0 ] && grep -q "py ok" py.txt
}
