#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make mutate: apply each mutant of t/mutate/mutants.txt, one at a time, to
a scratch copy of the tree, build, run the tests that cover that code, and
report KILLED (by which test) or SURVIVED.  Prints the score and a line
"N passed, N failed" (passed: a killed mutant) and exits 1 below the floor.

  mutate.py --src TOP --scratch DIR [--floor PCT] [--only ID,...] [--list]

A mutant is a block of the table (see its head for the format).  The tests
of a mutant are run in order on the scratch build; the first that fails
kills it.  Every test a selected mutant names is run once on the unmutated
copy first: a test failing there would "kill" anything, so such a mutant is
an ERROR, as is a mutant whose text no longer occurs exactly once in its
file (the table went stale) or that does not compile.  Errors count as
failures: the table must be kept true.
"""
import argparse
import os
import re
import subprocess
import sys
import time

TEST_TIMEOUT = 300  # as t/run-tests.sh gives each shell test


def parse_table(path):
    """The mutants: a list of dicts with id, file, from, to, why, tests, equivalent."""
    mutants, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"^\[([a-z0-9_.-]+)\]$", line)
            if m:
                cur = {"id": m.group(1), "line": n, "tests": []}
                mutants.append(cur)
                continue
            m = re.match(r"^(file|from|to|why|tests|equivalent):\s?(.*)$", line)
            if not m or cur is None:
                sys.exit(f"{path}:{n}: expected [id] or file:/from:/to:/why:/tests:/equivalent:, got {line!r}")
            key, val = m.group(1), m.group(2)
            if key == "tests":
                cur["tests"] += val.split()
            elif key in ("from", "to"):
                cur[key] = val.replace("\\n", "\n").replace("\\t", "\t")
            else:
                cur[key] = val
    seen = set()
    for m in mutants:
        missing = [k for k in ("file", "from", "to", "why", "tests") if k not in m or (k != "to" and not m[k])]
        if missing:
            sys.exit(f"{path}:{m['line']}: mutant {m['id']} lacks {', '.join(missing)}")
        if m["id"] in seen:
            sys.exit(f"{path}:{m['line']}: mutant {m['id']} twice")
        if m["from"] == m["to"]:
            sys.exit(f"{path}:{m['line']}: mutant {m['id']} changes nothing")
        seen.add(m["id"])
    return mutants


def sync_tree(src, dst):
    """Copy the tree's files (tracked and untracked, not ignored) into dst,
    writing only those whose content differs, so make's times stay right."""
    out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True).stdout
    for rel in filter(None, out.decode().split("\0")):
        a, b = os.path.join(src, rel), os.path.join(dst, rel)
        if not os.path.isfile(a) or os.path.islink(a):
            continue
        data = open(a, "rb").read()
        if os.path.exists(b) and open(b, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        with open(b, "wb") as f:
            f.write(data)
        os.chmod(b, os.stat(a).st_mode & 0o7777)


def build(scratch, log):
    r = subprocess.run(["make", "-C", scratch, "-j2", "--no-print-directory", "mutate-artifacts"],
                       stdout=log, stderr=subprocess.STDOUT)
    return r.returncode == 0


def run_test(scratch, test, log):
    """True when the test passes.  TEST: a shell script under the tree,
    or NAME[:SUITE], a CUnit binary build/t/NAME (unit-tests for the core)."""
    env = dict(os.environ, STK_BUILD=os.path.join(scratch, "build"))
    if test.endswith(".sh"):
        cmd = ["timeout", str(TEST_TIMEOUT), "sh", os.path.join(scratch, test)]
    else:
        name, _, suite = test.partition(":")
        cmd = ["timeout", str(TEST_TIMEOUT), os.path.join(scratch, "build", "t", name)] + ([suite] if suite else [])
    p = subprocess.run(cmd, cwd=scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode(errors="replace")
    log.write(f"--- {test}: status {p.returncode}\n{out}\n".encode())
    log.flush()
    if test.endswith(".sh"):
        return p.returncode == 0 and not re.search(r"^not ok - ", out, re.M)
    summary = re.search(r"^\s+tests\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", out, re.M)
    return p.returncode == 0 and summary is not None and int(summary.group(2)) > 0 and summary.group(4) == "0"


def try_mutant(scratch, m, log):
    """(verdict, detail): KILLED/SURVIVED/ERROR."""
    path = os.path.join(scratch, m["file"])
    try:
        orig = open(path, encoding="utf-8").read()
    except OSError as e:
        return "ERROR", f"{m['file']}: {e.strerror}"
    count = orig.count(m["from"])
    if count != 1:
        return "ERROR", f"its text occurs {count} times in {m['file']}: the table is stale"
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig.replace(m["from"], m["to"]))
        log.write(f"=== mutant {m['id']}\n".encode())
        if not build(scratch, log):
            return "ERROR", "does not compile"
        for t in m["tests"]:
            if not run_test(scratch, t, log):
                return "KILLED", t
        return "SURVIVED", "every test passed"
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig)  # a new mtime: the next build compiles it again


