#!/usr/bin/env bash
# rightsize observe --format json against its published schema (data/observe-report.schema.json),
# through the real binary, on every bundled example input (examples/observe/) and on the test
# fixtures that give other verdicts, reasons and MIG partitions. Usage: validate_report.sh
# RIGHTSIZE_BINARY. PYTHON overrides the interpreter (default: Debian's /usr/bin/python3 with
# python3-jsonschema).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin=${1:?usage: validate_report.sh RIGHTSIZE_BINARY}
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RIGHTSIZE_TODAY=2026-11-21
unset RIGHTSIZE_CATALOG
cd "$root" || exit 1
fails=0
validate() { # NAME ARGS...
  local name=$1
  shift
  if ! "$bin" observe "$@" --format json >"$tmp/out.json" 2>"$tmp/err"; then
    echo "FAIL: $name: exit $?: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return
  fi
  if "$PY" "$root/tests/support/validate_json.py" "$root/data/observe-report.schema.json" "$tmp/out.json"; then
    echo "PASS: $name ($(grep -c '"verdict"' "$tmp/out.json") workloads)"
  else
    echo "FAIL: $name: not valid against data/observe-report.schema.json"
    fails=$((fails + 1))
  fi
}
validate "nvidia-smi" --nvidia-smi examples/observe/node-12.csv
validate "dcgm with pods" --dcgm examples/observe/cluster.prom
validate "dcgm with MIG" --dcgm tests/data/observe/dcgm-mig.txt
validate "torch trace" --trace examples/observe/train-step.json --gpu-model A100-PG509-200=A100-SXM-40GB
validate "nsys trace" --trace examples/observe/ddp-step.sqlite
validate "all, by host, no MIG" --dcgm examples/observe/cluster.prom \
  --nvidia-smi examples/observe/node-12.csv --group-by host --no-mig
validate "trace attached to a pod" --dcgm examples/observe/cluster.prom \
  --trace research/train-bert-0=examples/observe/ddp-step.sqlite
validate "a vLLM pod judged on its engine metrics and spec" --dcgm examples/observe/cluster.prom \
  --engine-metrics examples/observe/vllm-metrics.prom --spec-map examples/observe/spec-map.json
validate "engine metrics without a spec" --dcgm examples/observe/cluster.prom \
  --engine-metrics examples/observe/vllm-metrics.prom
validate "a nounits log with bad rows" --nvidia-smi tests/data/observe/nvidia-smi-a100-nounits.csv \
  --nvidia-smi tests/data/observe/nvidia-smi-bad.csv
[ "$fails" -eq 0 ] || exit 1
