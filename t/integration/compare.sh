#!/bin/sh
# stockade compare (issue 7): the escape suite and a startup benchmark under
# several stacks, one matrix.
#
# To keep `make check` short, the six shipped stacks run on a few probes
# that tell them apart (and one that is n/a here), and the whole suite runs
# under the control and the default profile only, from an installed tree
# (which has to find its harness, probes and stacks under the prefix).
# escape.sh judges the probes themselves; this checks what compare makes of
# them.
. "$(dirname "$0")/../lib.sh"
linux_only
top=$(cd "$(dirname "$0")/../.." && pwd)

[ -x "$STK" ] || { skip "compare" "no $STK"; exit 0; }
[ -x "$STK_BUILD/t/escape/run" ] || { skip "compare" "escape suite not built (make escape-suite)"; exit 0; }
command -v python3 > /dev/null 2>&1 || { skip "compare" "no python3 to read the JSON"; exit 0; }
export STOCKADE_ESCAPE_TMP="$T_TMP"

# pychecks FILE: runs the Python on stdin with d = the JSON in FILE; each
# t(NAME, FN) in it is "ok - NAME" if FN() raises nothing.  One Python a
# document: an interpreter start costs more than the checks.
pychecks() {
        python3 - "$1" "$T_NAME" <<EOF
import json, sys
from collections import Counter
def t(name, fn):
    try:
        fn()
        print("ok - %s: %s" % (sys.argv[2], name))
    except Exception as e:
        print("not ok - %s: %s (%s)" % (sys.argv[2], name, repr(e)[:400]))
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("not ok - %s: %s is JSON (%s)" % (sys.argv[2], sys.argv[1], repr(e)[:200]))
    sys.exit(0)
def holds(cond, why=''):
    assert cond, why
def by_name(name):
    return [s for s in d['stacks'] if s['name'] == name][0]
def results(name):
    return {r['probe']: r['result'] for r in by_name(name)['results']}
def coverage(name):
    return {c['property']: c['enforced_by'] for c in by_name(name)['coverage']}
# A stack that cannot start on this machine (no user namespaces for bwrap,
# no Landlock) has no result anywhere: what needs it is a skip, with why.
def starts(name):
    c = by_name(name)['counts']
    return c['error'] < c['total']
def where(names, name, fn):
    down = [n for n in names if not starts(n)]
    if not down:
        return t(name, fn)
    why = "; ".join(by_name(down[0])['notes'])[:200]
    print("skip - %s: %s (%s cannot start here: %s)" % (sys.argv[2], name, ", ".join(down), why))
$(cat)
EOF
}

SUBSET=fs_write_outside,fs_chmod_outside,net_unix_path,kern_personality,kern_int80
SHIPPED="none bwrap bwrap-seccomp landlock-seccomp bwrap-landlock-seccomp default"
J=$T_TMP/shipped.json
H=$T_TMP/out.html

# --- the shipped stacks, from the build tree -----------------------------------
"$STK" compare --json --html "$H" --runs 3 --only "$SUBSET" > "$J" 2> "$T_TMP/shipped.err"
st=$?
if [ "$st" = 0 ]; then ok "compare --json --html --runs 3 (the shipped stacks) exits 0"
else not_ok "compare --json --html exits 0" "status $st: $(tail -c 300 "$T_TMP/shipped.err")"; exit 0; fi
pychecks "$J" <<EOF
t("the columns are the shipped stacks, in order",
  lambda: holds([s['name'] for s in d['stacks']] == "$SHIPPED".split(), [s['name'] for s in d['stacks']]))
def every_probe():
    for s in d['stacks']:
        assert sorted(results(s['name'])) == sorted("$SUBSET".split(',')), s['name']
t("every stack ran every probe asked for", every_probe)
def control():
    c = d['stacks'][0]
    assert c['kind'] == 'control', c['kind']
    bad = [r['probe'] for r in c['results'] if r['result'] not in ('ESCAPED', 'NA')]
    assert not bad, bad
    assert all(r['detail'] for r in c['results'] if r['result'] == 'NA'), 'an NA without a reason'
    assert 'ESCAPED' in results('none').values()
