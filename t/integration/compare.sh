#!/bin/sh
# stockade compare (issue 7): the escape suite and a startup benchmark under
# several stacks, one matrix.
#
# To stay within ~30 s of `make check`, the six shipped stacks run on a
# subset of the probes that tells them apart, and the full suite runs under
# the control and the default profile only, from an installed tree (which
# has to find its harness, probes and stacks under the prefix).  escape.sh
# judges the probes themselves; this checks that compare reports them.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

[ -x "$STK" ] || { skip "compare" "no $STK"; exit 0; }
[ -x "$STK_BUILD/t/escape/run" ] || { skip "compare" "escape suite not built (make escape-suite)"; exit 0; }
command -v python3 > /dev/null 2>&1 || { skip "compare" "no python3 to read the JSON"; exit 0; }
export STOCKADE_ESCAPE_TMP="$T_TMP"

# py FILE EXPR...: run python on the JSON in FILE (as d); ok if it exits 0
py() {
        f=$1; shift
        python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
$*" "$f"
}

SUBSET=fs_write_outside,fs_chmod_outside,fs_hidden_read,net_tcp4,net_unix_path,kern_personality,kern_int80,cred_env_token
SHIPPED="none bwrap bwrap-seccomp landlock-seccomp bwrap-landlock-seccomp default"
J=$T_TMP/shipped.json
H=$T_TMP/out.html

# --- the shipped stacks, from the build tree -----------------------------------
"$STK" compare --json --html "$H" --runs 3 --only "$SUBSET" > "$J" 2> "$T_TMP/shipped.err"
st=$?
if [ "$st" = 0 ]; then ok "compare --json --html --runs 3 (the shipped stacks) exits 0"
else not_ok "compare --json --html exits 0" "status $st: $(tail -c 300 "$T_TMP/shipped.err")"; exit 0; fi
check "--json is one JSON document" py "$J" "assert d['compare'] == 1"
check "the columns are the shipped stacks, in order" py "$J" \
        "assert [s['name'] for s in d['stacks']] == '$SHIPPED'.split(), [s['name'] for s in d['stacks']]"
check "every stack ran every probe asked for" py "$J" \
        "assert all(len(s['results']) == len('$SUBSET'.split(',')) for s in d['stacks'])"
check "the control escapes wherever the probe applies (ESCAPED or NA, never CONTAINED)" py "$J" \
        "c=d['stacks'][0]; assert c['kind'] == 'control'
bad=[r['probe'] for r in c['results'] if r['result'] not in ('ESCAPED', 'NA')]
assert not bad, bad
assert all(r['detail'] for r in c['results'] if r['result'] == 'NA'), 'an NA without a reason'"
check "default contains every probe that escaped in the control" py "$J" \
        "esc={r['probe'] for r in d['stacks'][0]['results'] if r['result'] == 'ESCAPED'}
dflt={r['probe']: r['result'] for r in d['stacks'][-1]['results']}
assert esc, 'nothing escaped in the control'
bad=[p for p in esc if dflt[p] != 'CONTAINED']
assert not bad, bad"
check "per-stack counts add up to the results" py "$J" \
        "from collections import Counter
for s in d['stacks']:
    c=Counter(r['result'] for r in s['results']); n=s['counts']
    assert (n['contained'], n['escaped'], n['na'], n['total']) == (c['CONTAINED'], c['ESCAPED'], c['NA'], len(s['results'])), (s['name'], n, c)"
check "per-stack startup: median, overhead and ratio to plain exec" py "$J" \
        "assert d['plain_exec']['median_ms'] > 0
for s in d['stacks']:
    t=s['startup']; assert t['runs'] == 3 and t['median_ms'] > 0 and t['ratio'] > 0, (s['name'], t, s['notes'])
    assert abs(t['overhead_ms'] - (t['median_ms'] - d['plain_exec']['median_ms'])) < 0.02 or s['kind'] == 'control', t
assert d['stacks'][0]['startup']['overhead_ms'] == 0 and d['stacks'][0]['startup']['ratio'] == 1"
check "a sandbox costs more than a plain exec" py "$J" \
        "assert all(s['startup']['median_ms'] > d['plain_exec']['median_ms'] for s in d['stacks'][1:]), [s['startup'] for s in d['stacks']]"
# What each stack leaves to others is in its stack file (bwrap alone lists
# net_unix as best_effort): explain's coverage must say so, per module.
check "enforced by: from explain, per property and stack" py "$J" \
        "cov={s['name']: {c['property']: c['enforced_by'] for c in s['coverage']} for s in d['stacks'][1:]}
