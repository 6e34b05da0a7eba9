#!/bin/sh
# fs_guard through the real CLI: what moved out of net_seccomp (issue 18)
# and how old stacks and old arguments behave now.  The guards' own
# containment tests run on the Landlock stack in fs_landlock.sh (top-level
# entries, chmod/chown, timestamps, xattrs), whose policy lists fs_guard.
. "$(dirname "$0")/../../../t/lib.sh"

skip_all() {
        for c in "guards" "old args" "old stack" "alone"; do skip "$c" "$1"; done
        exit 0
}
[ -x "$STK" ] || skip_all "no stockade binary at $STK yet"
for m in fs_guard fs_landlock net_seccomp; do
        [ -f "$STK_BUILD/modules/$m.so" ] || skip_all "module $m not built"
done

t_make_home
t_make_workspace
git -C "$T_WS" config user.email t@example.invalid
git -C "$T_WS" config user.name t
git -C "$T_WS" add file.txt && git -C "$T_WS" commit -qm init
mkdir -p "$T_WS/.git/hooks" && printf '#!/bin/sh\n' > "$T_WS/.git/hooks/pre-commit" && chmod 644 "$T_WS/.git/hooks/pre-commit"
OUT="$T_TMP/outside"
mkdir -p "$OUT" && echo keep > "$OUT/victim" && chmod 644 "$OUT/victim"

# policy FILE LINES...: the default profile's settings on the Landlock
# stack, with these in-sandbox lines after fs_landlock.
policy() {
        f=$1; shift
        { t_default_settings off ""; printf 'stack:\n'
          printf '  - { phase: pre-exec,   control: required, module: fs_landlock }\n'
          printf '  - { phase: in-sandbox, control: required, module: fs_landlock }\n'
          for l in "$@"; do printf '  - { phase: in-sandbox, control: required, %s }\n' "$l"; done; } > "$f"
}
sbx_policy() {
        pol=$1; shift
        (cd "$T_WS" && HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" "$STK" run --policy "$pol" --workspace "$T_WS" -- "$@")
}

policy "$T_TMP/new.yaml" "module: fs_guard" "module: net_seccomp"
out=$(sbx_policy "$T_TMP/new.yaml" true 2>&1); rc=$?
if [ $rc != 0 ] && printf '%s' "$out" | grep -q 'Landlock unavailable\|needs Landlock ABI'; then
        skip_all "no usable Landlock here"
fi
check "fs_guard and net_seccomp share the one listener (a second is EBUSY)" \
        sbx_policy "$T_TMP/new.yaml" sh -c 'touch newtop && chmod 600 newtop && test "$(stat -c %a newtop)" = 600'
check_status "guard_attr: chmod outside the writable roots refused" 1 sbx_policy "$T_TMP/new.yaml" chmod 666 "$OUT/victim"
check_output "outside file unchanged" '^644$' stat -c %a "$OUT/victim"
check_status "guard_attr: chmod +x of a hook in .git refused" 1 sbx_policy "$T_TMP/new.yaml" chmod +x .git/hooks/pre-commit
check_output "the hook stays 644" '^644$' stat -c %a "$T_WS/.git/hooks/pre-commit"
# connect() still answered by net_seccomp through the same listener.
check_status "net_seccomp's connect guard beside fs_guard: a host socket outside refused" 1 \
        sbx_policy "$T_TMP/new.yaml" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("/run/nonexistent-but-outside.sock")
except PermissionError:
    sys.exit(1)
except OSError:
    sys.exit(1)
sys.exit(0)'

# ---- old arguments on a net_seccomp line: an error naming fs_guard ---------
for a in "guard_top: true" "guard_top: false" "guard_attr: true" "guard_attr: false"; do
        policy "$T_TMP/old.yaml" "module: net_seccomp, args: { $a }"
        check_status "net_seccomp $a: policy error (241)" 241 sbx_policy "$T_TMP/old.yaml" true
        check_output "net_seccomp $a: the message names fs_guard" "${a%%:*}: moved to the fs_guard module" \
                sbx_policy "$T_TMP/old.yaml" true
done
check_status "stockade check refuses it too" 241 "$STK" check --policy "$T_TMP/old.yaml" --workspace "$T_WS"

# ---- an old stack: fs_landlock + net_seccomp, no fs_guard --------------------
# It had guard_attr and guard_top on by default from net_seccomp: now it is
# refused (metadata uncovered), with a message that names fs_guard.
policy "$T_TMP/oldstack.yaml" "module: net_seccomp"
check_status "old stack without fs_guard: refused as the policy's error (241)" 241 sbx_policy "$T_TMP/oldstack.yaml" true
check_output "old stack: the refusal names metadata and fs_guard" 'requires metadata enforced.*module: fs_guard' \
        sbx_policy "$T_TMP/oldstack.yaml" true
check_output "old stack: outside file never touched" '^644$' stat -c %a "$OUT/victim"
# Accepting the gap is said in the policy, as for any cover bit.
{ t_default_settings off "metadata"; printf 'stack:\n  - { phase: pre-exec,   control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: net_seccomp }\n'; } > "$T_TMP/besteffort.yaml"
check "old stack with best_effort: [metadata] runs" sbx_policy "$T_TMP/besteffort.yaml" true

# ---- fs_guard alone beside Landlock (network on: no net_seccomp needed) ------
{ t_default_settings on "ipc"; printf 'stack:\n  - { phase: pre-exec,   control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: fs_guard }\n'; } > "$T_TMP/alone.yaml"
check "fs_guard alone: a top-level file" sbx_policy "$T_TMP/alone.yaml" sh -c 'touch alone && test -f alone'
check_status "fs_guard alone: chmod outside refused" 1 sbx_policy "$T_TMP/alone.yaml" chmod 666 "$OUT/victim"
policy "$T_TMP/off.yaml" "module: fs_guard, args: { guard_attr: false }" "module: net_seccomp"
check_status "guard_attr: false leaves metadata uncovered: refused" 242 sbx_policy "$T_TMP/off.yaml" true
check_output "explain --details names the guards" 'guard_attr: chmod' \
        sh -c "cd '$T_WS' && HOME='$T_HOME' '$STK' explain --details --policy '$T_TMP/new.yaml' --workspace '$T_WS'"

# ---- ACLs: cp -a and cp -p copy the mode as system.posix_acl_access --------
# (issue 15).  They get chmod's rule: beneath a writable root, outside the
# islands; security.* and trusted.* stay refused (fs_landlock.sh).
echo keep > "$OUT/acl-victim" && chmod 644 "$OUT/acl-victim"
mkdir -p "$T_WS/acl-src" && echo x > "$T_WS/acl-src/f" && chmod 640 "$T_WS/acl-src/f"
ACL_PY='
import os, struct, sys
# version 2, then (tag, perm, id): USER_OBJ rw, USER 4242 r, GROUP_OBJ r, MASK r, OTHER none
acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in
      ((1, 6, 0xffffffff), (2, 4, 4242), (4, 4, 0xffffffff), (0x10, 4, 0xffffffff), (0x20, 0, 0xffffffff)))
