#!/bin/sh
# Check the Debian build and run dependencies; install the missing ones with
# apt-get when root, else print the exact command and fail.
# macOS: Homebrew's names for what the build needs (the rest is the
# system's: sandbox-exec, libdl in libSystem, curl).
if [ "$(uname -s)" = Darwin ]; then
        pkg-config --exists yaml-0.1 json-c 2>/dev/null && exit 0
        echo "deps: missing libyaml, json-c or pkg-config; install them with:" >&2
        echo "  brew install pkg-config libyaml json-c cunit   # cunit: for make check" >&2
        exit 1
fi
missing=
for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "deps: not a Debian system; install the equivalents of:$missing" >&2
        exit 1
fi
if [ "$(id -u)" = 0 ]; then
        echo "deps: installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
                echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
        exit 0
fi
echo "deps: missing packages; run as root:" >&2
echo "  apt-get install -y$missing" >&2
exit 1
