# What t/compat/run shares with the workloads (sourced; not a test itself).
# Each profile gets a base directory outside /tmp (the sandbox's /tmp is
# private), a fake HOME and XDG dirs there, and for `proxy` a local origin
# on 127.0.0.1 that the proxy reaches through its resolve map.

# The base is this user's own, checked (t/private_base.sh).
. "$here/../private_base.sh"
case ${STK_BUILD:-/tmp} in
/tmp/*) CX_TOP=/var/tmp/stockade-compat-$(id -u) ;;
*) CX_TOP=$STK_BUILD/t/tmp ;;
esac
t_private_base "$CX_TOP"
CX_BASE=$(mktemp -d "$CX_TOP/compat.XXXXXX") || exit 2
chmod 755 "$CX_BASE"
CX_PIDS=
# CX_KEEP=1 keeps the workspaces and outputs for a look.
trap 'for p in $CX_PIDS; do kill "$p" 2>/dev/null; done; [ -n "${CX_KEEP:-}" ] && echo "kept $CX_BASE" >&2 || rm -rf "$CX_BASE"' EXIT
# A copy of the workloads the sandbox can read wherever the tree is.
cp -R "$here/w" "$CX_BASE/w"
export GIT_AUTHOR_NAME=compat GIT_AUTHOR_EMAIL=compat@example.invalid
export GIT_COMMITTER_NAME=compat GIT_COMMITTER_EMAIL=compat@example.invalid
export LC_ALL=C.UTF-8 TZ=UTC
# The fake HOME hides rustup's toolchains: name the real ones (read only).
[ -z "${RUSTUP_HOME:-}" ] && [ -d "${HOME:-/nonexistent}/.rustup" ] && export RUSTUP_HOME="$HOME/.rustup"

cx_line() {  # KIND PROFILE NAME [DETAIL]
        echo "$1 - compat/$2: $3${4:+ ($4)}"
}

# The stack that took effect, from the run's audit record.
cx_stack() {
        [ -s "$1" ] || { echo "none (no audit record)"; return; }
        python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") != "run": continue
    used = [l["module"] for l in r["stack"] if l["phase"] == "pre-exec" and l["usable"] and l["module"].startswith("fs_")]
    print(used[0] if used else "?"); break
else: print("?")' "$1" 2>/dev/null || echo "?"
}

# The errno texts the command met (strerror wording) and stockade's notices.
cx_errnos() {
        grep -ohE "(Operation not permitted|Permission denied|Read-only file system|No such file or directory|Function not implemented|Address family not supported[a-z ]*|Network is unreachable|Connection refused|Bad file descriptor|Too many levels of symbolic links|Invalid argument|Operation not supported|Not a directory|Errno [0-9]+[^'\"]*|E[A-Z]{3,}|stockade: .{0,120})" "$@" 2>/dev/null |
                sort | uniq -c | sort -rn | head -4 | sed 's/^ *//' | tr '\n' ';'
}

cx_profile_start() {
        P=$1
        CX_P=$CX_BASE/$P
        mkdir -p "$CX_P/home" "$CX_P/config/stockade" "$CX_P/cache" "$CX_P/fixtures"
        CX_HOME=$CX_P/home
        CX_POLICY=
        cx_fixtures "$CX_P/fixtures"
        [ "$P" = proxy ] && cx_proxy_start
        return 0
}

cx_profile_end() { :; }

# Outside-made fixtures the workloads share: a wheel, an npm package
# tarball, a bare git repository.
cx_fixtures() {
        f=$1
        command -v python3 >/dev/null && python3 "$here/fixtures.py" wheel "$f" >/dev/null
        if command -v npm >/dev/null; then
                mkdir -p "$f/npm-pkg/bin" &&
                printf '{"name":"cxpkg","version":"1.0.0","main":"index.js","bin":{"cxbin":"bin/cxbin.js"}}\n' > "$f/npm-pkg/package.json" &&
                printf 'module.exports = () => "cxpkg ok";\n' > "$f/npm-pkg/index.js" &&
                printf '#!/usr/bin/env node\nconsole.log("cxbin ok");\n' > "$f/npm-pkg/bin/cxbin.js" &&
                chmod +x "$f/npm-pkg/bin/cxbin.js" &&
                (cd "$f" && HOME=$CX_HOME npm pack ./npm-pkg >/dev/null 2>&1)
        fi
        if command -v git >/dev/null; then
                git init -q --bare "$f/bare.git" && git init -q "$f/src" && echo one > "$f/src/one" &&
                git -C "$f/src" add one && git -C "$f/src" commit -qm one && git -C "$f/src" push -q "$f/bare.git" HEAD:refs/heads/main 2>/dev/null &&
                git -C "$f/bare.git" symbolic-ref HEAD refs/heads/main && git -C "$f/bare.git" update-server-info
        fi
        chmod -R a+rX "$f"
}

# proxy: an origin on 127.0.0.1 serving the fixtures (a pip simple index, a
# dumb-http git repository, an npm registry), and the proxy profile with a
# resolve map and that one private address allowed.
cx_proxy_start() {
        python3 "$here/fixtures.py" serve "$CX_P/fixtures" > "$CX_P/origin.port" 2> "$CX_P/origin.log" &
        CX_PIDS="$CX_PIDS $!"
        i=0; while [ $i -lt 100 ] && ! [ -s "$CX_P/origin.port" ]; do sleep 0.1; i=$((i + 1)); done
        CX_PORT=$(cat "$CX_P/origin.port")
        CX_POLICY=$CX_P/proxy.yaml
        sed -e "0,/module: net_proxy }/s//module: net_proxy, args: { ports: [\"80\", \"443\", \"$CX_PORT\"], resolve: [\"origin.test:127.0.0.1\"], allow_private: [127.0.0.1\/32] } }/" \
            -e 's/allow: \[\], deny: \[\] }/allow: [origin.test], deny: [] }/' \
            -e 's/^  approval: on-request/  approval: never/' "$root/etc/proxy.yaml" > "$CX_POLICY"
        export CX_PORT
}

