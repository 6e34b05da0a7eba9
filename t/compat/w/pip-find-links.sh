# pip install --no-index --find-links into a venv, with pip's cache
NEEDS="python3"
inside() {
python3 -m venv v2 && v2/bin/pip install -q --no-index --find-links "$F" cxwheel && v2/bin/python -c 'import cxwheel'
}
