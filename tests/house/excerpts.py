#!/usr/bin/env python3
"""The command excerpts of README.md and docs/ are the binary's own output (issue 43, defect 9).

Every fenced block line starting with "$ rightsize ARGS" is run (from the repository root, with
RIGHTSIZE_TODAY=2026-11-21 and no catalog overlay, as the goldens run), and the lines after it,
up to the next "$ " line or the end of the block, must be its output (stdout, then stderr):
  - every line but "..." (any indentation: lines left out) must be an output line, in order:
    exactly, or for a line ending in " ...", an output line starting with what precedes it;
  - an excerpt without "..." lines must be the whole output, line for line.
A "# comment" after two spaces on the command line is not part of the command.

usage: excerpts.py BINARY [--update] FILE...
  --update rewrites excerpts without "..." lines to the output; the rest must be edited by hand.
Exit 0 when every excerpt matches, 1 otherwise (each mismatch printed with the output).
"""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAP = "..."


def excerpts(lines):
    """(index of the "$" line, index after its last expected line) for each excerpt."""
    out = []
    in_block = False
    start = None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if in_block and start is not None:
                out.append((start, i))
            in_block = not in_block
            start = None
            continue
        if in_block and line.startswith("$ "):
            if start is not None:
                out.append((start, i))
            start = i if line.startswith("$ rightsize ") else None
    return out


def command_of(line):
    text = line[len("$ rightsize "):]
    text = re.split(r"\s{2,}#", text)[0]
    return shlex.split(text)


def run(binary, args):
    env = dict(os.environ, RIGHTSIZE_TODAY="2026-11-21", RIGHTSIZE_CATALOG="")
    env.pop("RIGHTSIZE_DATA", None)
    r = subprocess.run([binary] + args, cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    return (r.stdout + r.stderr).rstrip("\n").split("\n") if (r.stdout + r.stderr) else []


def matches(expected, actual):
    """Whether the expected lines appear in the output in their order ("..." lines aside)."""
    pos = 0
    for e in expected:
        if e.strip() == GAP:
            continue
        prefix = e[:-len(" ...")] if e.endswith(" ...") else None
        while pos < len(actual) and not (
                actual[pos].startswith(prefix) if prefix is not None else actual[pos] == e):
            pos += 1
        if pos == len(actual):
            return False
        pos += 1
    return True


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary = argv[1]
    update = argv[2] == "--update"
    files = argv[3:] if update else argv[2:]
    bad = 0
    checked = 0
    for name in files:
        path = os.path.join(ROOT, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        replaced = list(lines)
        for start, end in reversed(excerpts(lines)):
            expected = lines[start + 1:end]
            if not expected:
                continue  # a command shown without its output
            actual = run(binary, command_of(lines[start]))
            checked += 1
            whole = all(e.strip() != GAP and not e.endswith(" ...") for e in expected)
            if (expected == actual) if whole else matches(expected, actual):
                continue
            if update and whole:
                replaced[start + 1:end] = actual
                print(f"{name}:{start + 1}: updated")
                continue
            bad += 1
            print(f"{name}:{start + 1}: the excerpt of `{lines[start]}` is not its output:")
            print("  shown:")
            print("\n".join("    " + e for e in expected))
            print("  output:")
            print("\n".join("    " + a for a in actual))
        if update and replaced != lines:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(replaced))
    print(f"{checked} excerpts, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