t("the control escapes wherever the probe applies (ESCAPED or NA, never CONTAINED)", control)
def default_contains():
    escaped = [p for p, r in results('none').items() if r == 'ESCAPED']
    bad = [p for p in escaped if results('default')[p] != 'CONTAINED']
    assert not bad, bad
where(['default'], "default contains every probe that escaped in the control", default_contains)
def counts():
    for s in d['stacks']:
        c, n = Counter(r['result'] for r in s['results']), s['counts']
        assert (n['contained'], n['escaped'], n['na'], n['error'], n['total']) == \
               (c['CONTAINED'], c['ESCAPED'], c['NA'], c['ERROR'], len(s['results'])), (s['name'], n, c)
t("per-stack counts, adding up to the results", counts)
def startup():
    plain = d['plain_exec']['median_ms']
    assert plain > 0, plain
    for s in [s for s in d['stacks'] if starts(s['name'])]:
        u = s['startup']
        assert u['runs'] == 3 and u['median_ms'] > 0 and u['ratio'] > 0, (s['name'], u, s['notes'])
        assert abs(u['overhead_ms'] - (u['median_ms'] - plain)) < 0.02 or s['kind'] == 'control', u
    assert d['stacks'][0]['startup']['overhead_ms'] == 0 and d['stacks'][0]['startup']['ratio'] == 1
t("per-stack startup: median, overhead and ratio to a plain exec", startup)
t("a sandbox costs more than a plain exec",
  lambda: holds(all(s['startup']['median_ms'] > d['plain_exec']['median_ms'] for s in d['stacks'][1:] if starts(s['name']))))
# What a stack leaves to others is in its file (bwrap alone lists net_unix
# as best_effort): explain's coverage must say so, module by module.
def enforced():
    assert d['stacks'][0]['coverage'] is None
    assert coverage('bwrap')['net_unix'] == [] and coverage('bwrap')['write'] == ['fs_bwrap'], coverage('bwrap')
    assert 'net_seccomp' in coverage('bwrap-seccomp')['net_unix'], coverage('bwrap-seccomp')
    assert 'fs_bwrap' not in sum(coverage('landlock-seccomp').values(), []), coverage('landlock-seccomp')
    assert set(coverage('bwrap-landlock-seccomp')['write']) == {'fs_bwrap', 'fs_landlock'}
where(['bwrap', 'bwrap-seccomp', 'landlock-seccomp', 'bwrap-landlock-seccomp'],
      "enforced by: explain's coverage, per property and stack", enforced)
where(['bwrap', 'bwrap-seccomp'], "the matrix tells stacks apart (bwrap alone lets a pathname unix socket through)",
  lambda: holds((results('bwrap')['net_unix_path'], results('bwrap-seccomp')['net_unix_path']) == ('ESCAPED', 'CONTAINED')))
def wellformed():
    import re, xml.dom.minidom
    page = open("$H").read().replace('<!DOCTYPE html>', '')
    page = re.sub(r'<(meta|br)([^>]*)>', r'<\1\2/>', page)
    xml.dom.minidom.parseString(re.sub(r'&(ndash|times|middot);', '-', page))
t("the page is well-formed (every element closed, HTML5 void elements aside)", wellformed)
EOF
check "no progress line when stderr is not a terminal" sh -c "! grep -q 'probe 1 of' '$T_TMP/shipped.err'"

# --- the HTML page ---------------------------------------------------------------
if [ -s "$H" ]; then ok "--html writes the page"; else not_ok "--html writes the page" "no $H"; fi
check "the page has the matrix as a <table>" grep -q '<table class="matrix">' "$H"
check "the page has an inline <svg>" grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$H"
n=$(grep -c '<rect class="bar"' "$H")
if [ "$n" = 6 ]; then ok "one bar per stack"; else not_ok "one bar per stack" "$n bars for 6 stacks"; fi
check "the page is self-contained (no script, nothing fetched)" sh -c \
        "! grep -Eiq '<script|<link|src=|@import|url\\(' '$H'"

