#!/bin/sh
# What stockade needs, checked by what it is (a command, a pkg-config
# module), not by asking a package manager, so the check works in pbuilder,
# mock or a distribution without dpkg; the package manager is only asked
# for its package names, and only `install` runs it.
#
#   sh mk/deps.sh build         check the build dependencies; print the
#                               pkg-config flags as make lines ($(B)/pkg.mk),
#                               or name the missing packages and fail
#   sh mk/deps.sh install       install what the build, `make check` and the
#                               sandbox need (root), else print the command
#   sh mk/deps.sh install-raw PKG...   install these package names as they
#                               are (make fuzz: Debian's clang runtime)
#
# Only `make deps`, and `make demo` / `make check` unless DEPS=0, install.
set -u
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

# manager: apt, dnf, pacman, apk, brew or none
manager() {
        if [ "$(uname -s)" = Darwin ]; then echo brew; return; fi
        for m in apt-get:apt dnf:dnf pacman:pacman apk:apk; do
                command -v "${m%%:*}" > /dev/null 2>&1 && { echo "${m#*:}"; return; }
        done
        echo none
}

# package MANAGER WHAT: the package that provides WHAT
package() {
        case $1:$2 in
        apt:cc) echo build-essential ;;      dnf:cc) echo gcc ;;
        pacman:cc) echo base-devel ;;        apk:cc) echo build-base ;;
        brew:cc) echo "(xcode-select --install)" ;;
        apt:pkg-config) echo pkg-config ;;   dnf:pkg-config) echo pkgconf-pkg-config ;;
        brew:pkg-config) echo pkg-config ;;  *:pkg-config) echo pkgconf ;;
        apt:yaml-0.1) echo libyaml-dev ;;    dnf:yaml-0.1) echo libyaml-devel ;;
        apk:yaml-0.1) echo yaml-dev ;;       *:yaml-0.1) echo libyaml ;;
        apt:json-c) echo libjson-c-dev ;;    dnf:json-c) echo json-c-devel ;;
        apk:json-c) echo json-c-dev ;;       *:json-c) echo json-c ;;
        apt:libseccomp) echo libseccomp-dev ;; dnf:libseccomp) echo libseccomp-devel ;;
        apk:libseccomp) echo libseccomp-dev ;; *:libseccomp) echo libseccomp ;;
        apt:libcurl) echo libcurl4-openssl-dev ;; dnf:libcurl) echo libcurl-devel ;;
        apk:libcurl) echo curl-dev ;;        *:libcurl) echo curl ;;
        apt:cunit) echo libcunit1-dev ;;     dnf:cunit) echo CUnit-devel ;;
        apk:cunit) echo cunit-dev ;;         *:cunit) echo cunit ;;
        *:bwrap) echo bubblewrap ;;
        *) echo "$2" ;;
        esac
}

# install_command MANAGER PKG...: the exact command line
install_command() {
        m=$1; shift
        case $m in
        apt) echo "apt-get install -y --no-install-recommends $*" ;;
        dnf) echo "dnf install -y $*" ;;
        pacman) echo "pacman -S --needed --noconfirm $*" ;;
        apk) echo "apk add $*" ;;
        brew) echo "brew install $*" ;;
        esac
}

have_module() { "$PKG_CONFIG" --exists "$1" 2> /dev/null; }

# The Linux build links libseccomp and libcurl; elsewhere (macOS) the
# modules that use them are not built and curl is the system's.
build_modules() {
        if [ "$(uname -s)" = Linux ]; then echo "yaml-0.1 json-c libseccomp libcurl"; else echo "yaml-0.1 json-c"; fi
}

# missing WHAT...: those of WHAT that are absent (cc, pkg-config and bwrap
# are commands, the rest pkg-config modules)
missing() {
        for w in "$@"; do
                case $w in
                cc) command -v "${CC%% *}" > /dev/null 2>&1 || echo cc ;;
                pkg-config) command -v "$PKG_CONFIG" > /dev/null 2>&1 || echo pkg-config ;;
                bwrap) command -v bwrap > /dev/null 2>&1 || echo bwrap ;;
                *) command -v "$PKG_CONFIG" > /dev/null 2>&1 && ! have_module "$w" && echo "$w" ;;
                esac
        done
        return 0
}

packages_for() {  # packages_for MANAGER WHAT...
        m=$1; shift
        for w in "$@"; do package "$m" "$w"; done | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# Which packages, for each manager, so the message helps on any system.
explain_missing() {
        m=$1; shift
        echo "missing build dependencies: $*" >&2
        if [ "$m" != none ]; then
                echo "  install them with: $(install_command "$m" $(packages_for "$m" "$@"))" >&2
        else
                for pm in apt dnf pacman apk brew; do
                        echo "  $pm: $(packages_for "$pm" "$@")" >&2
                done
        fi
        echo "  (or run: make deps)" >&2
}

check_build() {
        m=$(manager)
        absent=$(missing cc pkg-config $(build_modules))
        if [ -n "$absent" ]; then
                explain_missing "$m" $absent
                exit 1
        fi
        echo "PKG_CFLAGS := $("$PKG_CONFIG" --cflags yaml-0.1 json-c)"
        echo "PKG_LIBS := $("$PKG_CONFIG" --libs yaml-0.1 json-c)"
}

run_install() {  # run_install MANAGER PKG...
        m=$1; shift
        cmd=$(install_command "$m" "$@")
        if [ "$(id -u)" != 0 ]; then
                echo "deps: missing packages; run as root:" >&2
                echo "  $cmd" >&2
                exit 1
        fi
        echo "deps: $cmd"
        case $m in
        apt) export DEBIAN_FRONTEND=noninteractive
             apt-get update -qq && $cmd > /dev/null ;;
        *) $cmd ;;
        esac || { echo "deps: failed: $cmd" >&2; exit 1; }
}

install_all() {
        m=$(manager)
        want="cc pkg-config $(build_modules) cunit"
        [ "$(uname -s)" = Linux ] && want="$want bwrap"
        absent=$(missing $want)
        # pkg-config itself missing: the modules cannot be checked yet,
        # so all of them are asked for (the manager skips what is there).
        case " $absent " in *" pkg-config "*) absent="$want" ;; esac
        [ -z "$absent" ] && { echo "deps: everything is installed"; exit 0; }
        if [ "$m" = none ]; then
                explain_missing none $absent
                exit 1
        fi
        # brew has no root: Homebrew refuses to run as root.
        if [ "$m" = brew ]; then brew install $(packages_for brew $absent); exit $?; fi
        run_install "$m" $(packages_for "$m" $absent)
}

case ${1:-} in
build) check_build ;;
install) install_all ;;
install-raw) shift; m=$(manager)
        [ "$m" = none ] && { echo "deps: no package manager; install: $*" >&2; exit 1; }
        run_install "$m" "$@" ;;
*) echo "usage: sh mk/deps.sh build | install | install-raw PKG..." >&2; exit 2 ;;
esac
