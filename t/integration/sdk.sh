#!/bin/sh
# The SDK as a third party meets it: `make install` into a prefix, a module
# built out of tree with nothing but the installed header and pkg-config
# (t/sdk/example_module.c, "deny_rm"), installed into the module directory
# pkg-config names, and loaded by the installed stockade from there; the
# same for examples/approval_example with its own Makefile.  Also the
# installed layout, with PREFIX and with DESTDIR.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

command -v cc >/dev/null 2>&1 || { skip "sdk" "no cc"; exit 0; }
command -v pkg-config >/dev/null 2>&1 || { skip "sdk" "no pkg-config"; exit 0; }
command -v make >/dev/null 2>&1 || { skip "sdk" "no make"; exit 0; }

# A make of its own, in a build dir of its own (B=): PREFIX is compiled into
# the binary, so the tree under test must not be reused.  Nothing of an
# outer `make check` (SANITIZE=1, -j, B) leaks in.
submake() {
        (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
         make -s -C "$top" -j"$(nproc 2>/dev/null || echo 2)" "$@")
}

P=$T_TMP/prefix
t_seed_build "$T_TMP/build"   # only the core is rebuilt: PREFIX is compiled in
if submake install PREFIX="$P" B="$T_TMP/build" > "$T_TMP/install.log" 2>&1; then
        ok "make install PREFIX=\$T_TMP/prefix B=\$T_TMP/build"
else
        not_ok "make install PREFIX=\$T_TMP/prefix" "$(tail -c 400 "$T_TMP/install.log" | tr '\n' ' ')"
        exit 0
fi
if [ -x "$T_TMP/build/inst/stockade" ] && [ -f "$T_TMP/build/stockade-module.pc" ]; then
        ok "B= on the command line is honoured"
else
        not_ok "B= on the command line is honoured" "no $T_TMP/build/inst/stockade"
fi

# Every module this build has (a portable build has fewer), with its page.
# fs_seatbelt is built everywhere but installed on macOS only (install.sh).
built_modules=$(cd "$STK_BUILD/modules" && ls | { [ "$(uname -s)" = Darwin ] && cat || grep -v '^fs_seatbelt\.'; })
for f in bin/stockade \
         include/stockade/module.h lib/pkgconfig/stockade-module.pc share/man/man1/stockade.1 \
         share/man/man5/stockade.yaml.5 share/man/man3/stockade-module.3 \
         $(for m in $built_modules; do echo lib/stockade/$m share/man/man8/stockade-${m%.*}.8; done); do
        if [ -e "$P/$f" ]; then ok "installed $f"; else not_ok "installed $f" "missing"; fi
done
S=$P/bin/stockade
check_output "installed stockade --version" '^stockade [0-9]' "$S" --version
# The shell entry's names (stockade-sh(1), issue 16).
for l in stockade-sh stockade-bash; do
        check_output "installed $l is the shell entry" 'only `sh -c STRING`' "$P/bin/$l" script.sh
done

# --- pkg-config --------------------------------------------------------------
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
cflags=$(pkg-config --cflags stockade-module)
moddir=$(pkg-config --variable=moduledir stockade-module)
soext=$(pkg-config --variable=soext stockade-module)
case " $cflags " in
*" -I$P/include "*) ok "pkg-config --cflags names the installed include dir" ;;
*) not_ok "pkg-config --cflags names the installed include dir" "got '$cflags'" ;;
esac
if [ "$moddir" = "$P/lib/stockade" ]; then ok "pkg-config moduledir is \$libdir/stockade"
else not_ok "pkg-config moduledir is \$libdir/stockade" "got '$moddir'"; fi

# --- a module built out of tree -----------------------------------------------
# Strict flags: the public header must compile cleanly in a third party's build.
so=$T_TMP/deny_rm.${soext:-so}
if (cd "$T_TMP" && cc -std=c11 -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes $cflags \
        -shared -fPIC -o "$so" "$top/t/sdk/example_module.c") > "$T_TMP/cc.log" 2>&1; then
        ok "example module builds against the installed SDK"
else
        not_ok "example module builds against the installed SDK" "$(tail -c 400 "$T_TMP/cc.log" | tr '\n' ' ')"
        exit 0
fi
install -m 0644 "$so" "$moddir/"

export HOME="$T_TMP/home" XDG_CONFIG_HOME="$T_TMP/xdg"   # no user layer from the real home
mkdir -p "$HOME" "$T_TMP/ws"
cd "$T_TMP/ws" || exit 1

