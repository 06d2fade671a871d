#!/usr/bin/env bash
# Does a change to the search or the loaders leave every answer as it was? Runs two binaries on
# the same command lines and compares standard output, standard error and exit code of each.
#
#   bench/same_output.sh BEFORE AFTER [GENERATED]
#
# The command lines: `plan` of every bundled spec (examples/*.json but the catalog overlay
# my-prices.json, examples/deploy/*.json, examples/ci/specs/*.json) in JSON, table, Markdown and
# CSV under each option set below; `deploy` of the deploy examples; and `plan --format json` of
# GENERATED specs from rightsize_generate_specs (default 150, seed 7; 0 skips them; needs
# build/bench/rightsize_generate_specs or $GENERATOR). Prints the number of command lines and the
# differing ones; exit 1 when any differs. Run from the repository root.
set -euo pipefail

before=$1
after=$2
generated=${3:-150}
generator=${GENERATOR:-build/bench/rightsize_generate_specs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

option_sets=(
  ""
  "--objective cost_per_token"
  "--objective latency"
  "--objective gpus"
  "--objective power"
  "--confidence point"
  "--share-gpus"
  "--mode onprem"
  "--mode onprem --objective power --horizon-months 24 --growth 0.2"
  "--catalog examples/my-prices.json"
  "--assume max_num_seqs=64 --assume vllm_gpu_memory_utilization=0.85"
)

specs=()
for f in examples/*.json examples/deploy/*.json examples/ci/specs/*.json; do
  case $f in
  */my-prices.json | */rightsize.lock.json) ;;
  *) specs+=("$f") ;;
  esac
done

lines=()
for spec in "${specs[@]}"; do
  for opts in "${option_sets[@]}"; do
    for format in json table markdown csv; do
      lines+=("plan $spec --format $format $opts")
    done
  done
done
for spec in examples/deploy/*.json; do
  lines+=("deploy $spec")
done
if [[ $generated -gt 0 ]]; then
  "$generator" "$generated" "$work/specs" 7 >/dev/null
  for spec in "$work"/specs/*.json; do
    lines+=("plan $spec --format json")
  done
fi

run() { # BINARY OUT_PREFIX ARGS...
  local binary=$1 out=$2
  shift 2
  set +e
  "$binary" "$@" >"$out.out" 2>"$out.err"
  echo $? >"$out.rc"
  set -e
}

differ=0
i=0
for line in "${lines[@]}"; do
  i=$((i + 1))
  read -r -a args <<<"$line"
  run "$before" "$work/a" "${args[@]}"
  run "$after" "$work/b" "${args[@]}"
  if ! cmp -s "$work/a.out" "$work/b.out" || ! cmp -s "$work/a.err" "$work/b.err" ||
    ! cmp -s "$work/a.rc" "$work/b.rc"; then
    echo "differs: $line"
    differ=$((differ + 1))
  fi
done
echo "$i command lines, $differ differ"
[[ $differ -eq 0 ]]
