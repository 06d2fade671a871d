#!/usr/bin/env python3
"""Writes an AWS EC2 offer file of about SIZE_MB megabytes in the real file's shape, for timing
`rightsize catalog refresh --provider aws` on a region's worth of rows (docs/performance.md,
"catalog refresh"): the recording tests/data/prices/aws-offer.csv, its rows repeated with other
instance types (which the refresh reads and skips, as it skips the ~99% of a real file that are
not GPU instances) until the size is reached, then its GPU rows once.

    big_offer.py SIZE_MB OUT.csv
"""
import sys

size = int(sys.argv[1]) * 1000 * 1000
src = open(__file__.rsplit("/bench/", 1)[0] + "/tests/data/prices/aws-offer.csv").read().splitlines(True)
head, rows = src[:6], src[6:]
other = [r.replace("p5.48xlarge", "c7i.48xlarge").replace("g5.12xlarge", "m7i.24xlarge")
          .replace("g5.xlarge", "r7i.large") for r in rows]
with open(sys.argv[2], "w") as out:
    written = sum(len(l) for l in head)
    out.writelines(head)
    i = 0
    while written < size:
        line = other[i % len(other)]
        out.write(line)
        written += len(line)
        i += 1
    out.writelines(rows)
