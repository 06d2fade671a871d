#!/usr/bin/env python3
"""Writes the list of functions a plan runs, for the linker to place side by side.

Usage: bench/hot_functions.py [-o OUT] BINARY...   (OUT defaults to cmake/hot-functions.txt)

Runs each BINARY under callgrind for `plan EXAMPLE` of every bundled spec (examples/*.json but the
catalog overlay my-prices.json, examples/ci/specs/*.json) in JSON and as the table, and `check
examples/ci/specs`, and writes the mangled names of the binaries' own functions that ran, the most
instructions first. CMakeLists.txt hands the file to ld.lld (--symbol-ordering-file), which lays
those functions out first and side by side: a process then touches fewer pages of code
(docs/performance.md, section "2026-11-28 (night)"). Give it a Release and a
RelWithDebInfo build of the same commit: the compiler names the clones it makes of a function
(.isra.0, .constprop.0) differently at -O3 and -O2. A name the code no longer has is ignored by the
linker, so a stale list costs speed, never correctness; regenerate it after large changes. Run
from the repository root.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile


def commands():
    specs = [s for s in sorted(glob.glob("examples/*.json")) if not s.endswith("my-prices.json")]
    specs += sorted(glob.glob("examples/ci/specs/*.json"))
    for spec in specs:
        yield ["plan", spec, "--format", "json"]
        yield ["plan", spec]
    yield ["check", "examples/ci/specs"]


def profile(binary, work, cost):
    """Adds the instructions each of `binary`'s functions ran in commands() to `cost`."""
    own = re.compile(r"\s*([\d,]+) \([^)]*\)\s+\S*?:(\S+) \[" + re.escape(binary) + r"\]$")
    for i, args in enumerate(commands()):
        out = os.path.join(work, f"{i}.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no",
                        f"--callgrind-out-file={out}", binary] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        report = subprocess.run(["callgrind_annotate", "--threshold=100", out],
                                capture_output=True, text=True, check=True).stdout
        for line in report.splitlines():
            m = own.match(line)
            if m:
                cost[m.group(2)] += int(m.group(1).replace(",", ""))


def main():
    args = sys.argv[1:]
    out_path = "cmake/hot-functions.txt"
    if len(args) >= 2 and args[0] == "-o":
        out_path = args[1]
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    cost = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        for binary in args:
            before = len(cost)
            profile(os.path.realpath(binary), work, cost)
            if len(cost) == before:
                sys.exit(f"hot_functions: no function of {binary} in its profiles "
                         "(is valgrind installed?)")
    with open(out_path, "w", encoding="utf-8") as f:
        for name, _ in sorted(cost.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write(name + "\n")
    print(f"{out_path}: {len(cost)} functions")


if __name__ == "__main__":
    main()