def check_table(src, mutants):
    """The table against the tree as it is: every text once in its file,
    every test one that exists.  Prints the stale ones; 1 if any."""
    bad = 0
    for m in mutants:
        try:
            count = open(os.path.join(src, m["file"]), encoding="utf-8").read().count(m["from"])
        except OSError as e:
            count, why = 0, e.strerror
        else:
            why = f"its text occurs {count} times"
        if count != 1:
            print(f"stale: {m['id']}: {m['file']}: {why}")
            bad += 1
        for t in m["tests"]:
            if t.endswith(".sh") and not os.path.isfile(os.path.join(src, t)):
                print(f"stale: {m['id']}: no test {t}")
                bad += 1
    print(f"{len(mutants) - bad} passed, {bad} failed")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--table", default=None)
    ap.add_argument("--floor", type=float, default=95.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true", help="only check that each text occurs once in the tree")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    table = a.table or os.path.join(src, "t", "mutate", "mutants.txt")
    mutants = parse_table(table)
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {m["id"] for m in mutants}
        if unknown:
            sys.exit(f"mutate: no mutant {', '.join(sorted(unknown))} in {table}")
        mutants = [m for m in mutants if m["id"] in want]
    if a.list:
        for m in mutants:
            print(f"{m['id']:40} {m['file']}: {m['why']}")
        return 0

    if a.check:
        return check_table(src, mutants)

    scratch = os.path.abspath(a.scratch)
    os.makedirs(scratch, exist_ok=True)
    log_path = os.path.join(os.path.dirname(scratch), "mutate.log")
    with open(log_path, "wb") as log:
        print(f"mutate: {len(mutants)} mutants, scratch copy {scratch}, log {log_path}", flush=True)
        sync_tree(src, scratch)
        if not build(scratch, log):
            print(f"mutate: the unmutated copy does not build (see {log_path})")
            return 2
        tests = sorted({t for m in mutants for t in m["tests"]})
        broken = {t for t in tests if not run_test(scratch, t, log)}
        for t in sorted(broken):
            print(f"mutate: {t} fails on the unmutated copy: it can kill nothing (see {log_path})")
        killed = failed = equivalent = 0
        start = time.monotonic()
        for m in mutants:
            if m.get("equivalent"):
                equivalent += 1
                print(f"EQUIVALENT {m['id']}: {m['equivalent']}", flush=True)
                continue
            if broken & set(m["tests"]):
                verdict, detail = "ERROR", "a test of it fails unmutated: " + " ".join(sorted(broken & set(m["tests"])))
            else:
                verdict, detail = try_mutant(scratch, m, log)
            if verdict == "KILLED":
                killed += 1
                print(f"KILLED     {m['id']} (by {detail})", flush=True)
            else:
                failed += 1
                print(f"{verdict:10} {m['id']}: {detail}\n           {m['file']}: {m['why']}", flush=True)
        build(scratch, log)  # leave the scratch build unmutated
    total = killed + failed
    score = 100.0 * killed / total if total else 0.0
    print(f"mutate: score {score:.1f}% ({killed} of {total} killed, {equivalent} equivalent, "
          f"floor {a.floor:g}%) in {time.monotonic() - start:.0f} s")
    print(f"{killed} passed, {failed} failed")
    return 0 if total and score >= a.floor else 1


if __name__ == "__main__":
    sys.exit(main())
