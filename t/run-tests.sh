#!/bin/sh
# Run every test: the CUnit binaries, then the shell tests of t/ and of each
# module; the last line is "N passed, N failed, N skipped" for CI.
: "${STK_BUILD:?}"
here=$(cd "$(dirname "$0")/.." && pwd)
log="$STK_BUILD/t/test.log"
mkdir -p "$STK_BUILD/t"
: > "$log"
passed=0 failed=0 skipped=0

count_cunit() {  # from CUnit's "asserts/tests" summary lines
        out=$1
        run=$(awk '$1=="tests"{print $3}' "$out" | tail -n1)
        bad=$(awk '$1=="tests"{print $5}' "$out" | tail -n1)
        if [ -z "$run" ]; then failed=$((failed + 1)); echo "not ok - $2 did not finish"; return; fi
        passed=$((passed + run - bad)); failed=$((failed + bad))
}

for bin in "$STK_BUILD"/t/unit-tests "$STK_BUILD"/t/*-unit; do
        [ -x "$bin" ] || continue
        echo "== $(basename "$bin")"
        "$bin" > "$STK_BUILD/t/cunit.out" 2>&1
        cat "$STK_BUILD/t/cunit.out" >> "$log"
        grep -E '^ *(Test:.*FAILED|Suite|Run Summary|  *(suites|tests|asserts) )|FAILED|^ +[0-9]+\. ' "$STK_BUILD/t/cunit.out" | grep -v '...passed' || true
        count_cunit "$STK_BUILD/t/cunit.out" "$(basename "$bin")"
done

# The shell tests run without a controlling terminal: the shipped profiles
# ask on it (approval_tty), and a `make check` typed in a terminal must not
# stop at a question meant for a test.  The tests that want a terminal make
# one (a pty of their own).
nottyrun=""
command -v setsid > /dev/null 2>&1 && nottyrun="setsid -w"
for t in "$here"/t/integration/*.sh "$here"/modules/*/t/*.sh; do
        [ -f "$t" ] || continue
        echo "== ${t#$here/}"
        out="$STK_BUILD/t/sh.out"
        STK_BUILD="$STK_BUILD" timeout 300 $nottyrun sh "$t" > "$out" 2>&1 < /dev/null; rc=$?
        cat "$out" >> "$log"
        grep -E '^(ok|not ok|skip) - ' "$out" | grep -v '^ok - ' || true
        p=$(grep -c '^ok - ' "$out"); f=$(grep -c '^not ok - ' "$out"); s=$(grep -c '^skip - ' "$out")
        if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
                echo "not ok - ${t#$here/} exited $rc"; tail -n 5 "$out"; f=1
        fi
        echo "   $p ok, $f failed, $s skipped"
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "(full log: $log)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
