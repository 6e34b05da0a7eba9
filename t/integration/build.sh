#!/bin/sh
# The build is honest about headers (issue 18): every object records what it
# includes (-MMD -MP), so an edit of a module's own header, of a lib/ header
# or of the SDK makes `make -q` report work for what includes it, and
# nothing else.  Each header's time is put back afterwards.
. "$(dirname "$0")/../lib.sh"

here=$(cd "$(dirname "$0")/../.." && pwd)
command -v make > /dev/null 2>&1 || { skip "build" "no make"; exit 0; }
# The very build tree under test, named as the build named it (B=build-san
# for SANITIZE=1): the .d files record each object under that name.
B=${STK_BUILD#"$here"/}
q() { (unset MAKEFLAGS MFLAGS MAKELEVEL; make -q -C "$here" B="$B" "$@" > /dev/null 2>&1); }
SO=so
[ "$(uname -s)" = Darwin ] && SO=dylib

# stale HEADER TARGET...: touching HEADER makes each TARGET out of date
stale() {
        h=$1; shift
        cp -p "$here/$h" "$T_TMP/saved"
        touch "$here/$h"
        for t in "$@"; do
                if q "${t#"$here"/}"; then not_ok "touching $h leaves ${t#$STK_BUILD/} up to date"
                else ok "touching $h makes ${t#$STK_BUILD/} out of date"; fi
        done
        touch -r "$T_TMP/saved" "$here/$h"
}

MOD=$STK_BUILD/modules/perm_rules.$SO
if ! q "${MOD#"$here"/}" || ! q "${STK_BUILD#"$here"/}/stockade"; then
        skip "build" "the build tree is not up to date to begin with (run make first)"
        exit 0
fi
ok "after the build, make -q finds nothing to do"
stale modules/perm_rules/pr_internal.h "$MOD"
stale lib/common/stk_buf.h "$MOD" "$STK_BUILD/stockade"
stale include/stockade/module.h "$MOD" "$STK_BUILD/stockade"
stale core/run/core.h "$STK_BUILD/stockade"
check "a module header leaves the core up to date" sh -c "
        cp -p '$here/modules/perm_rules/pr_internal.h' '$T_TMP/saved2'; touch '$here/modules/perm_rules/pr_internal.h'
        (unset MAKEFLAGS MFLAGS MAKELEVEL; make -q -C '$here' B='$B' '$B/stockade' > /dev/null 2>&1); st=\$?
        touch -r '$T_TMP/saved2' '$here/modules/perm_rules/pr_internal.h'; exit \$st"
check "the times put back, the tree is up to date again" q "${MOD#"$here"/}"
