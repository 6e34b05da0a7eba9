#!/bin/sh
# The built programs and modules are hardened (issue 17): read from the ELF
# files themselves, not from the make file, so a packager's flags that drop
# a protection are caught too.
#   PIE             program type DYN with DF_1_PIE
#   full RELRO      a GNU_RELRO segment and BIND_NOW
#   no exec stack   GNU_STACK without E
#   stack protector imports __stack_chk_fail
#   FORTIFY         imports checked variants (__memcpy_chk, __snprintf_chk ...)
#   compile flags   every compilation unit's DW_AT_producer (the options GCC
#                   records) has -fstack-protector-strong,
#                   -fstack-clash-protection and -fcf-protection where the
#                   compiler accepts them.  The linked program carries no
#                   IBT/SHSTK note here: Debian 12's crt1.o has none, and
#                   the linker keeps the note only when every input has it.
# The checker is first shown to fail on a program built without them.
. "$(dirname "$0")/../lib.sh"

command -v readelf > /dev/null 2>&1 || { skip "hardening" "no readelf (binutils)"; exit 0; }
[ "$(uname -s)" = Linux ] || { skip "hardening" "ELF checks: Linux only"; exit 0; }
if readelf --dyn-syms -W "$STK" 2>/dev/null | grep -q __asan_init; then
        skip "hardening" "a SANITIZE=1 build: ASan replaces FORTIFY and the stack checks, nothing to check"
        exit 0
fi
CC=${CC:-cc}
accepts() { "$CC" -Werror "$1" -c -x c -o /dev/null /dev/null > /dev/null 2>&1; }
FLAGS="-fstack-protector-strong"
for f in -fstack-clash-protection -fcf-protection; do accepts "$f" && FLAGS="$FLAGS $f"; done

# elf_problems FILE KIND (program or module): what is missing, one a line
elf_problems() {
        f=$1 kind=$2
        readelf -hW "$f" > "$T_TMP/h" 2>&1 && readelf -dW "$f" > "$T_TMP/d" 2>&1 &&
                readelf -lW "$f" > "$T_TMP/l" 2>&1 && readelf --dyn-syms -W "$f" > "$T_TMP/s" 2>&1 ||
                { echo "not an ELF file readelf reads"; return; }
        if [ "$kind" = program ]; then
                grep -q 'Type:.*DYN' "$T_TMP/h" && grep -q 'FLAGS_1.*PIE' "$T_TMP/d" || echo "not PIE"
        fi
        grep -q GNU_RELRO "$T_TMP/l" || echo "no RELRO segment"
        grep -qE 'BIND_NOW|FLAGS_1.*NOW' "$T_TMP/d" || echo "not BIND_NOW (partial RELRO)"
        grep GNU_STACK "$T_TMP/l" | grep -q 'RWE' && echo "executable stack"
        grep -q '__stack_chk_fail' "$T_TMP/s" || echo "no stack protector (__stack_chk_fail)"
        grep -v __stack_chk_fail "$T_TMP/s" | grep -q '__[a-z_]*_chk' || echo "no _FORTIFY_SOURCE (__*_chk)"
        readelf --debug-dump=info "$f" 2> /dev/null | sed -n 's/.*DW_AT_producer.*: //p' | sort -u > "$T_TMP/p"
        if [ -s "$T_TMP/p" ]; then
                for flag in $FLAGS; do
                        grep -v -e "$flag" "$T_TMP/p" | grep -q . && echo "compiled without $flag"
                done
        else
                echo "no debug information to read the compile flags from (build with -g)"
        fi
        return 0
}

# check_elf FILE KIND
check_elf() {
        p=$(elf_problems "$1" "$2" | sort -u | tr '\n' ';')
        if [ -z "$p" ]; then ok "hardened: ${1#$STK_BUILD/}"; else not_ok "hardened: ${1#$STK_BUILD/}" "$p"; fi
}

# --- the checker catches a soft program -----------------------------------------
printf '#include <stdio.h>\n#include <string.h>\nint main(int c, char **v) { char b[64]; strcpy(b, v[0]); printf("%%s %%d\\n", b, c); return 0; }\n' \
        > "$T_TMP/soft.c"
if "$CC" -g -O2 -fno-stack-protector -U_FORTIFY_SOURCE -no-pie -fno-pie -Wl,-z,norelro -Wl,-z,lazy \
        -o "$T_TMP/soft" "$T_TMP/soft.c" 2> "$T_TMP/cc.err"; then
        elf_problems "$T_TMP/soft" program > "$T_TMP/soft.out"
        for want in "not PIE" "no RELRO" "BIND_NOW" "stack protector" "_FORTIFY_SOURCE" "without -fstack-protector-strong"; do
                if grep -q -- "$want" "$T_TMP/soft.out"; then ok "the checker reports \"$want\" on an unhardened program"
                else not_ok "the checker reports \"$want\" on an unhardened program" "$(tr '\n' ';' < "$T_TMP/soft.out")"; fi
        done
else
        not_ok "an unhardened program for the checker builds" "$(tail -c 300 "$T_TMP/cc.err")"
fi

# --- what the build made ------------------------------------------------------
for f in "$STK" "$STK_BUILD/inst/stockade" "$STK_BUILD"/inst/tools/* "$STK_BUILD"/t/escape/escape-fixture \
         "$STK_BUILD"/t/escape/probes/*; do
        [ -f "$f" ] && check_elf "$f" program
done
for f in "$STK_BUILD"/modules/*.so; do
        [ -f "$f" ] && check_elf "$f" module
done
[ -f "$STK_BUILD/inst/stockade" ] || not_ok "the installed binary was built" "no $STK_BUILD/inst/stockade"