open_policy() {  # open_policy FILE ARGS: no enforcement needed, deny_rm alone
        cat > "$1" <<EOP
stockade: 1
settings:
  workspace: $T_TMP/ws
  write: [/]
  private_tmp: false
  git: off
  protect_defaults: false
  network: { mode: on }
stack:
  - { phase: permission, control: required, module: deny_rm, args: $2 }
EOP
}
F=$T_TMP/sdk.yaml
open_policy "$F" '{ names: [rm, shred] }'
check "stockade check accepts a policy using the module" "$S" check "$F"
echo keep > x
check_status "rm is denied" $STK_EXIT_DENIED "$S" run --policy "$F" -- rm -f x
if [ -e x ]; then ok "the denied rm never ran"; else not_ok "the denied rm never ran" "x is gone"; fi
check_output "the denial names the module" 'deny_rm' "$S" run --policy "$F" -- /bin/rm -f x
check_status "a name from the module's args is denied" $STK_EXIT_DENIED "$S" run --policy "$F" -- shred x
check_status "true is allowed" 0 "$S" run --policy "$F" -- true
check_output "explain lists the module from the installed dir" "lib.{0,2}/stockade.{0,2}/deny_rm" \
        "$S" explain --json --policy "$F" -- rm

BAD=$T_TMP/bad.yaml
open_policy "$BAD" '{ bogus: [x] }'
check_status "an unknown module argument is a policy error" $STK_EXIT_POLICY "$S" run --policy "$BAD" -- true
check_output "... with file:line:col" "bad.yaml:[0-9]+:[0-9]+: .*bogus" "$S" run --policy "$BAD" -- true

# --- the installed fs_bwrap, stacked after the module ---------------------------
W=$T_TMP/sdk-bwrap.yaml
cat > "$W" <<EOP
stockade: 1
settings:
  workspace: $T_TMP/ws
  write: [$T_TMP/ws]
  network: { mode: off }
  best_effort: [net_unix]   # net_seccomp's, not under test here
stack:
  - { phase: permission, control: required, module: deny_rm }
  - { phase: pre-exec, control: required, module: fs_bwrap }
EOP
"$S" run --policy "$W" -- true > "$T_TMP/bw.out" 2>&1; st=$?
if [ "$st" != 0 ] && why=$(t_bwrap_cannot_run "$T_TMP/bw.out"); then
        skip "installed fs_bwrap with deny_rm" "no usable bwrap here: $why"
else
        if [ "$st" = 0 ]; then ok "installed fs_bwrap runs a command"; else not_ok "installed fs_bwrap runs a command" "status $st"; fi
        check_status "deny_rm still denies under fs_bwrap" $STK_EXIT_DENIED "$S" run --policy "$W" -- rm -f x
        check "the workspace is writable under fs_bwrap" "$S" run --policy "$W" -- sh -c "echo y > $T_TMP/ws/y"
fi

# --- the SDK example (examples/approval_example): its own Makefile ---------------
# Copied out of the tree, as a security team would start from it, built
# with nothing but the installed SDK (PKG_CONFIG_PATH above) and installed
# by its Makefile into the directory the installed stockade trusts.
EX=$T_TMP/approval_example
cp -R "$top/examples/approval_example" "$EX"
exmake() { (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES; make -s -C "$EX" "$@"); }
if exmake > "$T_TMP/ex.log" 2>&1 && exmake install >> "$T_TMP/ex.log" 2>&1; then
        ok "the example builds and installs with its Makefile and pkg-config"
else
        not_ok "the example builds and installs with its Makefile and pkg-config" "$(tail -c 400 "$T_TMP/ex.log" | tr '\n' ' ')"
        exit 0
fi
check "... into pkg-config's moduledir" test -f "$moddir/approval_example.${soext:-so}"
# Something must ask: the test-only t_scripted (result: ask), built by the
# prefix's own build tree and copied next to it (never installed by make).
if submake B="$T_TMP/build" "$T_TMP/build/t/modules/t_scripted.${soext:-so}" > "$T_TMP/ts.log" 2>&1 &&
   install -m 0644 "$T_TMP/build/t/modules/t_scripted.${soext:-so}" "$moddir/"; then
        ok "t_scripted installed beside it to ask the questions"
else
        not_ok "t_scripted installed beside it" "$(tail -c 300 "$T_TMP/ts.log" | tr '\n' ' ')"
        exit 0
fi

