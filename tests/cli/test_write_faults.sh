#!/usr/bin/env bash
# tests/cli/test_write_faults.sh SHIM RIGHTSIZE
#
# A disk that turns read-only or full halfway through writing (issue 50, docs/reliability.md),
# through the real binary with tests/support/fail_shim.cpp preloaded (SHIM):
#   1. deploy -o DIR over an earlier run's manifests, the 4th file's rename refused (read-only) or
#      writes failing after 2 (full): exit 2, one error line naming a file, DIR byte for byte as
#      before (the files already replaced put back), no temporary file left;
#   2. deploy -o NEW with the 3rd rename refused: no manifest left in NEW;
#   3. calibrate -o FILE over an earlier calibration, the disk full: exit 2, FILE as before.
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) under a sanitizer,
# whose runtime must come first and refuses a preloaded library.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "FAIL: usage: $0 SHIM RIGHTSIZE"
  exit 2
fi
shim=$1
rightsize=$2
if [ -n "${RIGHTSIZE_SANITIZED:-}" ]; then
  echo "SKIP: a sanitized binary cannot take a preloaded library"
  exit 77
fi
cd "$(dirname "$0")/../.." || exit 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() {
  fails=$((fails + 1))
  echo "FAIL: $*"
}
export RIGHTSIZE_TODAY=2026-11-21

deploy=(deploy examples/deploy/chat-8b-keda.json --autoscaler keda
        --model-uri meta-llama/Llama-3.1-8B-Instruct)
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# faulty LABEL ENV DIR_OR_FILE BEFORE -- ARGS: run with the shim, expect exit 2, one stderr line,
# and the snapshot of DIR_OR_FILE equal to BEFORE.
faulty() {
  local label=$1 env=$2 target=$3 before=$4 rc lines after
  shift 5
  env "$env" LD_PRELOAD="$shim" "$rightsize" "$@" >"$scratch/out" 2>"$scratch/err"
  rc=$?
  lines=$(grep -c "error:" "$scratch/err")
  if [ -d "$target" ]; then after=$(snapshot "$target"); else after=$(sha256sum <"$target"); fi
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ "$after" = "$before" ] &&
      ! grep -q "internal error" "$scratch/err"; then
    pass "$label: exit 2, $(grep "error:" "$scratch/err"); unchanged"
  else
    fail "$label: exit $rc, $lines error lines ($(grep "error:" "$scratch/err" | head -c 300)), changed:" \
      "$([ "$after" = "$before" ] && echo no || echo yes)"
  fi
}

dir="$scratch/manifests"
"$rightsize" "${deploy[@]}" -o "$dir" 2>/dev/null
count=$(find "$dir" -name '*.yaml' | wc -l)
before=$(snapshot "$dir")
if [ "$count" -ge 5 ]; then
  pass "deploy -o DIR: $count manifests to begin with"
else
  fail "deploy -o DIR wrote $count manifests"
fi
faulty "deploy -o DIR, the 4th rename refused" RIGHTSIZE_FAIL_RENAME_AT=4 "$dir" "$before" \
  -- "${deploy[@]}" --namespace other -o "$dir"
faulty "deploy -o DIR, full after 2 writes" RIGHTSIZE_FAIL_WRITE_AFTER=2 "$dir" "$before" \
  -- "${deploy[@]}" --namespace other -o "$dir"
# The shim works: without a fault the same run rewrites DIR.
LD_PRELOAD="$shim" "$rightsize" "${deploy[@]}" --namespace other -o "$dir" 2>/dev/null
if [ "$(snapshot "$dir")" != "$before" ]; then
  pass "deploy -o DIR with the shim and no fault rewrites DIR"
else
  fail "deploy -o DIR with the shim and no fault left DIR as it was"
fi

new="$scratch/new"
env RIGHTSIZE_FAIL_RENAME_AT=3 LD_PRELOAD="$shim" "$rightsize" "${deploy[@]}" -o "$new" \
  >/dev/null 2>"$scratch/err"
rc=$?
left=$(find "$new" -type f 2>/dev/null | wc -l)
if [ "$rc" -eq 2 ] && [ "$left" -eq 0 ]; then
  pass "deploy -o NEW, the 3rd rename refused: exit 2, no file left in NEW"
else
  fail "deploy -o NEW: exit $rc, $left files left: $(find "$new" -type f 2>/dev/null | head -3)"
fi

cal="$scratch/site.json"
c=examples/calibrate
calibrate=(calibrate "$c/llama-3.1-70b-fp8.json" --gpu H200 --tp 4 "$c/vllm-c4.json"
           "$c/vllm-c16.json")
if "$rightsize" "${calibrate[@]}" -o "$cal" >/dev/null 2>&1; then
  before=$(sha256sum <"$cal")
  faulty "calibrate -o FILE, full" RIGHTSIZE_FAIL_WRITE_AFTER=0 "$cal" "$before" \
    -- "${calibrate[@]}" "$c/vllm-c64.json" -o "$cal"
  temps=$(find "$scratch" -name '.*rightsize-*' | wc -l)
  if [ "$temps" -eq 0 ]; then
    pass "no temporary file left anywhere"
  else
    fail "$temps temporary files left: $(find "$scratch" -name '.*rightsize-*' | head -3)"
  fi
else
  fail "calibrate -o FILE did not write the first calibration"
fi

[ "$fails" -eq 0 ] || exit 1
