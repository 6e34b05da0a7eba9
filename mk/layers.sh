#!/bin/sh
# mk/layers.sh [ROOT]: check every #include "..." in ROOT's sources against
# the layering rule of docs/ARCHITECTURE.md (its ```layers block: a folder,
# a colon, the folders it may include from).  Any folder may include its own
# headers by bare name and the SDK (stockade/...); every other include must
# name a folder ("run/core.h" is core/run/core.h, "common/stk_util.h" is
# lib/common/...), one the rule allows.  Prints each violation as
# FILE:LINE: ..., then "N files checked, N violations"; exits 1 on any.
root=${1:-.}
cd "$root" || exit 2
[ -f docs/ARCHITECTURE.md ] || { echo "layers: no $root/docs/ARCHITECTURE.md" >&2; exit 2; }
awk '
BEGIN { n_rules = 0 }
FNR == NR {
        if ($0 ~ /^```layers/) { inblock = 1; next }
        if (inblock && $0 ~ /^```/) { inblock = 0; next }
        if (inblock && $0 ~ /:/) {
                split($0, kv, ":"); dir = kv[1]; gsub(/ /, "", dir)
                allowed[dir] = " " kv[2] " "; order[++n_rules] = dir
        }
        next
}
# the folder an include names, by its first component
function target(h,   first) {
        first = h; sub(/\/.*/, "", first)
        if (first == "stockade") return "SDK"
        if (system("test -d lib/" first) == 0) return "lib/" first
        if (system("test -d core/" first) == 0) return "core/" first
        return "?" first
}
# the rule for a file: the longest listed folder it lies in (modules/* for any module)
function rule_of(f,   d, best, i) {
        best = ""
        for (i = 1; i <= n_rules; i++) {
                d = order[i]
                if (d ~ /\/\*$/) { p = substr(d, 1, length(d) - 1); if (index(f, p) == 1 && length(d) > length(best)) best = d }
                else if (index(f, d "/") == 1 && length(d) > length(best)) best = d
        }
        return best
}
FNR == 1 { files++; r = rule_of(FILENAME); here = FILENAME; sub(/\/[^\/]*$/, "", here) }
/^[ \t]*#[ \t]*include[ \t]*"/ {
        h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
        if (r == "") next
        if (h ~ /^\.\.\// || h ~ /\/\.\.\//) { print FILENAME ":" FNR ": includes \"" h "\": no .. in an include"; bad++; next }
        if (h !~ /\//) {
                if (system("test -f \"" here "/" h "\"") != 0) { print FILENAME ":" FNR ": includes \"" h "\": not a header of its own folder; name its folder"; bad++ }
                next
        }
        t = target(h)
        if (t == "SDK") next
        if (index(allowed[r], " " t " ") == 0 && index(FILENAME, t "/") != 1) {
                print FILENAME ":" FNR ": includes \"" h "\" (" t "), which " r " may not use (docs/ARCHITECTURE.md, layers)"
                bad++
        }
}
END { printf "%d files checked, %d violations\n", files, bad; exit bad ? 1 : 0 }
' docs/ARCHITECTURE.md $(find lib core tools modules -name '*.[ch]' ! -path '*/t/*' ! -path '*/fuzz/*' | sort)