E=$T_TMP/example.yaml
me=$(id -un)
example_policy() {  # example_policy USERS NOW [HOURS]
        cat > "$E" <<EOP
stockade: 1
settings:
  workspace: $T_TMP/ws
  write: [/]
  private_tmp: false
  git: off
  protect_defaults: false
  network: { mode: on }
stack:
  - { phase: permission, control: required, module: t_scripted, args: { result: ask } }
  - { phase: permission, control: optional, module: approval_example,
      args: { users: [$1], hours: "${3:-09-18}", days: [mon, tue, wed, thu, fri], now: "$2" } }
EOP
}
ex_case() {  # ex_case NAME WANT_STATUS WANT_RAN [LOG-PATTERN]
        rm -f "$T_TMP/ex-ran"
        "$S" run --policy "$E" -- touch "$T_TMP/ex-ran" > "$T_TMP/ex.out" 2>&1; st=$?
        has=no; [ -e "$T_TMP/ex-ran" ] && has=yes
        if [ "$st" = "$2" ] && [ "$has" = "$3" ] && { [ -z "${4:-}" ] || grep -qE -- "$4" "$T_TMP/ex.out"; }; then
                ok "$1"
        else
                not_ok "$1" "status $st want $2, ran $has want $3: $(tail -c 300 "$T_TMP/ex.out" | tr '\n' ' ')"
        fi
}
example_policy "$me" "2025-06-02 10:30"   # a Monday
ex_case "example: a listed user, Monday 10:30: the command runs" 0 yes
example_policy "$me" "2025-06-02 18:00"
ex_case "example: 18:00, out of hours: denied" $STK_EXIT_DENIED no 'approvals only from 09:00 to 18:00'
example_policy "$me" "2025-06-02 08:59"
ex_case "example: 08:59, out of hours: denied" $STK_EXIT_DENIED no
example_policy "$me" "2025-06-07 10:30"   # a Saturday
ex_case "example: Saturday: denied" $STK_EXIT_DENIED no 'no approvals on sat'
example_policy "someone-else" "2025-06-02 10:30"
ex_case "example: a user not on the list: denied" $STK_EXIT_DENIED no "user $me is not on the approval list"
example_policy "$me" "2025-06-02 10:30" "18-09"
ex_case "example: bad hours are a policy error" $STK_EXIT_POLICY no 'hours "18-09"'
example_policy "$me" "2025-06-02 10:30"
check_output "example: explain --details shows the rule" 'allow commands of 1 listed user\(s\) on mon,tue,wed,thu,fri from 09:00 to 18:00' \
        "$S" explain --details --policy "$E"

# --- doctor of the installed tree: modules from MODULEDIR, profiles from SYSCONFDIR
"$S" doctor --json > "$T_TMP/doctor.json" 2> "$T_TMP/doctor.err"; st=$?
if [ "$st" = 0 ] || [ "$st" = 1 ]; then ok "installed doctor runs (status $st)"
else not_ok "installed doctor runs" "status $st: $(tail -c 300 "$T_TMP/doctor.err")"; fi
for p in default workspace-write read-only ci full-access; do
        if grep -q "\"name\": \"$p\"" "$T_TMP/doctor.json"; then ok "doctor reports profile $p"
        else not_ok "doctor reports profile $p" "not in the JSON"; fi
done

# --- DESTDIR ---------------------------------------------------------------
D=$T_TMP/dest
had_usr_bin=$([ -e /usr/bin/stockade ] && echo yes)
t_seed_build "$T_TMP/build-usr"
if submake install DESTDIR="$D" PREFIX=/usr B="$T_TMP/build-usr" > "$T_TMP/install-d.log" 2>&1; then
        ok "make install DESTDIR=\$T_TMP/dest PREFIX=/usr"
else
        not_ok "make install DESTDIR=... PREFIX=/usr" "$(tail -c 400 "$T_TMP/install-d.log" | tr '\n' ' ')"
        exit 0
fi
for f in usr/bin/stockade $(for m in $built_modules; do echo usr/lib/stockade/$m; done) \
         usr/include/stockade/module.h usr/lib/pkgconfig/stockade-module.pc usr/share/man/man1/stockade.1 \
         usr/share/man/man3/stockade-module.3 usr/share/man/man5/stockade.yaml.5; do
        if [ -e "$D/$f" ]; then ok "DESTDIR: installed $f"; else not_ok "DESTDIR: installed $f" "missing"; fi
done
check "DESTDIR: the .pc names /usr/lib/stockade" grep -qx 'moduledir=/usr/lib/stockade' "$D/usr/lib/pkgconfig/stockade-module.pc"
check "DESTDIR: the binary has /etc/stockade compiled in" grep -aq '/etc/stockade' "$D/usr/bin/stockade"
if grep -aq "$D" "$D/usr/bin/stockade" "$D/usr/lib/pkgconfig/stockade-module.pc"; then
        not_ok "DESTDIR is not compiled into anything" "found $D"
else
        ok "DESTDIR is not compiled into anything"
fi
if [ -z "$had_usr_bin" ] && [ -e /usr/bin/stockade ]; then
        not_ok "nothing installed outside DESTDIR" "/usr/bin/stockade appeared"
else
        ok "nothing installed outside DESTDIR"
fi
