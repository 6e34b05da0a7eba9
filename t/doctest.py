#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Doc tests (issue 13, section 6): every example of README.md and of the man
pages, extracted and run.  Each example carries a marker right before it,
in README.md an HTML comment before the ```sh fence, in a man page a roff
comment before .EX:

  doctest: exit N [N...]   shell commands, one status each (or one for all):
                           README lines, or the man page's "$ " lines
  doctest: script N        the whole block is one sh script, exiting N
  doctest: file PATH       the block is a file, written to PATH (~/ is the
                           test's HOME, else the workspace), then checked by
  doctest-check: N CMD     sh -c CMD must exit N (several allowed)
  doctest-setup: CMD       before the block, sh -c CMD must succeed
  doctest: skip REASON     not run, and why (macOS, packaging, an output sample)

An example without a marker fails: a new example must say how it runs.
Each runs in a fresh HOME and a fresh workspace (a git repository with one
commit and a modified file.txt), with `stockade` on PATH and `build` in the
workspace naming the build tree (the README's build/stockade).  Prints
"ok -", "not ok -" and "skip -" lines for t/run-tests.sh.

usage: doctest.py STK_BUILD SRCDIR FILE...
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r'^(?:\.\\"|<!--)\s*(doctest(?:-check|-setup)?):\s*(.*?)\s*(?:-->)?\s*$')
SRC = None
ROFF = [('\\-', '-'), ('\\e', '\\'), ("\\(aq", "'"), ('\\(dq', '"'), ('\\&', ''), ('\\(em', '--')]


def unroff(line):
    for a, b in ROFF:
        line = line.replace(a, b)
    return line


def blocks(path):
    """(line number, markers, text lines) per example of the file."""
    man = not path.endswith('.md')
    lines = open(path, encoding='utf-8').read().split('\n')
    out, marks, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        m = MARK.match(line)
        start = (line.startswith('.EX') if man else line.startswith('```sh'))
        if m:
            marks.append((m.group(1), m.group(2)))
        elif start:
            end = i + 1
            while end < len(lines) and not (lines[end].startswith('.EE') if man else lines[end].startswith('```')):
                end += 1
            text = [unroff(x) if man else x for x in lines[i + 1:end]]
            out.append((i + 1, marks, text, man))
            marks, i = [], end
        elif line.strip() and not line.startswith('.PP') and not line.startswith('.RS'):
            marks = []
        i += 1
    return out


def commands(text, man):
    """The commands of a block: "$ " lines (man) or every line (README),
    continuation lines joined."""
    cmds, cur = [], None
    for line in text:
        if man:
            if line.startswith('$ '):
                cur = line[2:]
            elif cur is None:
                continue
            else:
                cur += '\n' + line
        else:
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            cur = line if cur is None else cur + '\n' + line
        if cur.endswith('\\'):
            continue
        cmds.append(cur)
        cur = None
    return cmds


class Env:
    def __init__(self, build):
        self.dir = tempfile.mkdtemp(prefix='doctest.', dir=os.environ.get('T_TMP'))
        os.chmod(self.dir, 0o755)
        self.home = os.path.join(self.dir, 'home')
        self.ws = os.path.join(self.dir, 'ws')
        os.makedirs(os.path.join(self.home, '.config'))
        os.makedirs(self.ws)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith('XDG_')}
        self.env.update(HOME=self.home, STK_SRC=SRC, PATH=build + ':' + os.environ['PATH'],
                        GIT_AUTHOR_NAME='doc', GIT_AUTHOR_EMAIL='doc@example.com',
                        GIT_COMMITTER_NAME='doc', GIT_COMMITTER_EMAIL='doc@example.com')
        os.symlink(build, os.path.join(self.ws, 'build'))
        with open(os.path.join(self.ws, '.gitignore'), 'w') as f:
            f.write('build\n')
        with open(os.path.join(self.ws, 'file.txt'), 'w') as f:
            f.write('hello\n')
        self.sh('git init -q && git add -A && git commit -q -m init && echo more >> file.txt')

    def sh(self, cmd):
        p = subprocess.run(['sh', '-c', cmd], cwd=self.ws, env=self.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240)
        return p.returncode, p.stdout.decode(errors='replace')

    def done(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def write_file(env, path, text):
    path = os.path.join(env.home, path[2:]) if path.startswith('~/') else os.path.join(env.ws, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('\n'.join(text) + '\n')


def expect(name, want, cmd, env, results):
    got, out = env.sh(cmd)
    tail = ' '.join(out.split())[-300:]
    if got == want:
        results.append('ok - doctest: %s: %s' % (name, cmd.split('\n')[0][:80]))
    else:
        results.append('not ok - doctest: %s: %s (status %d, want %d: %s)' % (name, cmd.split('\n')[0][:80], got,
                                                                               want, tail))


def run_block(build, name, marks, text, man, results):
    main = [v for k, v in marks if k == 'doctest']
    if len(main) != 1:
        results.append('not ok - doctest: %s has %s doctest marker (expected exactly one: exit, script, file or skip)'
                       % (name, 'no' if not main else 'more than one'))
        return
    kind, _, rest = main[0].partition(' ')
    if kind == 'skip':
        results.append('skip - doctest: %s (%s)' % (name, rest or 'no reason given'))
        return
    env = Env(build)
    try:
        for k, v in marks:
            if k == 'doctest-setup':
                got, out = env.sh(v)
                if got != 0:
                    results.append('not ok - doctest: %s: setup %s failed: %s' % (name, v, out[-200:]))
                    return
        if kind == 'exit':
            cmds, want = commands(text, man), [int(x) for x in rest.split()]
            if not cmds or (len(want) != 1 and len(want) != len(cmds)):
                results.append('not ok - doctest: %s: %d commands, %d statuses' % (name, len(cmds), len(want)))
                return
            for i, c in enumerate(cmds):
                expect(name, want[i] if len(want) > 1 else want[0], c, env, results)
        elif kind == 'script':
            expect(name, int(rest), '\n'.join(text), env, results)
        elif kind == 'file':
            write_file(env, rest, text)
            checks = [v for k, v in marks if k == 'doctest-check']
            if not checks:
                results.append('not ok - doctest: %s: a file example with no doctest-check' % name)
            for c in checks:
                want, _, cmd = c.partition(' ')
                expect(name, int(want), cmd, env, results)
        else:
            results.append('not ok - doctest: %s: unknown marker "%s"' % (name, kind))
    finally:
        env.done()


def main():
    global SRC
    build, src, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    SRC = src
    results = []
    for f in files:
        for line, marks, text, man in blocks(os.path.join(src, f)):
            run_block(build, '%s:%d' % (f, line), marks, text, man, results)
    print('\n'.join(results))


if __name__ == '__main__':
    main()
