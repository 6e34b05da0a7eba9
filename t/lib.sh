# Shared helpers for shell tests.  A test script sources this file, then
# reports each check with ok / not_ok / skip; t/run-tests.sh counts the lines.
#
#   STK        the stockade binary under test
#   STK_BUILD  the build directory (absolute)
#   T_TMP      a fresh directory for this script, outside /tmp on purpose:
#              the sandbox gives the command a private /tmp, so fixtures there
#              would be invisible rather than protected.
set -u
# Policy files the tests write must pass the trust rule (not group- or
# world-writable), whatever umask the account running make check has.
umask 022
: "${STK_BUILD:?run through make check}"
STK=${STK:-$STK_BUILD/stockade}
T_NAME=$(basename "$0" .sh)
# A build tree under /tmp (a fresh clone there) would put the fixtures under
# the sandbox's private /tmp; /var/tmp is an ordinary read-only host path.
# The base is this user's own (0700, checked: t/private_base.sh), so runs
# of different users never share it; each script gets a fresh T_TMP in it.
# The top of the tree: up from the script to where t/ has its helpers.
T_TOP=$(cd "$(dirname "$0")" && while [ ! -f t/private_base.sh ] && [ "$PWD" != / ]; do cd ..; done && pwd)
. "$T_TOP/t/private_base.sh"
case $STK_BUILD in
/tmp/*) T_BASE=/var/tmp/stockade-tests-$(id -u) ;;
*) T_BASE=$STK_BUILD/t/tmp ;;
esac
t_private_base "$T_BASE"
T_TMP=$(mktemp -d "$T_BASE/$T_NAME.XXXXXX") || { echo "not ok - $T_NAME: no directory in $T_BASE" >&2; exit 2; }
# Searchable like any fixture directory: the base keeps other users out.
chmod 755 "$T_TMP"
trap 't_cleanup' EXIT
T_CLEANUP=":"  # each fixture appends "; kill PID"

t_cleanup() {
        eval "$T_CLEANUP"
        t_clear_caches
        rm -rf "$T_TMP"
}

# The sandbox cache sets (`caches:`) that runs in this script's workspaces
# made, each noted beside it with its workspace: removed with them.
t_clear_caches() {
        _base=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/stockade/sandbox-caches
        for _note in "$_base"/ws-*.workspace; do
                [ -f "$_note" ] || continue
                case $(cat "$_note") in
                "$T_TMP"/*|"$T_TMP") rm -rf "${_note%.workspace}" "$_note" ;;
                esac
        done
}

ok()     { echo "ok - $T_NAME: $1"; }
not_ok() { echo "not ok - $T_NAME: $1${2:+ ($2)}"; }
skip()   { echo "skip - $T_NAME: $1${2:+ ($2)}"; }

# check NAME CMD...: ok when CMD exits 0
check() {
        name=$1; shift
        if "$@" >"$T_TMP/.out" 2>&1; then ok "$name"; else not_ok "$name" "$(tail -c 300 "$T_TMP/.out" | tr '\n' ' ')"; fi
}

# check_status NAME WANT CMD...: ok when CMD exits with status WANT
check_status() {
        name=$1; want=$2; shift 2
        "$@" >"$T_TMP/.out" 2>&1; got=$?
        if [ "$got" = "$want" ]; then ok "$name"; else not_ok "$name" "status $got, want $want: $(tail -c 300 "$T_TMP/.out" | tr '\n' ' ')"; fi
}

# check_output NAME PATTERN CMD...: ok when CMD's stdout+stderr matches the grep -E PATTERN
check_output() {
        name=$1; pat=$2; shift 2
        "$@" >"$T_TMP/.out" 2>&1
        if grep -qE -- "$pat" "$T_TMP/.out"; then ok "$name"; else not_ok "$name" "no /$pat/ in: $(tail -c 300 "$T_TMP/.out" | tr '\n' ' ')"; fi
}

# t_reachable_dir: sets T_REACH, a fresh directory another local user can
# search (0711), for the few fixtures a test runs as another user (serve.sh's
# refused peer, deps.sh's make deps not as root): that user cannot enter
# T_TMP, under this user's private base, and the base stays closed.  A
# random name in the sticky /var/tmp (mktemp: nobody made it first);
# removed at exit.  Put in it only what that user must reach.
t_reachable_dir() {
        T_REACH=$(mktemp -d /var/tmp/stockade-reach.XXXXXX) || { not_ok "a reachable directory in /var/tmp"; exit 2; }
        chmod 711 "$T_REACH"
        T_CLEANUP="$T_CLEANUP; rm -rf '$T_REACH'"
}

# t_helper NAME: a copy of build/t/helpers/NAME the sandbox can see (the
# build tree itself may be under the private /tmp).
t_helper() {
        mkdir -p "$T_TMP/bin"
        cp "$STK_BUILD/t/helpers/$1" "$T_TMP/bin/$1" && echo "$T_TMP/bin/$1"
}

# A fake HOME with credential fixtures, and a git workspace, under T_TMP.
t_make_home() {
        export T_HOME="$T_TMP/home"
        mkdir -p "$T_HOME/.ssh" "$T_HOME/.config"
        echo "FIXTURE-PRIVATE-KEY" > "$T_HOME/.ssh/id_rsa"
        chmod 600 "$T_HOME/.ssh/id_rsa"
}

t_make_workspace() {
        export T_WS="$T_TMP/ws"
        mkdir -p "$T_WS"
        git -C "$T_WS" init -q 2>/dev/null || mkdir -p "$T_WS/.git/hooks"
        echo hello > "$T_WS/file.txt"
}

# t_seed_build DIR: a build dir for a make of its own (an install test with
# another PREFIX), seeded with what that make would build exactly as the
# build tree did, copied with its times so make finds it up to date: the
# escape probes (built without sanitizers in every build) and the modules
# unless they carry ASan.  Only what has the prefix compiled in is rebuilt.
t_seed_build() {
        mkdir -p "$1/t" && cp -pR "$STK_BUILD/t/escape" "$1/t/" 2>/dev/null
        if ! grep -q __asan_init "$STK_BUILD"/modules/*.so 2>/dev/null; then
                cp -pR "$STK_BUILD/modules" "$1/"
        fi
}

# t_wait_for TEST PATH: up to 10 s for a fixture to appear (a loaded CI
# machine can take seconds to start python).
t_wait_for() {
        _i=0
        while [ $_i -lt 100 ] && ! test "$1" "$2"; do sleep 0.1; _i=$((_i + 1)); done
}

# Network fixtures on loopback and in T_TMP, stopped by the cleanup.
# t_tcp_listener: sets T_PORT to a listening 127.0.0.1 port.
t_tcp_listener() {
        python3 -c '
import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8)
open(sys.argv[1],"w").write(str(s.getsockname()[1])); time.sleep(30)' "$T_TMP/.port" &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        t_wait_for -s "$T_TMP/.port"
        T_PORT=$(cat "$T_TMP/.port")
}

# t_unix_listeners PATH...: a server on each unix socket path, answering "hi".
t_unix_listeners() {
        python3 -c '
import socket,sys,threading,time
def serve(p):
    s=socket.socket(socket.AF_UNIX); s.bind(p); s.listen(8); s.settimeout(30)
    try:
        while True:
            c,_=s.accept(); c.sendall(b"hi"); c.close()
    except Exception: pass
for p in sys.argv[1:]:
    threading.Thread(target=serve,args=(p,),daemon=True).start()
time.sleep(30)' "$@" &
        T_CLEANUP="$T_CLEANUP; kill $! 2>/dev/null"
        eval "last=\${$#}"
        t_wait_for -S "$last"
}

# Python probes printing CONNECTED or REFUSED <why>: TCP to 127.0.0.1:ARG,
# a unix socket at ARG.
T_TCP_CONNECT='import socket,sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2); print("CONNECTED")
except OSError as e: print("REFUSED", e)'
T_UNIX_CONNECT='import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("CONNECTED", s.recv(10))
except OSError as e: print("REFUSED", e)'

# t_default_settings [NETWORK] [BEST_EFFORT]: the first lines of a policy
# file with the default profile's settings (fake-HOME credentials, network
# off unless said), for module tests that then add their own stack.  Like
# the shipped profiles, it accepts that a Landlock stack leaves other
# processes' /proc readable (best_effort: proc).
t_default_settings() {
        cat <<EOF
stockade: 1
settings:
  workspace: "\${CWD}"
  write: ["\${WORKSPACE}"]
  private_tmp: true
  git: whole
  protect_defaults: true
  hide: ["~/.ssh", "~/.netrc", "~/.aws"]
  network: { mode: ${1:-off} }
  best_effort: [proc${2:+, $2}]
  approval: never
EOF
}

# Exit codes of stockade itself (stockade(1)).
STK_EXIT_DENIED=240
STK_EXIT_POLICY=241
STK_EXIT_SETUP=242
STK_EXIT_INTEGRITY=243
STK_EXIT_USAGE=244

# The OS seam this stockade was built with (core/os/os.h): linux, or posix
# (macOS, and `make PORTABLE=1` on Linux).
t_backend() { "$STK" --version 2>/dev/null | sed -n 's/.*, \([a-z]*\) build)$/\1/p'; }

# linux_only: a script about the Linux sandboxes skips itself elsewhere.
linux_only() {
        b=$(t_backend)
        [ "$b" = linux ] && return 0
        skip "$T_NAME" "it tests the Linux sandboxes (bwrap, Landlock, seccomp); this is a ${b:-unknown} build"
        exit 0
}

# t_bwrap_cannot_run OUTPUT-FILE: when a run's output says bwrap cannot
# run on this machine at all (no binary, user namespaces blocked), prints
# that cause and succeeds; any other failure is the test's to report, not
# a reason to skip (issue 20: a coverage refusal was once read as "no bwrap").
t_bwrap_cannot_run() {
        grep -oE 'user namespaces are blocked.*|bwrap [^ ]+: .*install bubblewrap.*' "$1" | head -n1 | grep .
}

# open_policy FILE: a policy file of settings that require no enforcement
# (the whole file system writable, network on), for tests of the core and
# of modules that decide rather than confine; stack lines are appended.
open_policy() {
        cat > "$1" <<EOP
stockade: 1
settings:
  workspace: $T_TMP
  write: [/]
  private_tmp: false
  git: off
  protect_defaults: false
  network: { mode: on }
EOP
}
