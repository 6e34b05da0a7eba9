# rg in the workspace
NEEDS="rg"
inside() {
rg -q hello file.txt
}
