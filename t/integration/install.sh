#!/bin/sh
# What a distribution packager meets (issue 17), on copies of the source
# tree built as a package build would be:
#   - reproducible: the same tree built in two directories of different
#     names installs byte for byte the same files, and no installed file
#     names either build directory; SOURCE_DATE_EPOCH dates the man pages
#   - the installed binary trusts only the installed directories: a module
#     left in its build tree is not loaded
#   - multiarch: LIBDIR=/usr/lib/<triplet> puts the .pc and the modules there
#   - man pages: paths substituted, `man --warnings` silent; the pages and
#     module of macOS alone (fs_seatbelt) not installed on Linux
#   - `make uninstall` removes exactly what `make install` put, and leaves
#     a site's own module and configuration
#   - nothing is installed into SYSCONFDIR (the profiles are embedded)
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v make > /dev/null 2>&1 || { skip "install" "no make"; exit 0; }

# A make of its own: nothing of an outer `make check` (SANITIZE=1, B) leaks in.
submake() {
        (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
         make -s -j2 "$@")
}
# copy_tree DIR: the source tree without its build trees or git metadata
copy_tree() {
        mkdir -p "$1"
        (cd "$top" && tar -cf - --exclude='./build*' --exclude=./.git --exclude='*.o' .) | (cd "$1" && tar -xf -)
}

SDE=1700000000   # 2023-11-14
M=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
LIBDIR=/usr/lib/$M
ARGS="PREFIX=/usr LIBDIR=$LIBDIR SOURCE_DATE_EPOCH=$SDE"
A=$T_TMP/one/stockade-src
Bdir=$T_TMP/a-longer-second-directory/src
for d in "$A" "$Bdir"; do
        copy_tree "$d"
        # install alone: it builds what it installs, nothing of the build tree's own
        if submake -C "$d" install $ARGS DESTDIR="$d.dest" > "$d.log" 2>&1; then
                ok "build and install in ${d#$T_TMP/}"
        else
                not_ok "build and install in ${d#$T_TMP/}" "$(tail -c 400 "$d.log" | tr '\n' ' ')"
                exit 0
        fi
done
DA=$A.dest DB=$Bdir.dest

# --- reproducible ---------------------------------------------------------------
(cd "$DA" && find . -type f | sort) > "$T_TMP/files.a"
(cd "$DB" && find . -type f | sort) > "$T_TMP/files.b"
if cmp -s "$T_TMP/files.a" "$T_TMP/files.b"; then ok "both builds install the same files ($(wc -l < "$T_TMP/files.a"))"
else not_ok "both builds install the same files" "$(diff "$T_TMP/files.a" "$T_TMP/files.b" | head -5 | tr '\n' ' ')"; fi
differ=
while read -r f; do cmp -s "$DA/$f" "$DB/$f" || differ="$differ $f"; done < "$T_TMP/files.a"
if [ -z "$differ" ]; then ok "the two installed trees are byte for byte the same"
else not_ok "the two installed trees are byte for byte the same" "differ:$differ"; fi
leaks=$(grep -rlaF -e "$A" -e "$Bdir" -e "$T_TMP" -e "$top" "$DA" "$DB" 2>/dev/null | head -5 | tr '\n' ' ')
if [ -z "$leaks" ]; then ok "no installed file names a build or source directory"
else not_ok "no installed file names a build or source directory" "$leaks"; fi
if [ -n "$(find "$DA" -path '*/etc*' 2>/dev/null)" ]; then not_ok "nothing installed into SYSCONFDIR" "$(find "$DA" -path '*/etc*' | head -3)"
else ok "nothing installed into SYSCONFDIR"; fi
check_output "SOURCE_DATE_EPOCH dates the man pages" '^\.TH STOCKADE 1 2023-11-14 ' head -n 5 "$DA/usr/share/man/man1/stockade.1"

