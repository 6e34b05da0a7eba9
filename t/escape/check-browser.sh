#!/bin/sh
# make check-browser: does the page `stockade compare --html` writes render
# in a real browser?  Headless Chromium takes a screenshot of it, and
# pngcheck (t/escape/pngcheck.c) decodes that: a PNG of the window's size,
# many colours, not one background colour all over, and the bars of the
# SVG chart drawn in their colour.  Not part of `make check`: it needs a
# browser, which it installs from Debian when missing and run as root, and
# otherwise skips, with the apt line to run.
. "$(dirname "$0")/../lib.sh"

FAILED=0
not_ok() { echo "not ok - $T_NAME: $1${2:+ ($2)}"; FAILED=1; }
finish() { [ "$FAILED" = 0 ]; exit $?; }

PNGCHECK=$STK_BUILD/t/escape/pngcheck
BAR=3f6fb0     # .bar in tools/compare/compare_html.c
WIDTH=1280 HEIGHT=1800

browser() {
        for b in /usr/bin/chromium /usr/bin/chromium-browser; do
                [ -x "$b" ] && { echo "$b"; return 0; }
        done
        return 1
}

if ! CHROMIUM=$(browser); then
        if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
                echo "check-browser: installing chromium from Debian (apt-get install chromium)"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium \
                        > "$T_TMP/apt.log" 2>&1 || tail -n 5 "$T_TMP/apt.log"
        fi
        if ! CHROMIUM=$(browser); then
                skip "render the compare page" "no chromium; as root: apt-get install chromium"
                exit 0
        fi
fi
ok "browser: $("$CHROMIUM" --version 2>/dev/null | head -n 1)"

# A page with every shipped stack, on a few probes: the layout is the same.
export STOCKADE_ESCAPE_TMP="$T_TMP"
PAGE=$T_TMP/compare.html
check "stockade compare --html writes the page" "$STK" compare --runs 3 \
        --only fs_write_outside,net_unix_path,kern_personality,fs_chmod_outside --html "$PAGE"
[ -s "$PAGE" ] || finish

# Chromium refuses to run as root with its own sandbox; it renders a local
# page we wrote, with no network.
SANDBOX=
[ "$(id -u)" = 0 ] && SANDBOX=--no-sandbox
SHOT=$T_TMP/compare.png
HOME=$T_TMP timeout 120 "$CHROMIUM" --headless $SANDBOX --disable-gpu --hide-scrollbars \
        --no-first-run --user-data-dir="$T_TMP/profile" --window-size=$WIDTH,$HEIGHT \
        --screenshot="$SHOT" "file://$PAGE" > "$T_TMP/chromium.log" 2>&1
if [ -s "$SHOT" ]; then ok "headless chromium took a screenshot ($(wc -c < "$SHOT") bytes)"
else not_ok "headless chromium took a screenshot" "$(tail -c 300 "$T_TMP/chromium.log" | tr '\n' ' ')"; finish; fi

if ! stats=$("$PNGCHECK" "$SHOT" "$BAR" 2> "$T_TMP/png.err"); then
        not_ok "the screenshot is a PNG" "$(cat "$T_TMP/png.err")"
        finish
fi
ok "the screenshot is a PNG: $stats"
# stats: WIDTHxHEIGHT colours=N background=RRGGBB other=P% 3f6fb0=K
set -- $stats
size=$1 colours=${2#colours=} other=${4#other=} bars=${5#*=}
other=${other%\%}
colours=${colours%+}
check "the window's size ($WIDTH x $HEIGHT)" test "$size" = "${WIDTH}x$HEIGHT"
check "more than a few colours (text, cells, bars): $colours" test "$colours" -ge 32
if awk -v p="$other" 'BEGIN { exit !(p >= 2) }'; then ok "not one colour all over: $other% is not the background"
else not_ok "not one colour all over" "only $other% differs from the background"; fi
# five sandboxes cost something: five bars of 1 px or more, 20 px high
check "the SVG's bars are drawn ($bars pixels of #$BAR)" test "$bars" -ge 100
check "the screenshot is more than a blank page's size" test "$(wc -c < "$SHOT")" -ge 20000
finish
