#!/usr/bin/env python3
"""Interleaved whole-process timing of two binaries on the same arguments.

Usage: bench/ab_time.py RUNS BINARY_A BINARY_B ARGS...

Runs A and B alternately (A B, then B A, ...) RUNS times each after 3 warm-up pairs, standard
output and error to /dev/null, and prints the median wall time (fork to wait, so about 0.3 ms of
Python's fork above hyperfine's figure) and the median CPU time (user + system, from wait4) of
each. On a machine shared with other work, runs of the two binaries then see the same load, which
separate hyperfine runs do not (docs/performance.md).
"""
import os
import statistics
import sys
import time


def run(binary, args, devnull):
    start = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(binary, [binary] + args)
    _, _, usage = os.wait4(pid, 0)
    wall_ms = (time.perf_counter_ns() - start) / 1e6
    return wall_ms, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, a, b, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(3):
        run(a, args, devnull)
        run(b, args, devnull)
    times = {a: [], b: []}
    for i in range(runs):
        for binary in (a, b) if i % 2 == 0 else (b, a):
            times[binary].append(run(binary, args, devnull))
    for label, binary in (("A", a), ("B", b)):
        wall = statistics.median(t[0] for t in times[binary])
        cpu = statistics.median(t[1] for t in times[binary])
        print(f"{label} {binary}: median wall {wall:.2f} ms, median CPU {cpu:.2f} ms")


if __name__ == "__main__":
    main()
