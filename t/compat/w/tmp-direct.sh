# a file written to /tmp/NAME directly
inside() {
echo t > /tmp/compat-direct && grep -q t /tmp/compat-direct
}
