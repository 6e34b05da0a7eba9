# diff -u and patch
NEEDS="diff patch"
inside() {
cp notes.txt b.txt && echo l3 >> b.txt && diff -u notes.txt b.txt > p.diff; patch -s notes.txt p.diff && grep -q l3 notes.txt
}
