# python3 -m venv and pip install --no-index of a local wheel
NEEDS="python3"
inside() {
python3 -m venv venv && venv/bin/pip install -q --no-index "$F"/cxwheel-1.0-py3-none-any.whl &&
venv/bin/python -c 'import cxwheel; assert cxwheel.hello() == "cxwheel ok"'
}
