# npx of a package's bin installed in the workspace
NEEDS="npm npx node"
inside() {
npm init -y >/dev/null && npm install --no-audit --no-fund --offline "$F"/cxpkg-1.0.0.tgz >/dev/null && npx --no-install cxbin | grep -q 'cxbin ok'
}