assert d['stacks'][0]['coverage'] is None
assert cov['bwrap']['net_unix'] == [] and cov['bwrap']['write'] == ['fs_bwrap'], cov['bwrap']
assert 'net_seccomp' in cov['bwrap-seccomp']['net_unix'], cov['bwrap-seccomp']
assert 'fs_bwrap' not in sum(cov['landlock-seccomp'].values(), []), cov['landlock-seccomp']
assert set(cov['bwrap-landlock-seccomp']['write']) == {'fs_bwrap', 'fs_landlock'}, cov['bwrap-landlock-seccomp']"
check "the matrix tells the stacks apart (bwrap alone lets a pathname unix socket through)" py "$J" \
        "r={s['name']: {x['probe']: x['result'] for x in s['results']} for s in d['stacks']}
assert r['bwrap']['net_unix_path'] == 'ESCAPED' and r['bwrap-seccomp']['net_unix_path'] == 'CONTAINED', r"
check "no progress line when stderr is not a terminal" sh -c "! grep -q 'probe 1 of' '$T_TMP/shipped.err'"

# --- the HTML page ---------------------------------------------------------------
if [ -s "$H" ]; then ok "--html writes the page"; else not_ok "--html writes the page" "no $H"; fi
check "the page has the matrix as a <table>" grep -q '<table class="matrix">' "$H"
check "the page has an inline <svg>" grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$H"
n=$(grep -c '<rect class="bar"' "$H")
if [ "$n" = 6 ]; then ok "one bar per stack"; else not_ok "one bar per stack" "$n bars for 6 stacks"; fi
check "the page is self-contained (no script, nothing fetched)" sh -c \
        "! grep -Eiq '<script|<link|src=|@import|url\\(' '$H'"
check "the page is well-formed (every element closed, HTML5 void elements aside)" python3 -c "
import re, sys, xml.dom.minidom
t=open(sys.argv[1]).read().replace('<!DOCTYPE html>', '')
t=re.sub(r'<(meta|br)([^>]*)>', r'<\\1\\2/>', t)
t=re.sub(r'&(ndash|times|middot);', '-', t)
xml.dom.minidom.parseString(t)" "$H"

# --- stacks by name and by file, errors ------------------------------------------
mkdir -p "$T_TMP/my stacks"
cp "$STK_BUILD/compare/settings.yaml" "$T_TMP/my stacks/"
cat > "$T_TMP/my stacks/seccomp-only.yaml" <<EOF
stockade: 1
include: [settings.yaml]
settings:
  best_effort: [write, read_only, hide, private_tmp, net_abstract, process]
stack:
  - { phase: in-sandbox, control: required, module: net_seccomp }
EOF
"$STK" compare --json --runs 1 --only fs_write_outside,net_tcp4 --stack "$T_TMP/my stacks/seccomp-only.yaml" \
        --profile default > "$T_TMP/file.json" 2> "$T_TMP/file.err"
st=$?
if [ "$st" = 0 ]; then ok "--stack FILE (a path with a space) and --profile P"
else not_ok "--stack FILE and --profile P" "status $st: $(tail -c 300 "$T_TMP/file.err")"; fi
check "a stack file's column is named after it, and reports its own results" py "$T_TMP/file.json" \
        "s=d['stacks'][0]; r={x['probe']: x['result'] for x in s['results']}
assert s['name'] == 'seccomp-only' and s['kind'] == 'stack', s['name']
assert r == {'fs_write_outside': 'ESCAPED', 'net_tcp4': 'CONTAINED'}, r"

cat > "$T_TMP/broken.yaml" <<EOF
stockade: 1
include: [$STK_BUILD/compare/settings.yaml]
stack:
  - { phase: pre-exec, control: required, module: no_such_module }
EOF
"$STK" compare --json --runs 1 --only fs_write_outside --stack "$T_TMP/broken.yaml" > "$T_TMP/broken.json" 2>&1
st=$?
if [ "$st" = 0 ]; then ok "a stack that cannot start is a result: exit 0"
else not_ok "a stack that cannot start is a result: exit 0" "status $st"; fi
check "... its column says no result, and its notes say why" py "$T_TMP/broken.json" \
        "s=d['stacks'][0]; assert s['counts']['error'] == 1, s['counts']
assert any('no_such_module' in n or 'no probe gave a result' in n for n in s['notes']), s['notes']
assert 'median_ms' not in s['startup'], s['startup']"

check_status "an unknown shipped stack is a usage error" $STK_EXIT_USAGE "$STK" compare --stack no-such-stack
check_output "... which names where it looked" "compare" "$STK" compare --stack no-such-stack
check_status "--runs must be a number" $STK_EXIT_USAGE "$STK" compare --runs many
check_status "--only takes probe names" $STK_EXIT_USAGE "$STK" compare --only 'fs_write_outside;true'
check_status "no stray arguments" $STK_EXIT_USAGE "$STK" compare extra
check_output "--help" "usage: stockade compare" "$STK" compare --help