os.setxattr(sys.argv[1], "system.posix_acl_access", acl)
'
check "guard_attr: cp -a keeps the mode in the workspace" \
        sbx_policy "$T_TMP/new.yaml" sh -c 'cp -a acl-src acl-dst && test "$(stat -c %a acl-dst/f)" = 640'
check "guard_attr: cp -p of a file works" sbx_policy "$T_TMP/new.yaml" sh -c 'cp -p acl-src/f acl-p && test "$(stat -c %a acl-p)" = 640'
check "guard_attr: an ACL naming a user on a workspace file is set" \
        sbx_policy "$T_TMP/new.yaml" python3 -c "$ACL_PY"'
assert len(os.getxattr(sys.argv[1], "system.posix_acl_access")) == 44' acl-src/f
check_status "guard_attr: an ACL on an outside file refused" 1 \
        sbx_policy "$T_TMP/new.yaml" python3 -c "$ACL_PY" "$OUT/acl-victim"
check_output "the outside file has no ACL" '^none$' python3 -c '
import os, sys
try: os.getxattr(sys.argv[1], "system.posix_acl_access"); print("set")
except OSError: print("none")' "$OUT/acl-victim"
check_status "guard_attr: an ACL on the read-only .git refused" 1 \
        sbx_policy "$T_TMP/new.yaml" python3 -c "$ACL_PY" .git
check_status "guard_attr: a default ACL on a plain file is the kernel's EACCES" 13 \
        sbx_policy "$T_TMP/new.yaml" python3 -c '
import errno, os, struct, sys
acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, 6, 0xffffffff) for t in (1, 4, 0x20))
try: os.setxattr("acl-src/f", "system.posix_acl_default", acl)
except OSError as e: sys.exit(e.errno)'
# (A user ACL entry does not survive a user namespace: its uid reads back
# unmapped there, and writing that is EINVAL under plain bwrap too.)
mkdir -p "$T_WS/acl-plain" && echo x > "$T_WS/acl-plain/f" && chmod 640 "$T_WS/acl-plain/f"
check "guard_attr under fs_bwrap (default profile): cp -a works" \
        sh -c "cd '$T_WS' && HOME='$T_HOME' XDG_CONFIG_HOME='$T_TMP/xdg' '$STK' run --profile default --workspace '$T_WS' -- sh -c 'cp -a acl-plain acl-plain2 && test \$(stat -c %a acl-plain2/f) = 640'"

