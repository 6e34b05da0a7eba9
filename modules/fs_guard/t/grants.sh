#!/bin/sh
# guard_top's CONTINUE where Landlock grants writes (fs_guard_grant.c):
# beneath an entry of the workspace that carried a write rule when the run
# began, the kernel makes the file itself.  What a rename or removal takes
# away must be forgotten, or the kernel would be asked where Landlock now
# refuses (EACCES); and a protected path is refused first, even beneath a
# granted entry (a repository a warm session's earlier command made).
. "$(dirname "$0")/../../../t/lib.sh"

CASES="granted-subdir renamed-away removed-and-made-again top-file-replaced moved-out moved-in \
symlinked-dir warm-new-repository-protected warm-granted-subdir"
NEEDS="python3"
. "$(dirname "$0")/landlock.inc"
mkdir -p "$T_WS/src/deep" "$T_WS/lib" "$T_WS/gone" "$T_WS/real"
echo v1 > "$T_WS/notes.md"
ln -s real "$T_WS/link"

check "granted-subdir" ll sh -c 'for i in 1 2 3; do echo x > src/f$i; done && mkdir src/d && echo y > src/d/g && test -s src/d/g'
# lib carried the rule; lib.old has it now, and the new lib has none.
check "renamed-away" ll sh -c 'mv lib lib.old && mkdir lib && echo x > lib/new && mkdir lib/sub && echo y > lib/sub/f && test -s lib/sub/f'
check "removed-and-made-again" ll sh -c 'rmdir gone && mkdir gone && echo x > gone/f && test -s gone/f'
# sed -i renames a new file over notes.md: the rule on the old one is gone.
check "top-file-replaced" ll sh -c 'sed -i s/v1/v2/ notes.md && echo v3 >> notes.md && grep -q v3 notes.md'
# src/deep had no rule of its own (src had): at the top it has none.
check "moved-out" ll sh -c 'mv src/deep top-deep && echo x > top-deep/f && test -s top-deep/f'
# A directory made at the top (no rule) moved beneath src (a rule).
check "moved-in" ll sh -c 'mkdir newtop && mv newtop src/newtop && echo x > src/newtop/f && test -s src/newtop/f'
check "symlinked-dir" ll sh -c 'echo x > link/f && test -s real/f'

# A warm session plans once (fs_landlock's rules, this snapshot) and
# scans the protected paths again before each command.
command -v git >/dev/null || { skip "warm-new-repository-protected" "git missing"; skip "warm-granted-subdir" "git missing"; exit 0; }
t_reachable_dir
SOCK=$T_REACH/run/s.sock
C="$T_TOP/t/integration/serve/client.py"
HOME="$T_HOME" XDG_CONFIG_HOME="$T_TMP/xdg" "$STK" serve --profile landlock --socket "$SOCK" --workspace "$T_WS" \
        2> "$T_TMP/server.err" &
SERVER=$!
T_CLEANUP="$T_CLEANUP; kill $SERVER 2>/dev/null"
t_wait_for -S "$SOCK"
call() { (cd "$T_WS" && timeout 60 python3 "$C" "$SOCK" -- "$@"); }
call git init -q src/sub > "$T_TMP/warm1.out" 2>&1
git -C "$T_WS/src/sub" rev-parse --git-dir > /dev/null 2>&1 || not_ok "warm: git init src/sub" "$(tail -c 300 "$T_TMP/warm1.out")"
cp "$T_WS/src/sub/.git/config" "$T_TMP/config.before"
call sh -c 'echo "[core] hooksPath = /tmp" >> src/sub/.git/config' > "$T_TMP/warm2.out" 2>&1
if cmp -s "$T_WS/src/sub/.git/config" "$T_TMP/config.before"; then
        ok "warm-new-repository-protected"
else
        not_ok "warm-new-repository-protected" "the next command wrote the new repository's config"
fi
check "warm-granted-subdir" call sh -c 'echo x > src/warm && test -s src/warm'
