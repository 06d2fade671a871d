#!/usr/bin/env bash
# Builds an Nsight Systems SQLite export from one of the nsys-*.sql fixtures, for trying
# `rightsize observe --trace` by hand or for CLI golden tests (the unit tests build their own
# copies with the SQLite C API). Needs the sqlite3 command (Debian: sqlite3).
#
#   tests/data/observe/make_nsys_fixture.sh tests/data/observe/nsys-train-ddp2.sql out.sqlite
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 <fixture.sql> <output.sqlite>" >&2
  exit 2
fi
sql=$1
out=$2
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
sqlite3 -bail "$tmp" <"$sql"
mv -f "$tmp" "$out"
