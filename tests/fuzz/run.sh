#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a given time each (default 600 s), one after the
# other, from its seed corpus. New inputs go to build-fuzz/tests/fuzz/work/<target> (kept between
# runs), crashes to build-fuzz/tests/fuzz/artifacts/. Prints one summary line per target: runs,
# executions per second, corpus size, and whether it found anything. docs/reliability.md.
#
#   bash tests/fuzz/run.sh [seconds-per-target] [target...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-600}
shift || true
build="build-fuzz"
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRIGHTSIZE_FUZZ=ON >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(json spec hf_config quant_config safetensors catalog lock engines check_config
           nvidia_smi dcgm torch_trace prometheus_matrix bench_result calibration price_list
           published prometheus_answers engine_metrics spec_map)
fi
cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}" >/dev/null
status=0
for t in "${targets[@]}"; do
  work="$build/tests/fuzz/work/$t"
  artifacts="$build/tests/fuzz/artifacts"
  mkdir -p "$work" "$artifacts"
  log="$build/tests/fuzz/$t.log"
  if "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -dict=tests/fuzz/json.dict \
      -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$t-" -print_final_stats=1 \
      "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    found="nothing found"
  else
    found="FOUND A PROBLEM (see $log and $artifacts)"
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(find "$work" -type f | wc -l)
  echo "fuzz_$t: ${runs:-?} runs in ${seconds} s (${speed:-?}/s), $corpus new corpus inputs, $found"
done
exit $status
