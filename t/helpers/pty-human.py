#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pty-human: run a command on a new pseudo-terminal and play the human who
reads the screen and answers stockade's questions there.

  pty-human.py [--answer WORD]... [--willing HOST]... [--log FILE]
               [--stdio-tty] [--out FILE] [--err FILE] [--settle SECS]
               [--timeout SECS] [--no-tty] -- CMD [ARG...]

The child is the session leader of a new pty, which is its controlling
terminal (so /dev/tty is that pty).  Its stdin is /dev/null; stdout and
stderr go to --out and --err, or with --stdio-tty to the pty itself, as a
command typed in a terminal has them: then what the sandboxed command
writes shares the screen with the question.

Each time a question appears (stockade's "... needs your approval" header,
then its prompt line "...? y = yes once, ..."), the human waits --settle seconds (default 0.5) reading on, as a person takes a
moment to read, and then looks at the SCREEN, not the byte stream: a small
terminal model applies what the bytes do (CR, LF, BS, cursor up/down/to a
column, erase line or screen; other escape sequences are dropped), so a
command that redraws the question would be believed.  The answer is the
next --answer word; with --willing, it is "y" when the prompt line on the
screen names one of the willing hosts and "n" otherwise.  No answer left:
nothing is typed.  --no-tty: setsid and no terminal at all.

Everything read goes to --log, and the screens the human decided on, after
a line "--- screen", to LOG.screens.  Exit status: the command's (128+N for
signal N), 124 after --timeout (default 60; the command is then killed by
pid), 125 on a helper error.
"""
import argparse
import fcntl
import os
import re
import select
import signal
import sys
import termios
import time

PROMPT = b"? y = yes once"      # the end of the line an answer is typed on
QUESTION = b"needs your approval"  # stockade's header: one per question
CSI = re.compile(rb"\x1b\[([0-9;?]*)([@-~])")


class Screen:
    """Enough of a VT100 to see what a redraw shows: lines of text, a cursor."""

    def __init__(self):
        self.lines = [""]
        self.row = self.col = 0

    def _put(self, ch):
        line = self.lines[self.row].ljust(self.col)
        self.lines[self.row] = line[:self.col] + ch + line[self.col + 1:]
        self.col += 1

    def _csi(self, params, final):
        n = int(params.split(b";")[0] or b"1") if params[:1] != b"?" else 1
        if final == b"A":
            self.row = max(0, self.row - n)
        elif final == b"B":
            self.row += n
        elif final == b"G":
            self.col = n - 1
        elif final == b"K":
            mode = params or b"0"
            line = self.lines[self.row]
            self.lines[self.row] = "" if mode == b"2" else line[:self.col] if mode == b"0" else " " * self.col + line[self.col:]
        elif final == b"J" and params in (b"2", b"3"):
            self.lines, self.row, self.col = [""], 0, 0
        while self.row >= len(self.lines):
            self.lines.append("")

    def feed(self, data):
        i = 0
        while i < len(data):
            m = CSI.match(data, i)
            if m:
                self._csi(m.group(1), m.group(2))
                i = m.end()
                continue
            c = data[i:i + 1]
            i += 1
            if c == b"\r":
                self.col = 0
            elif c == b"\n":
                self.row += 1
                if self.row == len(self.lines):
                    self.lines.append("")
            elif c == b"\b":
                self.col = max(0, self.col - 1)
            elif c == b"\x1b":
                i += 1  # a two-byte escape (ESC c, ESC 7, ...): dropped
            elif 0x20 <= c[0] < 0x7F:
                self._put(c.decode())

    def prompt_line(self):
        for line in reversed(self.lines):
            if PROMPT.decode() in line:
                return line
        return ""


def child(args, slave_name):
    os.setsid()
    if args.no_tty:
        tty_fd = os.open(os.devnull, os.O_RDWR)
    else:
        tty_fd = os.open(slave_name, os.O_RDWR)
        fcntl.ioctl(tty_fd, termios.TIOCSCTTY, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, args.out), (2, args.err)):
        if args.stdio_tty and not args.no_tty:
            os.dup2(tty_fd, fd)
        else:
            os.dup2(os.open(path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
    os.closerange(3, 256)
    os.execvp(args.cmd[0], args.cmd)


def decide(args, screen, answers):
    if args.willing:
        line = screen.prompt_line()
        return b"y\n" if any(h in line for h in args.willing) else b"n\n"
    return answers.pop(0).encode() + b"\n" if answers else None


def converse(args, master, pid):
    answers = list(args.answer)
    log = open(args.log, "wb") if args.log else None
    screens = open(args.log + ".screens", "w") if args.log else None
    screen, seen, prompts = Screen(), b"", 0
    deadline = time.monotonic() + args.timeout
    settle_until, status = None, None
    while True:
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            status = st if done else None
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 124
        ready, _, _ = select.select([master], [], [], 0.05)
        data = os.read(master, 4096) if ready else b""
        if data:
            if log:
                log.write(data)
                log.flush()
            screen.feed(data)
            seen += data
            if seen.count(QUESTION) > prompts and PROMPT in seen[seen.rfind(QUESTION):]:
                prompts = seen.count(QUESTION)
                settle_until = time.monotonic() + args.settle
        elif status is not None:
            break  # the command is done and its output read
        if settle_until and time.monotonic() >= settle_until:
            settle_until = None
            if screens:
                screens.write("--- screen\n" + "\n".join(screen.lines) + "\n")
                screens.flush()
            answer = decide(args, screen, answers)
            if answer:
                os.write(master, answer)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--answer", action="append", default=[])
    p.add_argument("--willing", action="append", default=[])
    p.add_argument("--log")
    p.add_argument("--out")
    p.add_argument("--err")
    p.add_argument("--stdio-tty", action="store_true")
    p.add_argument("--no-tty", action="store_true")
    p.add_argument("--settle", type=float, default=0.5)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("cmd", nargs="+")
    args = p.parse_args()
    master, slave = os.openpty()
    slave_name = os.ttyname(slave)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(master)
            os.close(slave)
            child(args, slave_name)
        finally:
            os._exit(125)
    # The parent keeps its slave fd open (a master whose slaves are all
    # closed reads EIO, before the child opened its own, too): the end is
    # the command's exit, then what it left to read.
    sys.exit(converse(args, master, pid))


if __name__ == "__main__":
    main()
