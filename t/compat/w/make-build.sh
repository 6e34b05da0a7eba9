# make with dependencies and a rebuild
NEEDS="make"
inside() {
printf 'all: out.txt\nout.txt: in.txt\n\tcp in.txt out.txt\n' > Makefile
echo v1 > in.txt && make -s && sleep 1 && echo v2 > in.txt && make -s && grep -q v2 out.txt
}
