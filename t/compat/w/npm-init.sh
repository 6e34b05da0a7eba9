# npm init -y
NEEDS="npm"
inside() {
npm init -y >/dev/null && grep -q '"name"' package.json
}