# The comparison stacks keep the default profile's settings, so that their
# columns differ only in their modules.
"$STK" explain --json --workspace "$T_TMP" --profile default > "$T_TMP/ex-default.json" 2>&1
"$STK" explain --json --workspace "$T_TMP" --policy "$STK_BUILD/compare/bwrap-seccomp.yaml" > "$T_TMP/ex-stack.json" 2>&1
check "the comparison stacks have the default profile's settings" python3 -c "
import json, sys
def settings(f):
    s=json.load(open(f))['settings']
    val=lambda x: x['value'] if isinstance(x, dict) else x
    return {k: [val(i) for i in v] if isinstance(v, list) else val(v) for k, v in s.items() if k != 'best_effort'}
a, b = settings(sys.argv[1]), settings(sys.argv[2])
assert a == b, {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}" "$T_TMP/ex-default.json" "$T_TMP/ex-stack.json"

# --- a terminal gets a progress line -----------------------------------------------
if command -v script > /dev/null 2>&1; then
        check_output "a progress line on a terminal: stack j of M, probe i of N" \
                'stack 1 of 1 \(none\): probe 1 of 1 \(fs_write_outside\)' \
                script -qec "'$STK' compare --stack none --only fs_write_outside --runs 0" /dev/null
else
        skip "progress on a terminal" "no script(1) to give compare a terminal"
fi

# --- an installed tree ---------------------------------------------------------------
# PREFIX, not DESTDIR: the installed binary looks for its modules, stacks and
# escape suite under the prefix compiled into it.  A make of its own in a
# build dir of its own (as t/integration/sdk.sh), nothing of an outer make.
# The probes are built without sanitizers in every build (TOOL_CFLAGS), so
# the build tree's are exactly what this make would build: copied with their
# times, they are up to date, which saves most of its compiling.
P=$T_TMP/prefix
mkdir -p "$T_TMP/build/t" && cp -pR "$STK_BUILD/t/escape" "$T_TMP/build/t/"
if (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
    make -s -C "$top" -j"$(nproc 2>/dev/null || echo 2)" install PREFIX="$P" B="$T_TMP/build") > "$T_TMP/install.log" 2>&1; then
        ok "make install PREFIX=\$T_TMP/prefix"
else
        not_ok "make install PREFIX=\$T_TMP/prefix" "$(tail -c 400 "$T_TMP/install.log" | tr '\n' ' ')"
        exit 0
fi
for f in libexec/stockade/escape/run libexec/stockade/escape/escape-fixture \
         libexec/stockade/escape/probes/fs_write_outside libexec/stockade/escape/probes/net_unix_path \
         etc/stockade/compare/bwrap.yaml etc/stockade/compare/settings.yaml; do
        if [ -e "$P/$f" ]; then ok "installed $f"; else not_ok "installed $f" "missing"; fi
done
n=$(ls "$P/libexec/stockade/escape/probes" | wc -l)
m=$(ls "$STK_BUILD/t/escape/probes" | wc -l)
if [ "$n" = "$m" ]; then ok "every probe installed ($n)"; else not_ok "every probe installed" "$n of $m"; fi

I=$T_TMP/installed.json
"$P/bin/stockade" compare --json --runs 1 --stack none --profile default > "$I" 2> "$T_TMP/installed.err"
st=$?
if [ "$st" = 0 ]; then ok "the installed stockade compare runs (full suite)"
else not_ok "the installed stockade compare runs" "status $st: $(tail -c 300 "$T_TMP/installed.err")"; exit 0; fi
check "it uses the installed escape suite" py "$I" \
        "assert d['escape_suite'] == '$P/libexec/stockade/escape', d['escape_suite']"
check "installed: the full suite ran" py "$I" \
        "assert len(d['probes']) == $m and all(len(s['results']) == $m for s in d['stacks']), len(d['probes'])"
check "installed: the control escapes on every applicable probe" py "$I" \
        "bad=[r['probe'] for r in d['stacks'][0]['results'] if r['result'] not in ('ESCAPED', 'NA')]
assert not bad, bad"
check "installed: default contains every probe that escaped in the control" py "$I" \
        "esc={r['probe'] for r in d['stacks'][0]['results'] if r['result'] == 'ESCAPED'}
dflt={r['probe']: (r['result'], r['detail']) for r in d['stacks'][1]['results']}
bad={p: dflt[p] for p in esc if dflt[p][0] != 'CONTAINED'}
assert len(esc) >= 30 and not bad, (len(esc), bad)"
"$P/bin/stockade" compare --json --runs 0 --only fs_write_outside --stack bwrap-seccomp > "$T_TMP/inst-stack.json" 2>&1
check "installed: a shipped stack by name is the installed file" py "$T_TMP/inst-stack.json" \
        "s=d['stacks'][0]; assert s['source'] == '$P/etc/stockade/compare/bwrap-seccomp.yaml', s['source']
assert s['results'][0]['result'] == 'CONTAINED', s['results']"
