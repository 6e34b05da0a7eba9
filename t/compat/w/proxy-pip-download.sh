# pip download from a local simple index through the proxy
NEEDS="python3"
ONLY="proxy"
inside() {
python3 -m pip download -q --no-deps -d dl --trusted-host origin.test --index-url "http://origin.test:$CX_PORT/simple/" cxwheel && ls dl | grep -q cxwheel
}
