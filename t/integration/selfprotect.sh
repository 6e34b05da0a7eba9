#!/bin/sh
# Issue 13, §1: a workspace that holds stockade's own control files.  Broad
# workspaces are refused (241) unless allowed; stockade's configuration,
# state and caches stay read-only from a $HOME workspace even when allowed
# (bwrap and Landlock); policy files pass the trust rule.  Judged from the
# host.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "selfprotect" "no $STK"; exit 0; }
t_make_home
t_make_workspace
export HOME="$T_HOME"
unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME
CFG=$T_HOME/.config/stockade
# a whole policy that needs no module: what `check FILE` can pass anywhere
NOSBX='stockade: 1\nsettings: { write: [/], private_tmp: false, network: { mode: on } }\nstack: []\n'
printf "$NOSBX" > "$T_TMP/nosbx.yaml"
mkdir -p "$CFG"
printf 'stockade: 1\n' > "$CFG/default.yaml"
chmod 644 "$CFG/default.yaml"
in_dir() { d=$1; shift; (cd "$d" && "$STK" "$@"); }

# --- broad workspaces ------------------------------------------------------------
for d in / /etc /usr /var /tmp /home /root "$T_HOME" "$T_TMP"; do
        if ! [ -x "$d" ]; then skip "run in $d is refused (241)" "$d cannot be entered by uid $(id -u)"; continue; fi
        check_status "run in $d is refused (241)" 241 in_dir "$d" run -- true
done
check_output "the message names the reason and the fix" \
        "is your home directory.*--allow-broad-workspace" in_dir "$T_HOME" run -- true
check_output "--workspace \$HOME is refused too" "is your home directory" \
        "$STK" run --workspace "$T_HOME" -- true
check_status "explain in \$HOME is refused too" 241 in_dir "$T_HOME" explain
mkdir -p "$T_HOME/src"
check_status "a subdirectory of \$HOME is a workspace" 0 in_dir "$T_HOME/src" run -- true
check_status "the workspace below it is one" 0 in_dir "$T_WS" run -- true
check_status "--allow-broad-workspace allows it" 0 in_dir "$T_HOME" run --allow-broad-workspace -- true
check_status "full-access runs no sandbox: not refused" 0 in_dir / run --profile full-access -- true
check_status "check FILE judges the file, not the directory" 0 in_dir / check "$T_TMP/nosbx.yaml"
printf 'stockade: 1\nsettings: { allow_broad_workspace: true }\n' > "$CFG/default.yaml"
check_status "allow_broad_workspace in the user layer allows it" 0 in_dir "$T_HOME" run -- true
printf 'stockade: 1\n' > "$CFG/default.yaml"
printf 'stockade: 1\nsettings: { allow_broad_workspace: true }\n' > "$T_WS/.stockade.yaml"
check_output "the project layer may not allow it" "project layer may not allow a broad workspace" \
        in_dir "$T_WS" check
rm -f "$T_WS/.stockade.yaml"

# --- stockade's own files from a $HOME workspace ----------------------------------
for p in default landlock; do
        sbx() { in_dir "$T_HOME" run --profile "$p" --allow-broad-workspace -- sh -c "$1"; }
        sbx 'echo "settings: { network: { mode: on } }" >> ~/.config/stockade/default.yaml' >/dev/null 2>&1
        check "$p: the user layer is unchanged on the host" test "$(cat "$CFG/default.yaml")" = "stockade: 1"
        sbx ': > ~/.config/stockade/proxy.yaml' >/dev/null 2>&1
        check_status "$p: no new user layer file" 1 test -e "$CFG/proxy.yaml"
        sbx 'mkdir -p ~/.local/state/stockade && echo x > ~/.local/state/stockade/approvals' >/dev/null 2>&1
        check_status "$p: no approvals store planted" 1 test -s "$T_HOME/.local/state/stockade/approvals"
        sbx 'echo x > ~/.cache/stockade/fs_bwrap.probe' >/dev/null 2>&1
        check_status "$p: the probe cache is not the command's" 1 grep -qx x "$T_HOME/.cache/stockade/fs_bwrap.probe"
        check "$p: the rest of \$HOME is writable" sbx 'echo y > ~/notes.txt'
        rm -f "$T_HOME/notes.txt"
done
mv "$CFG" "$T_TMP/cfg.away"
in_dir "$T_HOME" run --allow-broad-workspace -- sh -c 'mkdir -p ~/.config/stockade; echo x > ~/.config/stockade/default.yaml' \
        >/dev/null 2>&1
check_status "an absent user layer cannot be created" 1 test -s "$CFG/default.yaml"
rm -rf "$CFG"
mv "$T_TMP/cfg.away" "$CFG"

# --- the trust rule for policy files -----------------------------------------------
chmod 666 "$CFG/default.yaml"
check_status "a 0666 user layer file is refused (241)" 241 in_dir "$T_WS" check
check_output "... naming path and mode" "$CFG/default.yaml is writable by group or others .*mode 0666" \
        in_dir "$T_WS" run -- true
chmod 644 "$CFG/default.yaml"
chmod 777 "$T_HOME/.config"
check_output "a world-writable directory above it is refused" "its directory $T_HOME/.config is writable" \
        in_dir "$T_WS" check
chmod 755 "$T_HOME/.config"
check_status "a sound user layer loads" 0 in_dir "$T_WS" check
printf 'stockade: 1\ninclude: [inc.yaml]\n' > "$T_TMP/p.yaml"
printf "$NOSBX" > "$T_TMP/inc.yaml"
chmod 646 "$T_TMP/inc.yaml"
check_output "an included file is checked too" "inc.yaml is writable by group or others" \
        "$STK" check "$T_TMP/p.yaml"
chmod 644 "$T_TMP/inc.yaml"
if [ "$(id -u)" = 0 ]; then
        chown 65534 "$T_TMP/p.yaml"
        check_output "a file of another user is refused" "owned by neither root nor the user" \
                "$STK" check "$T_TMP/p.yaml"
        chown 0 "$T_TMP/p.yaml"
else
        skip "a file of another user is refused" "needs root to give a file away"
fi
# A fresh directory (mktemp: no name another user could have made first).
sticky=$(mktemp -d /var/tmp/stk-selfprotect.XXXXXX) && T_CLEANUP="$T_CLEANUP; rm -rf '$sticky'"
printf "$NOSBX" > "$sticky/p.yaml"
check_status "a policy under the sticky /var/tmp is trusted" 0 "$STK" check "$sticky/p.yaml"
