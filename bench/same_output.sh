#!/usr/bin/env bash
# Does a change leave every answer as it was? Runs two binaries on the same command lines and
# compares standard output, standard error and exit code of each, and the files a command writes.
#
#   bench/same_output.sh BEFORE AFTER [GENERATED]
#
# The command lines, built from the repository as it is (run from its root):
#  - `plan` of every bundled spec (examples/*.json but the catalog overlay my-prices.json,
#    examples/deploy/*.json, examples/ci/specs/*.json) in JSON, table, Markdown and CSV under each
#    option set below, and in HTML and SVG with the defaults;
#  - `deploy` of every bundled spec under each autoscaler, and of the deploy examples with the
#    flags their golden tests use;
#  - the command line of every golden test (tests/golden/*/args);
#  - `estimate` of every bundled spec on a grid of GPUs and options, in table and JSON;
#  - `model` and `validate` of every config.json and model_index.json under tests/data/configs,
#    and `validate`/`plan` of every spec under tests/data/specs;
#  - `observe` of every sample in examples/observe and tests/data/observe, in every format;
#  - `compare`, `catalog list` and `catalog show` of every GPU;
#  - `plan --lock`, then `check` (every format, --replan, a price rise, --update) in a scratch copy
#    of examples/ci for each binary, comparing the lock files they write too;
#  - `plan --format json`, `estimate --format json` and `check --replan` of GENERATED specs from
#    rightsize_generate_specs (default 150, seed 7; 0 skips them; needs
#    build/bench/rightsize_generate_specs or $GENERATOR).
# Prints the number of command lines and the differing ones; exit 1 when any differs.
# ONLY=REGEX keeps the command lines that match it (a quick loop on one command).
set -euo pipefail

before=$(realpath "$1")
after=$(realpath "$2")
generated=${3:-150}
generator=${GENERATOR:-build/bench/rightsize_generate_specs}
only=${ONLY:-}
work=$(mktemp -d)
if [[ -n ${KEEP:-} ]]; then
  echo "work: $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

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
  lines+=("plan $spec --format html" "plan $spec --format svg" "plan $spec --published")
  for autoscaler in hpa keda none; do
    lines+=("deploy $spec --autoscaler $autoscaler --model-uri org/model")
  done
  lines+=("validate $spec" "validate $spec --format json")
done
for spec in examples/deploy/*.json; do
  lines+=("deploy $spec" "deploy $spec --share-gpus --autoscaler keda" "deploy $spec --engine sglang")
done

# Every golden test's command line.
for args in tests/golden/*/args; do
  lines+=("$(head -n 1 "$args")")
done

# estimate on a grid.
gpus=(L4 L40S A10G A100-80GB H100 H100-NVL H200 B200 MI300X T4)
estimate_options=(
  ""
  "--format json"
  "--tp 2"
  "--tp 4 --format json"
  "--weights fp8 --kv-cache fp8"
  "--batch 64"
  "--dp 2"
  "--confidence point"
)
for spec in "${specs[@]}"; do
  for gpu in "${gpus[@]}"; do
    for opts in "${estimate_options[@]}"; do
      lines+=("estimate $spec --gpu $gpu $opts")
    done
  done
done

# Every model the tests read, and every test spec.
while IFS= read -r config; do
  lines+=("model $config" "model $config --format json" "validate $config")
  lines+=("plan $config --format json")
