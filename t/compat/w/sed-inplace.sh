# sed -i (a temporary file beside the target, then rename)
NEEDS="sed"
inside() {
sed -i 's/line1/LINE1/' notes.txt && grep -q LINE1 notes.txt
}