# --- stacks by file, a stack that cannot start, errors --------------------------
mkdir -p "$T_TMP/my stacks"
cp "$STK_BUILD/compare/settings.yaml" "$T_TMP/my stacks/"
cat > "$T_TMP/my stacks/seccomp-only.yaml" <<EOF
stockade: 1
include: [settings.yaml]
settings:
  best_effort: [write, read_only, hide, private_tmp, net_abstract, process, metadata, proc]
stack:
  - { phase: in-sandbox, control: required, module: net_seccomp }
EOF
cat > "$T_TMP/broken.yaml" <<EOF
stockade: 1
include: [$STK_BUILD/compare/settings.yaml]
stack:
  - { phase: pre-exec, control: required, module: no_such_module }
EOF
"$STK" compare --json --runs 1 --only fs_write_outside,net_tcp4 --stack "$T_TMP/my stacks/seccomp-only.yaml" \
        --stack "$T_TMP/broken.yaml" > "$T_TMP/file.json" 2> "$T_TMP/file.err"
st=$?
if [ "$st" = 0 ]; then ok "--stack FILE (a path with a space), and a stack that cannot start is a result: exit 0"
else not_ok "--stack FILE, and a stack that cannot start: exit 0" "status $st: $(tail -c 300 "$T_TMP/file.err")"; fi
pychecks "$T_TMP/file.json" <<EOF
def named():
    s = d['stacks'][0]
    assert (s['name'], s['kind']) == ('seccomp-only', 'stack'), s['name']
    assert results('seccomp-only') == {'fs_write_outside': 'ESCAPED', 'net_tcp4': 'CONTAINED'}, s['results']
t("a stack file's column is named after the file, with its own results", named)
def broken():
    s = d['stacks'][1]
    assert s['counts']['error'] == 2, s['counts']
    assert any('no_such_module' in n for n in s['notes']), s['notes']
    assert 'median_ms' not in s['startup'], s['startup']
t("a stack that cannot start: no result in its column, and the notes say why", broken)
EOF

check_status "an unknown shipped stack is a usage error" $STK_EXIT_USAGE "$STK" compare --stack no-such-stack
check_output "... which says where it looked" "compare/no-such-stack.yaml" "$STK" compare --stack no-such-stack
check_status "--runs must be a number" $STK_EXIT_USAGE "$STK" compare --runs many
check_status "--only takes probe names" $STK_EXIT_USAGE "$STK" compare --only 'fs_write_outside;true'
check_status "no stray arguments" $STK_EXIT_USAGE "$STK" compare extra
check_output "--help" "usage: stockade compare" "$STK" compare --help

# The comparison stacks keep the default profile's settings, so that their
# columns differ only in their modules.
"$STK" explain --json --workspace "$T_TMP" --profile default > "$T_TMP/ex-default.json" 2>&1
"$STK" explain --json --workspace "$T_TMP" --policy "$STK_BUILD/compare/bwrap-seccomp.yaml" > "$T_TMP/ex-stack.json" 2>&1
pychecks "$T_TMP/ex-default.json" <<EOF
def settings(doc):
    val = lambda x: x['value'] if isinstance(x, dict) else x
    return {k: [val(i) for i in v] if isinstance(v, list) else val(v)
            for k, v in doc['settings'].items() if k != 'best_effort'}