done < <(find tests/data/configs -name config.json -o -name model_index.json | sort)
for spec in tests/data/specs/*.json; do
  lines+=("plan $spec" "estimate $spec --gpu H100" "validate $spec")
done

# observe of every sample, in every format.
observe_inputs=()
for f in examples/observe/*.csv tests/data/observe/*.csv; do
  [[ -f $f ]] && observe_inputs+=("--nvidia-smi $f")
done
for f in examples/observe/*.prom tests/data/observe/*.prom tests/data/observe/*.txt; do
  [[ -f $f ]] && observe_inputs+=("--dcgm $f")
done
for f in examples/observe/*.json examples/observe/*.sqlite tests/data/observe/*.json; do
  [[ -f $f ]] && observe_inputs+=("--trace $f")
done
observe_inputs+=("--dcgm examples/observe/cluster.prom --nvidia-smi examples/observe/node-12.csv --group-by host --no-mig")
for input in "${observe_inputs[@]}"; do
  for format in table json markdown csv html svg; do
    lines+=("observe $input --format $format")
  done
  lines+=("observe $input --group-by host" "observe $input --no-mig")
done

# compare and the catalog.
for spec in "${specs[@]}"; do
  lines+=("compare $spec" "compare $spec --format json")
done
lines+=("catalog list --format json" "catalog list --format markdown")
while IFS= read -r gpu; do
  lines+=("catalog show $gpu" "catalog show $gpu --format json")
done < <("$before" catalog list --format csv | tail -n +2 | cut -d, -f1)

if [[ $generated -gt 0 ]]; then
  "$generator" "$generated" "$work/specs" 7 >/dev/null
  for spec in "$work"/specs/*.json; do
    lines+=("plan $spec --format json" "estimate $spec --gpu H100 --format json")
  done
fi

if [[ -n $only ]]; then
  kept=()
  for line in "${lines[@]}"; do
    [[ $line =~ $only ]] && kept+=("$line")
  done
  lines=("${kept[@]}")
fi

# A binary names its source tree's data/ (catalog validate, compare --list): the two binaries
# may be built from different checkouts, so that path is compared as <data>.
run() { # BINARY OUT_PREFIX ARGS...
  local binary=$1 out=$2
  shift 2
  set +e
  timeout 60 "$binary" "$@" >"$out.raw.out" 2>"$out.raw.err" </dev/null
  echo $? >"$out.rc"
  set -e
  local data
  data=$(dirname "$(dirname "$(realpath "$binary")")")/data
  [[ -d $data ]] || data=$(dirname "$(dirname "$(dirname "$(realpath "$binary")")")")/data
  sed "s#$data#<data>#g" "$out.raw.out" >"$out.out"
  sed "s#$data#<data>#g" "$out.raw.err" >"$out.err"
}

differ=0
i=0
same() { # A B: the outputs of two runs agree
  cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"
}
for line in "${lines[@]}"; do
  i=$((i + 1))
  read -r -a args <<<"$line"
  run "$before" "$work/a" "${args[@]}"
  run "$after" "$work/b" "${args[@]}"
  if ! same "$work/a" "$work/b"; then
    echo "differs: $line"
    differ=$((differ + 1))
  fi
done

# Locks and check, in a scratch copy of examples/ci per binary: the reports and the files written.
lock_session() { # BINARY DIR
  local binary=$1 dir=$2 n=0
  mkdir -p "$dir"
  cp -r examples/ci "$dir/ci"
  ln -s "$PWD/examples/models" "$dir/models" # the specs name ../../models/...
  rm -f "$dir/ci/specs/rightsize.lock.json"
  if [[ $generated -gt 0 ]]; then
    mkdir -p "$dir/gen"
    cp "$work"/specs/*.json "$dir/gen/"
  fi
  (
    cd "$dir"
    step() {
      n=$((n + 1))
      run "$binary" "out.$n" "$@"
    }
    for spec in ci/specs/*.json; do
      step plan "$spec" --lock ci/specs/rightsize.lock.json --format json
    done
    for format in table json markdown html svg; do
      step check ci/specs --config ci/.rightsize.json --format "$format"
    done
    step check ci/specs --config ci/.rightsize.json --replan --format json
    step check ci/specs --config ci/.rightsize.json --catalog ci/price-rise.json
    step check ci/specs --config ci/.rightsize.json --catalog ci/price-rise.json --format json
    step check ci/specs --catalog ci/price-rise.json --max-cost-increase 50% --fail-on cost,gpus
    step check ci/specs --config ci/.rightsize.json --objective latency --format json
    step check ci/specs --config ci/.rightsize.json --catalog ci/price-rise.json --update
    step check ci/specs --config ci/.rightsize.json --format json
    rm -f ci/specs/chat.json
    step check ci/specs --config ci/.rightsize.json --format json
    step check ci/specs --config ci/.rightsize.json --update --format json
    if [[ $generated -gt 0 ]]; then
      step check gen --update --format json
      step check gen --format json
      step check gen --replan --format json --mode onprem
    fi
    echo "$n" >steps
  )
}
lock_session "$before" "$work/la"
lock_session "$after" "$work/lb"
steps=$(cat "$work/la/steps")
for n in $(seq 1 "$steps"); do
  i=$((i + 1))
  if ! same "$work/la/out.$n" "$work/lb/out.$n"; then
    echo "differs: check session step $n"
    differ=$((differ + 1))
  fi
done
for lock in ci/specs/rightsize.lock.json gen/rightsize.lock.json; do
  if [[ -f $work/la/$lock || -f $work/lb/$lock ]]; then
    i=$((i + 1))
    if ! cmp -s "$work/la/$lock" "$work/lb/$lock"; then
      echo "differs: $lock as written"
      differ=$((differ + 1))
    fi
  fi
done

echo "$i command lines, $differ differ"
[[ $differ -eq 0 ]]
