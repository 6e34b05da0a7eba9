#!/bin/sh
# The test base (issue 20): each user's runs share a base directory of that
# user's own, created 0700; one that is a symlink, of another mode or of
# another owner, or in a parent others can rename it in, stops the run with
# a clear message rather than putting fixtures where another user chose.
. "$(dirname "$0")/../lib.sh"
base_check() { sh -c '. "$1"; t_private_base "$2" && echo accepted' sh "$T_TOP/t/private_base.sh" "$1"; }
P=$T_TMP/parent
mkdir -p "$P"

check_output "a missing base is created" '^accepted$' base_check "$P/new"
check_output "... mode 0700" '^drwx------ ' ls -ld "$P/new"
check_output "an existing base of this user, 0700, is accepted" '^accepted$' base_check "$P/new"
check_output "the run's own base is this user's, 0700" "^drwx------ +[0-9]+ +$(id -u) " ls -ldn "$T_BASE"

mkdir -m 755 "$P/open"
check_output "a base of mode 0755 is refused" '^not ok - test base .*/open: its mode is drwxr-xr-x' base_check "$P/open"
check_status "... the run stops (2)" 2 base_check "$P/open"
ln -s "$P/new" "$P/link"
check_output "a symlink to a base of this user's is refused" '^not ok - test base .*/link: it is a symlink' base_check "$P/link"
: > "$P/file"
check_output "a file where the base should be is refused" '^not ok - test base .*/file: its mode is -' base_check "$P/file"
if [ "$(id -u)" = 0 ]; then
        mkdir -m 700 "$P/theirs" && chown 65534 "$P/theirs"
        check_output "a base of another uid, 0700, is refused" '^not ok - test base .*/theirs: it is owned by uid 65534, not 0' base_check "$P/theirs"
else
        skip "a base of another uid is refused" "making a directory of another uid takes root"
fi
mkdir -m 777 "$P/shared"
check_output "a base in a parent anyone can rename it in is refused" 'parent .*/shared is writable by others and not sticky' base_check "$P/shared/b"
check_status "... and is not made there" 1 test -e "$P/shared/b"
chmod 1777 "$P/shared"
check_output "a sticky parent (like /var/tmp) is accepted" '^accepted$' base_check "$P/shared/b"
