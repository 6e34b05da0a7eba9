# a file written to /tmp/NAME directly
KNOWN='landlock: /tmp is the host'"'"'s; $TMPDIR is the private one (fs_guard says so once)'
inside() {
echo t > /tmp/compat-direct && grep -q t /tmp/compat-direct
}