# --- the installed binary trusts the installed tree only -----------------------
S=$DA/usr/bin/stockade
check_output "the installed binary runs" '^stockade [0-9]' "$S" --version
open_policy "$T_TMP/ts.yaml"
printf 'stack:\n  - { phase: permission, control: required, module: t_scripted, args: { result: allow } }\n' >> "$T_TMP/ts.yaml"
check_status "the development build loads a test module from its build tree" 0 \
        "$STK" check "$T_TMP/ts.yaml"
# The binary `make install` installs from this very build tree, run there.
check_output "the binary make install installs does not" 't_scripted' "$STK_BUILD/inst/stockade" check "$T_TMP/ts.yaml"
check_status "... and fails" $STK_EXIT_POLICY "$STK_BUILD/inst/stockade" check "$T_TMP/ts.yaml"

# --- layout ------------------------------------------------------------------
check "multiarch: the .pc is in \$LIBDIR/pkgconfig" test -f "$DA$LIBDIR/pkgconfig/stockade-module.pc"
check "multiarch: the .pc names \$LIBDIR/stockade" grep -qx "moduledir=$LIBDIR/stockade" "$DA$LIBDIR/pkgconfig/stockade-module.pc"
check "multiarch: modules in \$LIBDIR/stockade" test -f "$DA$LIBDIR/stockade/fs_guard.so"
if [ "$(uname -s)" != Darwin ]; then
        if [ -e "$DA$LIBDIR/stockade/fs_seatbelt.so" ] || [ -e "$DA/usr/share/man/man8/stockade-fs_seatbelt.8" ]; then
                not_ok "the macOS module and its page are not installed on Linux" "found"
        else ok "the macOS module and its page are not installed on Linux"; fi
fi
left=$(grep -l -e '$(sysconfdir)' -e '$(libexecdir)' -e '$(datadir)' -e '$(moduledir)' -e '$(bindir)' \
        "$DA"/usr/share/man/man*/* 2>/dev/null | tr '\n' ' ')
if [ -z "$left" ]; then ok "man pages: every \$(dir) substituted"; else not_ok "man pages: every \$(dir) substituted" "$left"; fi
check "man pages: stockade.yaml(5) names /etc/stockade" grep -q '/etc/stockade' "$DA/usr/share/man/man5/stockade.yaml.5"
if command -v man > /dev/null 2>&1; then
        for p in "$DA"/usr/share/man/man*/*; do
                w=$(cd "$DA/usr/share/man" && MANWIDTH=80 man --warnings -l "$p" 2>&1 > /dev/null | head -3 | tr '\n' ' ')
                if [ -z "$w" ]; then ok "man --warnings: ${p##*/}"; else not_ok "man --warnings: ${p##*/}" "$w"; fi
        done
else
        skip "man --warnings" "no man here"
fi

# --- uninstall -------------------------------------------------------------------
# A site's own module and configuration, beside what was installed.
mkdir -p "$DA/etc/stockade/site.d"
echo "stockade: 1" > "$DA/etc/stockade/site.d/10-site.yaml"
echo "site module" > "$DA$LIBDIR/stockade/site_own.so"
if submake -C "$A" uninstall $ARGS DESTDIR="$DA" > "$T_TMP/un.log" 2>&1; then ok "make uninstall"
else not_ok "make uninstall" "$(tail -c 300 "$T_TMP/un.log")"; fi
(cd "$DA" && find . -type f | sort) > "$T_TMP/left"
printf '%s\n' "./etc/stockade/site.d/10-site.yaml" ".$LIBDIR/stockade/site_own.so" | sort > "$T_TMP/want-left"
if cmp -s "$T_TMP/left" "$T_TMP/want-left"; then ok "uninstall removed every installed file and only those"
else not_ok "uninstall removed every installed file and only those" "left: $(tr '\n' ' ' < "$T_TMP/left")"; fi
empty=$(cd "$DA" && find . -type d -path '*stockade*' -empty | tr '\n' ' ')
if [ -z "$empty" ]; then ok "uninstall left no empty stockade directory"; else not_ok "uninstall left no empty stockade directory" "$empty"; fi
