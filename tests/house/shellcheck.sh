#!/usr/bin/env bash
# Every shell script of the repository passes shellcheck at its default severity (issue 50: a
# `cd` without `|| exit` under `set -uo pipefail` ran on in the wrong directory). Exit 77 (CTest:
# skipped) where shellcheck is not installed, except with CI=true (.ci/deps installs it).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1
if ! command -v shellcheck >/dev/null; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: shellcheck is not installed, and CI=true runs it (bash .ci/deps installs it)"
    exit 1
  fi
  echo "shellcheck is not installed: skipped (apt-get install shellcheck)"
  exit 77
fi
scripts=()
while IFS= read -r -d '' f; do
  scripts+=("$f")
done < <(find . -path './build*' -prune -o -path './.git' -prune -o -name '*.sh' -type f -print0)
scripts+=(.ci/run .ci/deps)
shellcheck "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean"
