#!/usr/bin/env bash
# observe on real output of a real H200 (tests/data/observe/h200/, README.md there): the
# nvidia-smi log and the two torch.profiler traces recorded by bench/gpu/measure.py. The
# expected numbers were read off the files independently of rightsize (README.md there says how).
# Usage: test_real_h200.sh RIGHTSIZE SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fixtures=$src/tests/data/observe/h200
cp "$fixtures/h200-bench.csv" "$dir/"
gzip -dc "$fixtures/train-step.json.gz" >"$dir/train-step.json"
gzip -dc "$fixtures/generate.json.gz" >"$dir/generate.json"

"$bin" observe --nvidia-smi "$dir/h200-bench.csv" --format json >"$dir/smi.json" 2>"$dir/smi.err"
"$bin" observe --trace "$dir/train-step.json" --format json >"$dir/train.json" 2>/dev/null
"$bin" observe --trace "$dir/generate.json" --format json >"$dir/generate.out.json" 2>/dev/null

python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
failures = []

def expect(what, value, low, high):
    if value is None or not (low <= value <= high):
        failures.append(f"{what}: {value} not in [{low}, {high}]")

smi = json.load(open(f"{d}/smi.json"))
w = smi["workloads"]
expect("nvidia-smi workloads", len(w), 1, 1)
w = w[0]
expect("nvidia-smi samples", w["samples"], 549, 549)          # 550 lines less the header
if w["gpu"] != "H200-SXM-141GB":
    failures.append(f"nvidia-smi catalog match: {w['gpu']}")
# memory.used peaks at 85601 MiB (83.59 GiB) during full fine-tuning of Llama-3.2-3B.
expect("nvidia-smi memory peak GiB", w["observed"]["memory_used_gib"]["max"], 83.55, 83.65)
# 228 of 549 samples carry 0x4 (software power cap): 41.5%.
reasons = {r["code"]: r for r in w["reasons"]}
if "throttled" not in reasons:
    failures.append(f"nvidia-smi: no throttled reason in {sorted(reasons)}")
elif "42%" not in reasons["throttled"]["text"]:
    failures.append(f"nvidia-smi throttled share: {reasons['throttled']['text']}")

train = json.load(open(f"{d}/train.json"))["workloads"][0]["trace"]
# Kernel time by name in the trace: cuBLAS nvjet GEMMs 42.6%, cuDNN flash attention 5.3%,
# no NCCL; busy 86% (two steps of full fine-tuning, fused AdamW).
expect("train GEMM %", train["kernel_time"]["gemm_percent"], 40, 45)
expect("train attention %", train["kernel_time"]["attention_percent"], 4, 7)
expect("train communication %", train["kernel_time"]["communication_percent"], 0, 0)
expect("train busy %", train["busy_percent"], 80, 92)

gen = json.load(open(f"{d}/generate.out.json"))["workloads"][0]
# transformers' eager generate: the GPU idles between Python's kernel launches.
expect("generate busy %", gen["trace"]["busy_percent"], 15, 35)
if "low_utilization" not in {r["code"] for r in gen["reasons"]}:
    failures.append("generate: no low_utilization reason")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
echo "observe reads the real H200 log and traces"
