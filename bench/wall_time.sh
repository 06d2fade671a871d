#!/usr/bin/env bash
# Whole-process figures of docs/performance.md, printed as a Markdown table: the median wall time
# and mean CPU time (hyperfine, no shell, after warm-up runs) and peak RSS (/usr/bin/time %M) of
#   - `rightsize --version` (the process floor) and, when a C++ compiler is at hand, a C++
#     hello-world linked like rightsize (the floor of any dynamically linked C++ program);
#   - `rightsize plan EXAMPLE --format json` for each bundled example;
#   - `rightsize check DIR` over SPECS generated specs (bench/generate_specs.cpp), their lock
#     file written first with `check --update`, which is timed once and not part of the check.
# Usage: bench/wall_time.sh [BINARY [GENERATOR [SPECS]]]
#   BINARY     the rightsize to time (default build/rightsize)
#   GENERATOR  rightsize_generate_specs (default build/bench/rightsize_generate_specs)
#   SPECS      how many specs `check` runs over (default 1000)
# Environment: RUNS (hyperfine runs per plan, default 30), CHECK_RUNS (default 5), WARMUP
# (default 3), SEED (the generator's, default 1). Needs hyperfine and GNU time.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
binary=$(realpath "${1:-$root/build/rightsize}")
generator=$(realpath "${2:-$root/build/bench/rightsize_generate_specs}")
specs=${3:-1000}
runs=${RUNS:-30}
check_runs=${CHECK_RUNS:-5}
warmup=${WARMUP:-3}
seed=${SEED:-1}

for tool in hyperfine /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "wall_time.sh: $tool is not installed" >&2; exit 2; }
done
for exe in "$binary" "$generator"; do
  [[ -x $exe ]] || { echo "wall_time.sh: $exe is not an executable" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "12.34 ms" below a second, "1.23 s" above.
seconds() {
  awk -v s="$1" 'BEGIN { if (s < 1) printf "%.2f ms", s * 1000; else printf "%.2f s", s }'
}

# Median wall time and mean CPU time (user + system) of a command (its words as arguments), in
# seconds: "WALL CPU". The CPU time is the figure to trust on a busy machine.
timing() {
  local runs_here=$1 warm=$2
  shift 2
  local quoted
  quoted=$(printf '%q ' "$@")
  hyperfine -N -i --style none --warmup "$warm" --runs "$runs_here" --command-name timed \
    --export-csv "$tmp/hyperfine.csv" "$quoted" > /dev/null 2>&1
  # command,mean,stddev,median,user,system,min,max
  awk -F, 'NR == 2 { print $4, $5 + $6 }' "$tmp/hyperfine.csv"
}

# Peak resident set size of a command, the largest of COUNT runs, in MiB: peak_rss COUNT CMD...
# Fails unless the command exits 0, 1 (a check regression) or 3 (nothing feasible, as some
# examples and generated specs are on purpose).
peak_rss() {
  local count=$1 code kib max=0
  shift
  for ((i = 0; i < count; ++i)); do
    code=0
    /usr/bin/time -f '%M' -o "$tmp/rss" "$@" > /dev/null 2> "$tmp/stderr" || code=$?
    if [[ $code -ne 0 && $code -ne 1 && $code -ne 3 ]]; then
      echo "wall_time.sh: '$*' exited with $code:" >&2
      head -3 "$tmp/stderr" >&2
      return 1
    fi
    kib=$(tail -1 "$tmp/rss")
    ((kib > max)) && max=$kib
  done
  awk -v k="$max" 'BEGIN { printf "%.1f MiB", k / 1024 }'
}

# row NAME "WALL CPU" RSS
row() {
  local wall cpu
  read -r wall cpu <<< "$2"
  printf '| %s | %s | %s | %s |\n' "$1" "$(seconds "$wall")" \
    "$([[ -n $cpu ]] && seconds "$cpu" || echo -)" "$3"
}

# measure NAME RUNS WARMUP RSS_RUNS CMD...: one row; the peak RSS runs come first and check the
# exit code. Assignments, so that a failure stops the script (set -e).
measure() {
  local name=$1 runs_here=$2 warm=$3 rss_runs=$4 rss times
  shift 4
  rss=$(peak_rss "$rss_runs" "$@")
  times=$(timing "$runs_here" "$warm" "$@")
  row "$name" "$times" "$rss"
}

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "rightsize: $binary ($("$binary" --version)), $(nproc) cores ($cpu), $(date -u +%Y-%m-%d)"
echo "hyperfine -N, $warmup warm-up runs, median of $runs runs (check: median of $check_runs" \
  "after 1 for peak RSS); peak RSS: max of 3 runs;" \
  "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | median wall time | mean CPU time | peak RSS |"
echo "|---|---|---|---|"

if command -v c++ > /dev/null; then
  printf '#include <iostream>\nint main() { std::cout << "hello\\n"; }\n' > "$tmp/hello.cpp"
  if c++ -O2 -o "$tmp/hello" "$tmp/hello.cpp" 2> /dev/null; then
    measure "C++ hello world (reference floor)" "$runs" "$warmup" 3 "$tmp/hello"
  fi
fi
measure "\`rightsize --version\` (process floor)" "$runs" "$warmup" 3 "$binary" --version

for example in "$root"/examples/*.json; do
  # Catalog overlays (my-prices.json) are not specs.
  grep -q '"extends"' "$example" && continue
  measure "\`plan $(basename "$example") --format json\`" "$runs" "$warmup" 3 \
    "$binary" plan "$example" --format json
done

"$generator" "$specs" "$tmp/specs" "$seed" > /dev/null
# One run: wall, user and system seconds, peak KiB.
/usr/bin/time -f '%e %U %S %M' -o "$tmp/update" "$binary" check --update "$tmp/specs" \
  --format json > /dev/null 2> "$tmp/update.err" ||
  { echo "wall_time.sh: check --update failed:" >&2; head -3 "$tmp/update.err" >&2; exit 1; }
read -r wall user sys kib < <(tail -1 "$tmp/update")
row "\`check --update\` over $specs specs (writes the locks; one run)" \
  "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
  "$(awk -v k="$kib" 'BEGIN { printf "%.1f MiB", k / 1024 }')"
# The peak RSS run is the warm-up.
measure "\`check\` over $specs specs" "$check_runs" 0 1 "$binary" check "$tmp/specs" --format json
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