# ---- chmod through /proc/self/fd/N: the command's own fd (issue 15) ---------
check "guard_attr: chmod /proc/self/fd/N of a workspace file works" \
        sbx_policy "$T_TMP/new.yaml" sh -c 'exec 3> viafd && chmod 600 /proc/self/fd/3 && test "$(stat -c %a viafd)" = 600'
check "guard_attr: chmod /proc/thread-self/fd/N works too" \
        sbx_policy "$T_TMP/new.yaml" sh -c 'exec 3> viafd && chmod 640 /proc/thread-self/fd/3 && test "$(stat -c %a viafd)" = 640'
check_status "guard_attr: chmod /proc/self/fd/N of an outside file refused" 1 \
        sbx_policy "$T_TMP/new.yaml" sh -c 'exec 3< "$1" && chmod 666 /proc/self/fd/3' sh "$OUT/victim"
check_output "the outside file stays 644" '^644$' stat -c %a "$OUT/victim"

# ---- bind() of a unix socket at the top, in a directory made since (issue 15)
# Landlock has no right there; the supervisor binds the command's socket.
mkdir -p "$OUT/sockdir"
check_output "guard_top: a unix socket bound at the workspace top, then reached" '^top.sock connected$' \
        sbx_policy "$T_TMP/new.yaml" python3 -c '
import socket
s = socket.socket(socket.AF_UNIX); s.bind("top.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("top.sock"); print(s.getsockname(), "connected")'
check "guard_top: the socket is the command's file, with its umask" sh -c "test -S '$T_WS/top.sock' && test \$(stat -c %a '$T_WS/top.sock') = 755"
check "guard_top: a socket in a directory made during the run" sbx_policy "$T_TMP/new.yaml" python3 -c '
import os, socket
os.mkdir("run"); s = socket.socket(socket.AF_UNIX); s.bind("run/s.sock"); s.listen(1)
socket.socket(socket.AF_UNIX).connect("run/s.sock")'
check_status "guard_top: bind over an existing name is EADDRINUSE" 98 sbx_policy "$T_TMP/new.yaml" python3 -c '
import socket, sys
try: socket.socket(socket.AF_UNIX).bind("top.sock")
except OSError as e: sys.exit(e.errno)'
check_status "guard_top: bind in the read-only .git is EACCES" 13 sbx_policy "$T_TMP/new.yaml" python3 -c '
import socket, sys
try: socket.socket(socket.AF_UNIX).bind(".git/x.sock")
except OSError as e: sys.exit(e.errno)'
check_status "guard_top: bind outside the writable roots is Landlock's EACCES" 13 sbx_policy "$T_TMP/new.yaml" python3 -c '
import socket, sys
try: socket.socket(socket.AF_UNIX).bind(sys.argv[1] + "/x.sock")
except OSError as e: sys.exit(e.errno)' "$OUT/sockdir"
check "the outside directory got no socket" test ! -e "$OUT/sockdir/x.sock"

# ---- /tmp/NAME under the Landlock stack: refused, and said why once --------
{ t_default_settings off ""; printf 'stack:\n  - { phase: pre-exec,   control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: fs_landlock }\n  - { phase: in-sandbox, control: required, module: fs_guard }\n  - { phase: in-sandbox, control: required, module: net_seccomp }\n'; } > "$T_TMP/ptmp.yaml"
check_output "private_tmp: /tmp/NAME refused, the notice names \$TMPDIR" \
        'private_tmp: /tmp/stk-compat-[0-9]+ refused: .*private temporary directory is \$TMPDIR' \
        sbx_policy "$T_TMP/ptmp.yaml" sh -c 'echo x > /tmp/stk-compat-$$; echo x > /tmp/stk-compat2-$$; true'
check_output "the notice comes once a run" '^1$' sh -c "cd '$T_WS' && HOME='$T_HOME' '$STK' run --policy '$T_TMP/ptmp.yaml' --workspace '$T_WS' -- sh -c 'echo x > /tmp/a-\$\$; echo x > /tmp/b-\$\$; true' 2>&1 | grep -c 'private_tmp:'"
check "\$TMPDIR works there" sbx_policy "$T_TMP/ptmp.yaml" sh -c 'echo x > "$TMPDIR/f" && test -s "$TMPDIR/f"'
