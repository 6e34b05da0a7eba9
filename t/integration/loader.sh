#!/bin/sh
# The module loader's trust checks (core/run/loader.c), each shown by a
# module the real binary must refuse before anything runs (issue 20: these
# passed a mutation audit unnoticed): a file writable by its group (0664,
# not only 0666), a module directory writable by its group, a symlink in a
# module directory, a descriptor of an older ABI major.  The stacks enforce
# nothing else (write: [/], network on), so only the loader is under test.
. "$(dirname "$0")/../lib.sh"

[ -x "$STK" ] || { skip "loader" "no $STK"; exit 0; }
MODS=$STK_BUILD/t/modules
[ -f "$MODS/t_scripted.so" ] || { skip "loader" "no $MODS/t_scripted.so"; exit 0; }

P=$T_TMP/p.yaml
M=$T_TMP/ran
export XDG_CONFIG_HOME=$T_TMP/xdg   # no user layer from the real home

# refused NAME MODULE PATTERN: a stack of MODULE alone must fail, the
# command must not run, and the output must match PATTERN.
refused() {
        name=$1 mod=$2 pat=$3
        open_policy "$P"
        printf 'stack:\n  - { phase: pre-exec, control: required, module: %s }\n' "$mod" >> "$P"
        rm -f "$M"
        (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- touch "$M") > "$T_TMP/out" 2>&1; st=$?
        if [ "$st" != 0 ] && [ ! -e "$M" ] && grep -qE -- "$pat" "$T_TMP/out"; then ok "$name (status $st)"
        else not_ok "$name" "status $st, ran: $(ls "$M" 2>/dev/null), out: $(tail -c 300 "$T_TMP/out" | tr '\n' ' ')"; fi
}

# A control: the same module, trusted, loads and the command runs.
refused_control() {
        open_policy "$P"
        printf 'stack:\n  - { phase: pre-exec, control: required, module: %s }\n' "$1" >> "$P"
        rm -f "$M"
        (cd "$T_TMP" && "$STK" run --policy "$P" --workspace "$T_TMP" -- touch "$M") > "$T_TMP/out" 2>&1
        check "control: $1 as built loads and the command runs" test -e "$M"
}

refused_control t_scripted

# --- 0664: writable by the group alone --------------------------------------
cp "$MODS/t_scripted.so" "$MODS/t_groupw.so" && chmod 0664 "$MODS/t_groupw.so"
T_CLEANUP="$T_CLEANUP; rm -f '$MODS/t_groupw.so'"
refused "a module file at 0664 is refused" t_groupw 't_groupw.so: writable by group or others'
chmod 0646 "$MODS/t_groupw.so"
refused "a module file at 0646 (others, not group) is refused" t_groupw 't_groupw.so: writable by group or others'
# (t_groupw's descriptor says t_scripted: if the mode check were gone the
# name check would still refuse it, so the message is what is asserted.)

# --- a module directory writable by its group --------------------------------
mode=$(stat -c %a "$MODS")
chmod g+w "$MODS"
T_CLEANUP="$T_CLEANUP; chmod $mode '$MODS'"
refused "a module in a group-writable directory is refused" t_scripted \
        "refusing module directory $MODS: writable by group or others"
chmod "$mode" "$MODS"

# --- a symlink in a module directory -------------------------------------------
# $STK_BUILD/modules is searched first; a link there named t_scripted.so to
# the real t_scripted.so would load a module whose name and descriptor agree:
# only O_NOFOLLOW stands in the way.
link=$STK_BUILD/modules/t_scripted.so
if [ -e "$link" ] || [ -L "$link" ]; then
        skip "a symlinked module is refused" "$link exists"
else
        ln -s ../t/modules/t_scripted.so "$link"
        T_CLEANUP="$T_CLEANUP; rm -f '$link'"
        refused "a symlinked module is refused" t_scripted "refusing module $link: a symlink"
        rm -f "$link"
fi

# --- an older ABI major ------------------------------------------------------
refused "a module built for ABI 0 is refused" t_abizero 't_abizero.so: built for ABI 0, this stockade speaks ABI 1'

# --- owned by another user ------------------------------------------------------
# (only root can give a file away; the message is asserted, the name check
# would refuse this copy too)
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
        cp "$MODS/t_scripted.so" "$MODS/t_otheruser.so" && chmod 0644 "$MODS/t_otheruser.so" &&
                chown nobody "$MODS/t_otheruser.so"
        T_CLEANUP="$T_CLEANUP; rm -f '$MODS/t_otheruser.so'"
        refused "a module owned by another user is refused" t_otheruser \
                't_otheruser.so: owned by neither root nor the user'
else
        skip "a module owned by another user is refused" "not root: no file can be given to another user"
fi
