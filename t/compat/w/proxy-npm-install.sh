# npm install from a local registry through the proxy
NEEDS="npm"
ONLY="proxy"
inside() {
npm init -y >/dev/null && npm install --no-audit --no-fund --registry "http://origin.test:$CX_PORT/" cxpkg >/dev/null && test -f node_modules/cxpkg/index.js
}
