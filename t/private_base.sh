# t_private_base DIR: makes sure DIR is this user's own test base: created
# 0700 if missing, and refused (exit 2, with why) unless it is a directory
# (not a symlink), owned by this uid, mode exactly 0700, in a parent that
# no other user can rename it in (not writable by others, or sticky).
# Sourced by t/lib.sh and t/compat/lib.sh; each run then makes its own
# mktemp -d below DIR.
#
# Why a check on the entry itself is enough (a shell cannot fstat): `ls -ldn`
# is an lstat of DIR, so a symlink is seen as one and never followed; once
# the entry is a directory of ours in a sticky or private parent, no other
# user can replace it, so the later mktemp below it lands where it was
# checked.  A fixed name in a shared /var/tmp is otherwise the classic
# pre-creation or symlink target for another local user (issue 20).
t_private_base() {
        _base=$1 _uid=$(id -u)
        _parent=$(dirname "$_base")
        case $(ls -ldn "$_parent/." 2>/dev/null | cut -c1-10) in
        d???????w?|d????w????) case $(ls -ldn "$_parent/." | cut -c10) in
                t|T) ;;
                *) t_base_refused "$_base" "its parent $_parent is writable by others and not sticky" ;;
                esac ;;
        d*) ;;
        *) t_base_refused "$_base" "its parent $_parent is not a directory" ;;
        esac
        mkdir -m 700 "$_base" 2>/dev/null
        # mode+type, links, uid: "drwx------ 2 1000 ..." (a trailing "." or
        # "@" is an SELinux label or xattrs; "+" is an ACL: refused).
        set -- $(ls -ldn "$_base" 2>/dev/null)
        case ${1:-} in
        drwx------|drwx------.|drwx------@) ;;
        "") t_base_refused "$_base" "it cannot be created" ;;
        l*) t_base_refused "$_base" "it is a symlink" ;;
        *) t_base_refused "$_base" "its mode is $1, not drwx------" ;;
        esac
        [ "$3" = "$_uid" ] || t_base_refused "$_base" "it is owned by uid $3, not $_uid"
}

t_base_refused() {
        echo "not ok - test base $1: $2; remove it (or give it to uid $(id -u), mode 0700) and run again" >&2
        exit 2
}