def same():
    a, b = settings(d), settings(json.load(open("$T_TMP/ex-stack.json")))
    assert a == b, {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
t("the comparison stacks have the default profile's settings", same)
EOF

# --- a terminal gets a progress line -----------------------------------------------
# (--runs 0 too: no benchmark, and still a report and status 0)
if command -v script > /dev/null 2>&1; then
        script -qec "'$STK' compare --stack none --only fs_write_outside --runs 0; echo status=\$?" /dev/null \
                > "$T_TMP/tty.out" 2>&1
        check "a progress line on a terminal: stack j of M, probe i of N" \
                grep -q 'stack 1 of 1 (none): probe 1 of 1 (fs_write_outside)' "$T_TMP/tty.out"
        check "--runs 0: the report says the startup was not measured" grep -q 'startup not measured' "$T_TMP/tty.out"
        check "--runs 0: status 0" grep -q 'status=0' "$T_TMP/tty.out"
else
        skip "progress on a terminal" "no script(1) to give compare a terminal"
fi

# --- an installed tree ---------------------------------------------------------------
# PREFIX, not DESTDIR: the installed binary looks for its modules, stacks and
# escape suite under the prefix compiled into it.  A make of its own in a
# build dir of its own (as t/integration/sdk.sh), nothing of an outer make.
# What this make would build exactly as the build tree did is copied from
# there with its times, so make finds it up to date: the probes (built
# without sanitizers in every build, TOOL_CFLAGS), and the modules unless
# they carry ASan (this make has no SANITIZE=1).  Only the core, which has
# the prefix compiled in, is built again.
P=$T_TMP/prefix
t_seed_build "$T_TMP/build"
if (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
    make -s -C "$top" -j"$(nproc 2>/dev/null || echo 2)" install PREFIX="$P" B="$T_TMP/build") > "$T_TMP/install.log" 2>&1; then
        ok "make install PREFIX=\$T_TMP/prefix"
else
        not_ok "make install PREFIX=\$T_TMP/prefix" "$(tail -c 400 "$T_TMP/install.log" | tr '\n' ' ')"
        exit 0
fi
for f in libexec/stockade/escape/run libexec/stockade/escape/escape-fixture \
         libexec/stockade/escape/probes/fs_write_outside libexec/stockade/escape/probes/net_unix_path \
         share/stockade/compare/bwrap.yaml share/stockade/compare/settings.yaml; do
        if [ -e "$P/$f" ]; then ok "installed $f"; else not_ok "installed $f" "missing"; fi
done
n=$(ls "$P/libexec/stockade/escape/probes" | wc -l)
m=$(ls "$STK_BUILD/t/escape/probes" | wc -l)
if [ "$n" = "$m" ]; then ok "every probe installed ($n)"; else not_ok "every probe installed" "$n of $m"; fi

I=$T_TMP/installed.json
"$P/bin/stockade" compare --json --runs 1 --stack none --profile default > "$I" 2> "$T_TMP/installed.err"
st=$?
if [ "$st" = 0 ]; then ok "the installed stockade compare runs (the whole suite)"
else not_ok "the installed stockade compare runs" "status $st: $(tail -c 300 "$T_TMP/installed.err")"; exit 0; fi
"$P/bin/stockade" compare --json --runs 0 --only net_unix_path --stack bwrap-seccomp > "$T_TMP/inst-stack.json" 2>&1
pychecks "$I" <<EOF
t("installed: it uses the installed escape suite",
  lambda: holds(d['escape_suite'] == "$P/libexec/stockade/escape", d['escape_suite']))
t("installed: the whole suite ran ($m probes)",
  lambda: holds(len(d['probes']) == $m and all(len(s['results']) == $m for s in d['stacks']), len(d['probes'])))
def control():
    bad = {p: r for p, r in results('none').items() if r not in ('ESCAPED', 'NA')}
    assert not bad, bad
t("installed: the control escapes on every applicable probe", control)
def default_contains():
    escaped = [p for p, r in results('none').items() if r == 'ESCAPED']
    bad = {p: results('default')[p] for p in escaped if results('default')[p] != 'CONTAINED'}
    assert len(escaped) >= 30 and not bad, (len(escaped), bad)
where(['default'], "installed: default contains every probe that escaped in the control", default_contains)
def by_name():
    s = json.load(open("$T_TMP/inst-stack.json"))['stacks'][0]
    assert s['source'] == "$P/share/stockade/compare/bwrap-seccomp.yaml", s['source']
    assert s['results'][0]['result'] == 'CONTAINED', s['results']
t("installed: a shipped stack by name is the installed file", by_name)
EOF