# cx_workload PROFILE FILE: run one; sets CX_RESULT (ok, skip, fail).
cx_workload() {
        P=$1 w=$2 name=$(basename "$2" .sh)
        NEEDS= DENIED= ONLY= INPUT= SANDBOXED= KNOWN=
        unset -f setup inside verify 2>/dev/null
        verify() { [ "$RC" = 0 ]; }
        setup() { :; }
        . "$w"
        CX_RESULT=skip
        if [ -n "$ONLY" ]; then case " $ONLY " in *" $P "*) ;; *) return 0 ;; esac; fi
        if [ "$P" = none ] && [ -n "$SANDBOXED" ]; then
                cx_line skip "$P" "$name" "a property of the sandbox: $SANDBOXED"; return 0
        fi
        for t in $NEEDS; do
                command -v "$t" >/dev/null 2>&1 || { cx_line skip "$P" "$name" "no $t here (77)"; return 0; }
        done
        ws=$CX_P/ws-$name
        mkdir -p "$ws" && cd "$ws" || { CX_RESULT=fail; cx_line "not ok" "$P" "$name" "no workspace"; return 0; }
        git init -q . && echo hello > file.txt && printf 'line1\nline2\n' > notes.txt &&
                git add file.txt notes.txt && git commit -qm init
        F=$CX_P/fixtures HOME=$CX_HOME setup > "$CX_P/$name.setup" 2>&1 ||
                { CX_RESULT=fail; cx_line "not ok" "$P" "$name" "setup failed: $(tail -c 200 "$CX_P/$name.setup" | tr '\n' ' ')"; cd /; return 0; }
        OUT=$CX_P/$name.out ERR=$CX_P/$name.err audit=$CX_P/$name.audit
        stdin=/dev/null; [ -n "$INPUT" ] && stdin=$ws/$INPUT
        cx_run "$P" "$ws" "$CX_BASE/w/$name.sh" < "$stdin" > "$OUT" 2> "$ERR"
        RC=$?
        cx_judge "$P" "$name"
        cd /
}

# Run the workload's inside() under profile P (or bare, for --none).
cx_run() {
        set -- "$1" "$2" "$3"
        if [ "$1" = none ]; then
                env HOME="$CX_HOME" XDG_CONFIG_HOME="$CX_P/config" XDG_CACHE_HOME="$CX_P/cache" F="$CX_P/fixtures" \
                        timeout -s KILL 300 sh -c '. "$1"; inside' sh "$3"
                return
        fi
        if [ -n "$CX_POLICY" ]; then sel="--policy $CX_POLICY"; else sel="--profile $1"; fi
        # shellcheck disable=SC2086
        env HOME="$CX_HOME" XDG_CONFIG_HOME="$CX_P/config" XDG_CACHE_HOME="$CX_P/cache" F="$CX_P/fixtures" \
                timeout -s KILL 300 "$STK" run $sel --workspace "$2" --audit "$audit" -- sh -c '. "$1"; inside' sh "$3"
}

cx_denied_pattern() {  # the pattern DENIED gives for profile $1, or nothing
        for d in $DENIED; do
                case $d in "$1":*) echo "${d#*:}"; return ;; esac
        done
}

cx_known() {  # the KNOWN reason for profile $1, or nothing
        printf '%s\n' "$KNOWN" | sed -n "s/^$1: //p"
}

cx_judge() {
        P=$1 name=$2
        pat=$(cx_denied_pattern "$P")
        if [ "$RC" = 77 ]; then
                CX_RESULT=skip; cx_line skip "$P" "$name" "$(tail -n1 "$ERR")"; return
        fi
        if [ -n "$pat" ]; then
                if [ "$RC" != 0 ] && { [ "$pat" = - ] || grep -qE -- "$pat" "$OUT" "$ERR"; }; then
                        CX_RESULT=ok; cx_line ok "$P" "$name" "refused by intent, the message names /$pat/"
                else
                        CX_RESULT=fail
                        cx_line "not ok" "$P" "$name" "expected a refusal naming /$pat/, got status $RC: $(tail -c 200 "$ERR" | tr '\n' ' ')"
                fi
                return
        fi
        if verify > "$CX_P/$name.verify" 2>&1; then
                CX_RESULT=ok; cx_line ok "$P" "$name"
                return
        fi
        why=$(cx_known "$P")
        if [ -n "$why" ]; then
                CX_RESULT=skip
                cx_line skip "$P" "$name" "known breakage, t/compat/README.md: $why; status $RC, errno: $(cx_errnos "$ERR" "$OUT")"
                return
        fi
        CX_RESULT=fail
        cx_line "not ok" "$P" "$name" "status $RC; command: $(sed -n '/^inside()/,/^}/p' "$w" | sed '1d;$d' | head -3 | tr -s ' \n' ' ' | cut -c1-120); stack: $(cx_stack "$audit"); errno: $(cx_errnos "$ERR" "$OUT"); verify: $(tail -c 120 "$CX_P/$name.verify" | tr '\n' ' ')"
}
