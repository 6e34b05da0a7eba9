# npm install of a local package tarball
NEEDS="npm node"
inside() {
npm init -y >/dev/null && npm install --no-audit --no-fund --offline "$F"/cxpkg-1.0.0.tgz >/dev/null &&
node -e 'console.log(require("cxpkg")())' | grep -q 'cxpkg ok'
}
