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

cmake -S . -B build -DRIGHTSIZE_WARNINGS_AS_ERRORS="$werror"
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2

if [ "${RIGHTSIZE_SKIP_SANITIZERS:-0}" = "1" ]; then
  echo "rightsize: sanitizer and fuzz stage skipped (RIGHTSIZE_SKIP_SANITIZERS=1)"
  exit 0
fi
cmake -S . -B build-asan -DCMAKE_CXX_COMPILER=clang++-14 -DRIGHTSIZE_FUZZ=ON \
  -DRIGHTSIZE_WARNINGS_AS_ERRORS="$werror"
cmake --build build-asan -j2
ctest --test-dir build-asan --output-on-failure -j2
