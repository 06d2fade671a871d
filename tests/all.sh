#!/usr/bin/env bash
# The whole test suite, as README.md and .ci/run run it (after .ci/deps):
#  1. the build with g++ and its tests (unit, golden, reference, CLI through the binary, layering);
#  2. the same suite built with clang, ASan and UBSan (stopping at the first report), plus a short
#     run of every fuzz target from its seed corpus (docs/reliability.md).
# RIGHTSIZE_SKIP_SANITIZERS=1 runs only the first part (a quick local loop). CI=true turns
# compiler warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=${CI:-OFF}
[ "$werror" = "true" ] && werror=ON

# Each stage's time, for CI's 45-minute budget (docs/performance.md, "CI time").
stage() {
  echo "rightsize: stage \"$1\" took $((SECONDS - stage_start)) s (${SECONDS} s in all)"
  stage_start=$SECONDS
}
stage_start=$SECONDS

cmake -S . -B build -DRIGHTSIZE_WARNINGS_AS_ERRORS="$werror"
cmake --build build -j2
stage "g++ build"
ctest --test-dir build --output-on-failure -j2
stage "g++ tests"

if [ "${RIGHTSIZE_SKIP_SANITIZERS:-0}" = "1" ]; then
  echo "rightsize: sanitizer and fuzz stage skipped (RIGHTSIZE_SKIP_SANITIZERS=1)"
  exit 0
fi
cmake -S . -B build-asan -DCMAKE_CXX_COMPILER=clang++-14 -DRIGHTSIZE_FUZZ=ON \
  -DRIGHTSIZE_WARNINGS_AS_ERRORS="$werror"
cmake --build build-asan -j2
stage "clang ASan/UBSan and fuzz build"
ctest --test-dir build-asan --output-on-failure -j2
stage "sanitized tests and fuzz smoke runs"
