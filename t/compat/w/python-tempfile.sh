# tempfile and shutil in python
NEEDS="python3"
inside() {
python3 -c 'import tempfile, shutil, os
d = tempfile.mkdtemp(); open(os.path.join(d, "x"), "w").write("x"); shutil.copytree(d, "copied"); shutil.rmtree(d)' && test -f copied/x
}
