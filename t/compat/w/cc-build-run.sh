# cc builds and runs a program
NEEDS="cc"
inside() {
cat > hello.c <<'E'
#include <stdio.h>
int main(void) { puts("built ok"); return 0; }
E
cc -O2 -o hello hello.c && ./hello | grep -q 'built ok'
}
