#!/bin/sh
# make distcheck: the packaging as a distribution builds it, on a copy of
# the source tree (debian/rules clean would remove the build tree):
#   - dpkg-buildpackage -us -uc -b, then lintian (no error or warning;
#     pedantic and info tags reported), then the autopkgtest tests
#     (debian/tests) against the built packages, installed over /usr in an
#     overlay of a private mount namespace (root; the host's /usr is not
#     touched)
#   - rpmbuild -bb of stockade.spec (--nodeps: Debian's rpm database knows
#     none of the BuildRequires), else rpmspec -P
# A tool that is missing is a skip that says which.  Last line: N passed,
# N failed, N skipped.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/stockade-distcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok - distcheck: $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - distcheck: $1${2:+ ($2)}"; failed=$((failed + 1)); }
skip() { echo "skip - distcheck: $1 ($2)"; skipped=$((skipped + 1)); }
VERSION=$(sed -n 's/^VERSION *:= *//p' "$top/GNUmakefile")
src=$work/deb/stockade-$VERSION
mkdir -p "$src"
(cd "$top" && tar -cf - --exclude='./build*' --exclude=./.git .) | (cd "$src" && tar -xf -)

debian() {
        command -v dpkg-buildpackage > /dev/null 2>&1 && command -v dh > /dev/null 2>&1 ||
                { skip "dpkg-buildpackage" "no dpkg-dev or debhelper"; return; }
        if (cd "$src" && dpkg-buildpackage -us -uc -b) > "$work/deb.log" 2>&1; then ok "dpkg-buildpackage -us -uc -b"
        else not_ok "dpkg-buildpackage -us -uc -b" "$(tail -c 400 "$work/deb.log" | tr '\n' ' ')"; return; fi
        for p in stockade stockade-dev stockade-escape; do
                if [ -f "$work/deb/${p}_${VERSION}_"*.deb ]; then ok "package $p built"; else not_ok "package $p built"; fi
        done 2> /dev/null
        if command -v lintian > /dev/null 2>&1; then
                lintian --pedantic -I -E "$work/deb/"*.changes > "$work/lintian.out" 2>&1
                grep -v 'running with root privileges' "$work/lintian.out" > "$work/lintian.tags"
                if grep -q '^[EW]:' "$work/lintian.tags"; then not_ok "lintian: no error or warning" "$(grep '^[EW]:' "$work/lintian.tags" | head -5 | tr '\n' ' ')"
                else ok "lintian: no error or warning"; fi
                [ -s "$work/lintian.tags" ] && sed 's/^/# lintian: /' "$work/lintian.tags"
        else
                skip "lintian" "not installed"
        fi
        autopkgtests
}

autopkgtests() {
        [ "$(id -u)" = 0 ] && command -v unshare > /dev/null 2>&1 ||
                { skip "autopkgtest" "needs root and unshare for a private overlay of /usr"; return; }
        x=$work/root
        mkdir -p "$x/usr" "$work/up" "$work/wk"
        for d in "$work/deb/"*.deb; do
                case $d in *-dbgsym_*) continue ;; esac
                dpkg-deb -x "$d" "$x"
        done
        for t in $(sed -n 's/^Tests: *//p' "$src/debian/tests/control"); do
                rm -rf "$work/up" "$work/wk" && mkdir -p "$work/up" "$work/wk" "$work/tmp-$t"
                unshare -m sh -c "mount -t overlay overlay -o lowerdir=$x/usr:/usr,upperdir=$work/up,workdir=$work/wk /usr &&
                        AUTOPKGTEST_TMP=$work/tmp-$t sh $src/debian/tests/$t" > "$work/t-$t.log" 2>&1
                st=$?
                if [ $st = 0 ]; then ok "autopkgtest $t on the installed packages"
                elif [ $st = 77 ]; then skip "autopkgtest $t" "$(tail -n 1 "$work/t-$t.log")"
                else not_ok "autopkgtest $t on the installed packages" "$(tail -c 300 "$work/t-$t.log" | tr '\n' ' ')"; fi
        done
}

rpm() {
        spec=$top/stockade.spec
        if command -v rpmbuild > /dev/null 2>&1; then
                mkdir -p "$work/rpm/SOURCES"
                (cd "$top" && tar -czf "$work/rpm/SOURCES/stockade-$VERSION.tar.gz" --transform "s|^\\./|stockade-$VERSION/|" \
                        --exclude='./build*' --exclude=./.git .)
                if rpmbuild -bb --nodeps --define "_topdir $work/rpm" "$spec" > "$work/rpm.log" 2>&1; then
                        ok "rpmbuild -bb stockade.spec ($(ls "$work/rpm/RPMS/"*/ | tr '\n' ' '))"
                else
                        not_ok "rpmbuild -bb stockade.spec" "$(tail -c 400 "$work/rpm.log" | tr '\n' ' ')"
                fi
        elif command -v rpmspec > /dev/null 2>&1; then
                if rpmspec -P "$spec" > "$work/rpm.log" 2>&1; then ok "rpmspec -P stockade.spec"
                else not_ok "rpmspec -P stockade.spec" "$(tail -c 300 "$work/rpm.log")"; fi
        else
                skip "rpm spec" "neither rpmbuild nor rpmspec (apt-get install rpm)"
        fi
}

debian
rpm
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
