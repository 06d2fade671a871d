#!/usr/bin/env bash
# rightsize deploy's manifests against the official schemas (tests/data/schemas), through the real
# binary: every golden deploy case (tests/golden/deploy-*) is run again and its standard output
# validated, and one case is also written with -o DIR and each file validated. The golden test
# (tests/cli/test_golden.cpp) separately holds the output byte for byte.
# Usage: validate_outputs.sh RIGHTSIZE_BINARY. PYTHON overrides the interpreter (default: Debian's
# /usr/bin/python3 with python3-yaml and python3-jsonschema).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
bin=${1:?usage: validate_outputs.sh RIGHTSIZE_BINARY}
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RIGHTSIZE_TODAY=2026-11-21
unset RIGHTSIZE_CATALOG
fails=0 cases=0
for dir in tests/golden/deploy-*/; do
  [ "$(cat "$dir/exit_code")" = 0 ] || continue
  cases=$((cases + 1))
  read -r -a args <"$dir/args"
  if ! "$bin" "${args[@]}" >"$tmp/out.yaml" 2>"$tmp/err"; then
    echo "FAIL: $dir: rightsize exited non-zero: $(cat "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  if "$PY" tests/deploy/validate_manifests.py tests/data/schemas "$tmp/out.yaml" 2>"$tmp/ok"; then
    echo "PASS: $dir ($(cat "$tmp/ok"))"
  else
    echo "FAIL: $dir"
    fails=$((fails + 1))
  fi
done
# One file per object with -o DIR.
"$bin" deploy examples/deploy/llama-3.1-405b-multinode.json -o "$tmp/objects" 2>"$tmp/err" ||
  { echo "FAIL: deploy -o DIR: $(cat "$tmp/err")"; fails=$((fails + 1)); }
files=$(find "$tmp/objects" -maxdepth 1 -name "*.yaml" 2>/dev/null | wc -l)
if [ "$files" -ge 4 ] && "$PY" tests/deploy/validate_manifests.py tests/data/schemas "$tmp/objects"/*.yaml 2>"$tmp/ok"; then
  echo "PASS: deploy -o DIR: $files files ($(cat "$tmp/ok"))"
else
  echo "FAIL: deploy -o DIR: $files files"
  fails=$((fails + 1))
fi
if [ "$cases" -lt 4 ]; then
  echo "FAIL: only $cases golden deploy cases (expected at least 4)"
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] && echo "all deploy outputs valid ($cases golden cases)"
exit $((fails > 0))
