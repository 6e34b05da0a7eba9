# pytest of a small test file
NEEDS="pytest"
inside() {
printf 'def test_x():\n    assert 1 + 1 == 2\n' > test_x.py && python3 -m pytest -q test_x.py
}
