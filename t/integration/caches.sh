#!/bin/sh
# `caches:` (issue 15): the tools' caches in writable directories of the
# sandbox's own, one set per workspace (or shared), on both stacks; the
# host's caches never written; `stockade caches list|clear`.
. "$(dirname "$0")/../lib.sh"
linux_only
[ -x "$STK" ] || { skip "caches" "no $STK"; exit 0; }

t_make_home
mkdir -p "$T_HOME/.npm" "$T_HOME/.cache/pip"
echo host > "$T_HOME/.npm/host-file"
export XDG_CACHE_HOME="$T_TMP/xdg-cache" XDG_CONFIG_HOME="$T_TMP/xdg-config"
mkdir -p "$T_TMP/wsa" "$T_TMP/wsb" "$XDG_CONFIG_HOME/stockade"
SETS=$XDG_CACHE_HOME/stockade/sandbox-caches
sbx() {  # WORKSPACE PROFILE CMD...
        ws=$1 p=$2; shift 2
        (cd "$ws" && HOME="$T_HOME" "$STK" run --profile "$p" --workspace "$ws" -- "$@")
}
WRITE='test "$npm_config_cache" != "" && echo "$0" > "$npm_config_cache/mark" && echo "$0" > "$PIP_CACHE_DIR/mark" && test -d "$CARGO_HOME"'

for p in default landlock; do
        rm -rf "$SETS"
        check "$p: the tools' cache variables point at a writable set" sbx "$T_TMP/wsa" "$p" sh -c "$WRITE" "$p"
        check_output "$p: what was written is in the workspace's set, on the host" "^$p\$" sh -c "cat '$SETS'/ws-wsa-*/npm/mark"
        check_status "$p: the host's ~/.npm stays read-only" 2 sbx "$T_TMP/wsa" "$p" sh -c 'echo x > "$HOME/.npm/host-file"'
        check_output "$p: the host's cache is unchanged" '^host$' cat "$T_HOME/.npm/host-file"
        check "$p: a run of the same workspace finds it again" sbx "$T_TMP/wsa" "$p" sh -c 'test -f "$npm_config_cache/mark"'
        check "$p: another workspace has a set of its own (no mark there)" \
                sbx "$T_TMP/wsb" "$p" sh -c 'test ! -e "$npm_config_cache/mark" && case $npm_config_cache in */ws-wsb-*) ;; *) exit 1 ;; esac'
done

check "read-only: no cache variables, no set" sbx "$T_TMP/wsa" read-only sh -c 'test -z "${npm_config_cache:-}${PIP_CACHE_DIR:-}"'
check_output "caches list names each set and its workspace" "^ws-wsa-[0-9a-f]{16} .*$T_TMP/wsa\$" "$STK" caches list

# A shared set is the user's explicit choice.
printf 'stockade: 1\nsettings:\n  caches: shared\n' > "$XDG_CONFIG_HOME/stockade/default.yaml"
check "caches: shared in the user layer: one set for every workspace" \
        sbx "$T_TMP/wsb" default sh -c 'case $npm_config_cache in */sandbox-caches/shared/npm) ;; *) exit 1 ;; esac'
rm "$XDG_CONFIG_HOME/stockade/default.yaml"
printf 'stockade: 1\nsettings:\n  caches: shared\n' > "$T_TMP/wsb/.stockade.yaml"
check_status "a project may not widen caches (241)" 241 sbx "$T_TMP/wsb" default true
check_output "the refusal names caches and the file position" '\.stockade\.yaml:3:11: .*"caches"' sbx "$T_TMP/wsb" default true
printf 'stockade: 1\nsettings:\n  caches: off\n' > "$T_TMP/wsb/.stockade.yaml"
check "a project may turn caches off" sbx "$T_TMP/wsb" default sh -c 'test -z "${npm_config_cache:-}"'
printf 'stockade: 1\nsettings:\n  caches: always\n' > "$T_TMP/wsb/.stockade.yaml"
check_output "a bad value is an error naming it" 'bad caches value "always"; expected one of per-workspace, shared, off' \
        sbx "$T_TMP/wsb" default true
rm "$T_TMP/wsb/.stockade.yaml"

# A symlink the command leaves in place of a cache directory is never
# followed: the next run refuses to start, clear removes the link only.
mkdir -p "$T_TMP/victim" && echo keep > "$T_TMP/victim/f"
sbx "$T_TMP/wsa" default sh -c 'rm -rf "$npm_config_cache" && ln -s "$1" "$npm_config_cache"' sh "$T_TMP/victim" > /dev/null 2>&1
check_status "a symlinked cache directory stops the next run (242)" 242 sbx "$T_TMP/wsa" default true
check_output "the message says what and how to fix" 'npm: not a directory .*stockade caches clear' sbx "$T_TMP/wsa" default true
check_output "caches clear clears the workspace's set" 'cleared .*/ws-wsa-' sh -c "cd '$T_TMP/wsa' && '$STK' caches clear"
check_output "the symlink's target is untouched" '^keep$' cat "$T_TMP/victim/f"
check "the next run makes the set anew" sbx "$T_TMP/wsa" default sh -c 'test -d "$npm_config_cache" && test ! -e "$npm_config_cache/mark"'
check_output "caches clear --all" 'cleared .*/ws-wsb-' "$STK" caches clear --all
check_status "caches with a bad subcommand is a usage error" 244 "$STK" caches frobnicate
