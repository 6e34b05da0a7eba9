# git clone over http through the proxy
NEEDS="git"
ONLY="proxy"
inside() {
git clone -q "http://origin.test:$CX_PORT/bare.git" c && test -f c/one
}
