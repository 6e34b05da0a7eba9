#!/bin/sh
# Every example of README.md and of the man pages, run (issue 13 §6): see
# t/doctest.py for the markers each example carries.
. "$(dirname "$0")/../lib.sh"
linux_only

[ -x "$STK" ] || { skip "doctest" "no $STK"; exit 0; }
command -v python3 > /dev/null 2>&1 || { skip "doctest" "no python3"; exit 0; }
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
export T_TMP
python3 t/doctest.py "$(dirname "$STK")" "$src" README.md man/*.[0-9] modules/*/*.[0-9]
