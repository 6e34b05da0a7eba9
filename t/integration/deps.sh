#!/bin/sh
# Dependencies (issue 17): `make`, `make all` and `make install` never run
# a package manager; only `make deps` does, and `make demo` / `make check`
# through it unless DEPS=0; a missing build dependency names its package;
# CUnit and bwrap are not build dependencies.  The package managers here
# are fakes in front of PATH that record their arguments.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v make > /dev/null 2>&1 || { skip "deps" "no make"; exit 0; }
command -v pkg-config > /dev/null 2>&1 || { skip "deps" "no pkg-config"; exit 0; }

# The fakes are in a reachable directory: make deps runs as stkuser below.
t_reachable_dir
FAKE=$T_REACH/fake LOG=$T_TMP/pm.log
mkdir -p "$FAKE" "$T_TMP/nopc"
: > "$LOG"
for pm in apt-get dnf pacman apk dpkg-query sudo; do
        printf '#!/bin/sh\necho "%s $*" >> %s\n' "$pm" "$LOG" > "$FAKE/$pm"
        chmod 755 "$FAKE/$pm"
done
# DEPS too: `make check` runs the tests with DEPS=0 in the environment.
submake() {
        (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES DEPS
         PATH="$FAKE:$PATH" make -C "$top" "$@")
}
# Every pkg-config module of this machine but one (or none: "").
pc_without() {
        d=$T_TMP/pc-$1; mkdir -p "$d"
        for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
                for f in "$dir"/*.pc; do [ -e "$f" ] && [ "${f##*/}" != "$1.pc" ] && ln -sf "$f" "$d/"; done
        done
        echo "$d"
}

# --- the build never installs --------------------------------------------------
submake -n all install B="$T_TMP/b1" DESTDIR="$T_TMP/dest" > "$T_TMP/n.out" 2>&1; st=$?
if [ "$st" = 0 ] && [ ! -s "$LOG" ] && ! grep -q 'deps.sh install' "$T_TMP/n.out"; then
        ok "make all install (a fresh build dir) runs no package manager"
else
        not_ok "make all install (a fresh build dir) runs no package manager" "status $st, ran: $(cat "$LOG")"
fi
if grep -q -- '-lcunit' "$T_TMP/n.out"; then not_ok "the binary and modules do not link CUnit" "-lcunit in make all"
else ok "the binary and modules do not link CUnit"; fi
check_output "the build checks no bwrap and no CUnit" '^PKG_LIBS' \
        env PATH="$FAKE:$PATH" PKG_CONFIG_LIBDIR="$(pc_without cunit)" PKG_CONFIG_PATH= sh "$top/mk/deps.sh" build

# --- a missing build dependency names its package ---------------------------------
PKG_CONFIG_LIBDIR=$(pc_without yaml-0.1) PKG_CONFIG_PATH= submake all B="$T_TMP/b2" > "$T_TMP/miss.out" 2>&1; st=$?
if [ "$st" != 0 ] && grep -q 'missing build dependencies: yaml-0.1' "$T_TMP/miss.out" &&
   grep -q 'apt-get install -y --no-install-recommends libyaml-dev' "$T_TMP/miss.out" && [ ! -s "$LOG" ]; then
        ok "no libyaml: make fails naming libyaml-dev, installs nothing"
else
        not_ok "no libyaml: make fails naming libyaml-dev, installs nothing" "status $st: $(tail -c 300 "$T_TMP/miss.out" | tr '\n' ' ') ran: $(cat "$LOG")"
fi
if [ -e "$T_TMP/b2/obj" ]; then not_ok "... before compiling anything" "$T_TMP/b2/obj exists"
else ok "... before compiling anything"; fi
# No package manager at all: the names for each.
mkdir -p "$T_TMP/bare"
for c in sh uname sed sort tr cat pkg-config id cc; do ln -sf "$(command -v $c)" "$T_TMP/bare/$c"; done
env PATH="$T_TMP/bare" PKG_CONFIG_LIBDIR="$(pc_without yaml-0.1)" PKG_CONFIG_PATH= \
        sh "$top/mk/deps.sh" build > "$T_TMP/bare.out" 2>&1
for want in 'apt: libyaml-dev' 'dnf: libyaml-devel' 'pacman: libyaml' 'apk: yaml-dev' 'brew: libyaml'; do
        check_output "no package manager: $want" "^  $want\$" cat "$T_TMP/bare.out"
done

# --- make deps ------------------------------------------------------------------------
: > "$LOG"
PKG_CONFIG_LIBDIR=$T_TMP/nopc PKG_CONFIG_PATH= submake deps > "$T_TMP/deps.out" 2>&1; st=$?
if [ "$(id -u)" = 0 ]; then
        if grep -q 'apt-get install -y --no-install-recommends .*libcunit1-dev.*libyaml-dev' "$LOG"; then
                ok "make deps as root runs apt-get install with the Debian names"
        else
                not_ok "make deps as root runs apt-get install with the Debian names" "ran: $(cat "$LOG")"
        fi
fi
if id stkuser > /dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        su stkuser -c "PATH='$FAKE:$PATH' PKG_CONFIG_LIBDIR='$T_TMP/nopc' PKG_CONFIG_PATH= sh '$top/mk/deps.sh' install" \
                > "$T_TMP/user.out" 2>&1; st=$?
        if [ "$st" != 0 ] && grep -q '^  apt-get install -y --no-install-recommends .*libyaml-dev' "$T_TMP/user.out"; then
                ok "make deps not as root prints the exact command and fails"
        else
                not_ok "make deps not as root prints the exact command and fails" "status $st: $(cat "$T_TMP/user.out")"
        fi
fi
check_output "make deps DEPS=0 skips" 'skipped \(DEPS=0\)' submake deps DEPS=0

# --- demo and check run it first, unless DEPS=0 ------------------------------------------
: > "$LOG"
PKG_CONFIG_LIBDIR=$T_TMP/nopc PKG_CONFIG_PATH= submake demo B="$T_TMP/b3" > "$T_TMP/demo.out" 2>&1
if grep -q 'apt-get install' "$LOG" || [ "$(id -u)" != 0 ]; then ok "make demo runs make deps first"
else not_ok "make demo runs make deps first" "ran: $(cat "$LOG"): $(tail -c 200 "$T_TMP/demo.out")"; fi
: > "$LOG"
PKG_CONFIG_LIBDIR=$T_TMP/nopc PKG_CONFIG_PATH= submake demo DEPS=0 B="$T_TMP/b4" > "$T_TMP/demo0.out" 2>&1
if [ ! -s "$LOG" ] && grep -q 'missing build dependencies' "$T_TMP/demo0.out"; then
        ok "make demo DEPS=0 installs nothing (and says what is missing)"
else
        not_ok "make demo DEPS=0 installs nothing" "ran: $(cat "$LOG"): $(tail -c 200 "$T_TMP/demo0.out")"
fi
