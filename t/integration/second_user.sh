#!/bin/sh
# make check by a second user after root (issue 20): a clone under /tmp used
# to put every run's fixtures in one fixed /var/tmp/stockade-tests, which a
# root run left 0755 and root's, so another user's run could make nothing
# there and failed almost everywhere.  Here a root run of core.sh through a
# /tmp build path leaves its base, then stkuser builds a copy of this tree
# it owns under /tmp and runs core.sh and approval_tty.sh: both must pass,
# in a base of stkuser's own.
. "$(dirname "$0")/../lib.sh"
linux_only
[ "$(id -u)" = 0 ] || { skip "a second user's run after root" "running as another user takes root"; exit 0; }
id stkuser >/dev/null 2>&1 || { skip "a second user's run after root" "no user stkuser on this machine"; exit 0; }
for tool in runuser git tar make; do
        command -v $tool >/dev/null 2>&1 || { skip "a second user's run after root" "no $tool"; exit 0; }
done
git -C "$T_TOP" rev-parse --git-dir >/dev/null 2>&1 || { skip "a second user's run after root" "the tree is not a git checkout"; exit 0; }
SU_UID=$(id -u stkuser)

# The root run, through a build path under /tmp (a symlink to this build):
# its base is the one a root make check of a /tmp clone uses.
ROOTSIDE=$(mktemp -d /tmp/stockade-rootrun.XXXXXX)
T_CLEANUP="$T_CLEANUP; rm -rf '$ROOTSIDE'"
ln -s "$STK_BUILD" "$ROOTSIDE/build"
STK_BUILD=$ROOTSIDE/build setsid -w sh "$T_TOP/t/integration/core.sh" > "$T_TMP/root.out" 2>&1 < /dev/null; rc=$?
if [ "$rc" = 0 ] && ! grep -q '^not ok - ' "$T_TMP/root.out"; then
        ok "the root run passes first"
else
        not_ok "the root run passes first" "status $rc: $(grep -m3 '^not ok - ' "$T_TMP/root.out" | tr '\n' ' ')"
fi
check_output "... in a base of root's own, 0700" '^drwx------ +[0-9]+ +0 ' ls -ldn /var/tmp/stockade-tests-0

# stkuser's copy: the tree's files as they are (tracked and untracked, as
# make mutate copies them), owned by stkuser, built by stkuser.
SU_DIR=$(mktemp -d /tmp/stockade-second-user.XXXXXX)
T_CLEANUP="$T_CLEANUP; rm -rf '$SU_DIR'"
mkdir "$SU_DIR/src" "$SU_DIR/home"
git -C "$T_TOP" ls-files -z --cached --others --exclude-standard |
        tar -C "$T_TOP" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$SU_DIR/src" -xf -
chown -R stkuser "$SU_DIR"
as_stkuser() {  # a clean environment: stkuser's own HOME, nothing of root's
        runuser -u stkuser -- env -i PATH="$PATH" HOME="$SU_DIR/home" LC_ALL=C.UTF-8 "$@"
}
if ! as_stkuser make -C "$SU_DIR/src" -j2 --no-print-directory mutate-artifacts > "$T_TMP/build.out" 2>&1; then
        not_ok "stkuser builds its copy" "$(tail -c 300 "$T_TMP/build.out" | tr '\n' ' ')"
        exit 0
fi
ok "stkuser builds its copy"

for t in t/integration/core.sh modules/approval_tty/t/approval_tty.sh; do
        out=$T_TMP/$(basename "$t" .sh).out
        as_stkuser STK_BUILD="$SU_DIR/src/build" timeout 300 setsid -w sh "$SU_DIR/src/$t" > "$out" 2>&1 < /dev/null; rc=$?
        passed=$(grep -c '^ok - ' "$out") failed=$(grep -c '^not ok - ' "$out")
        if [ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$passed" -gt 0 ]; then
                ok "as stkuser after root: $t passes ($passed ok)"
        else
                not_ok "as stkuser after root: $t passes" "status $rc, $failed failed: $( (grep -m3 '^not ok - ' "$out"; head -n3 "$out") | tr '\n' ' ' | cut -c1-400)"
        fi
done
check_output "stkuser's runs had a base of stkuser's own, 0700" "^drwx------ +[0-9]+ +$SU_UID " ls -ldn "/var/tmp/stockade-tests-$SU_UID"
