#!/usr/bin/env bash
# data/spec.schema.json against what the spec reader accepts: every bundled example, and specs
# that use each optional training field the reader knows (dropout, framework, training_precision
# as a preset and as an object), must be valid; a misspelt value must not be. Each spec is also
# checked with `rightsize validate`, so the schema and the reader agree both ways. Embedding
# workloads: output tokens and TensorRT-LLM are refused by both. Text generation: gamma arrivals
# and a length histogram (the example) are valid, an unknown process and a histogram beside
# input_tokens are not.
# Usage: validate_schema.sh RIGHTSIZE_BINARY. PYTHON overrides the interpreter (default: Debian's
# /usr/bin/python3 with python3-jsonschema).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin=${1:?usage: validate_schema.sh RIGHTSIZE_BINARY}
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
"$PY" - "$tmp" <<'PYEOF'
import json, sys, os
base = json.load(open("examples/llama-3.1-70b-pretrain.json"))
base["model"] = os.path.abspath("examples/models/llama-3.1-70b/config.json") if isinstance(base.get("model"), str) else base["model"]
cases = {
    "dropout": {"dropout": True},
    "framework": {"framework": "deepspeed"},
    "precision-preset": {"training_precision": "pure-bf16"},
    "precision-object": {"training_precision": {"weights": "bf16", "gradients": "bf16",
                                                "master_weights": "none", "optimizer_states": "fp32"}},
    "bad-framework": {"framework": "jax"},
}
for name, extra in cases.items():
    spec = json.loads(json.dumps(base))
    spec["workload"].update(extra)
    json.dump(spec, open(os.path.join(sys.argv[1], name + ".json"), "w"))
# An embedding workload has no output tokens, and no TensorRT-LLM recipe.
embedding = json.load(open("examples/bge-m3-rag-embeddings.json"))
embedding["model"] = os.path.abspath("examples/models/bge-m3/config.json")
for name, extra in {"embedding-output": {"output_tokens": 10},
                    "embedding-trtllm": {"engine": "tensorrt-llm"}}.items():
    spec = json.loads(json.dumps(embedding))
    spec["workload"].update(extra)
    json.dump(spec, open(os.path.join(sys.argv[1], name + ".json"), "w"))
# Text generation's arrivals and length histograms; a histogram with lengths beside it is refused.
chat = json.load(open("examples/llama-3.1-8b-chat.json"))
chat["model"] = os.path.abspath("examples/models/llama-3.1-8b/config.json")
bins = [{"input_tokens": 512, "output_tokens": 128, "share": 3},
        {"input_tokens": 4096, "output_tokens": 256, "share": 1}]
for name, extra in {"arrivals-gamma": {"arrivals": {"process": "gamma", "burstiness": 0.5}},
                    "arrivals-unknown": {"arrivals": {"process": "uniform"}},
                    "histogram-and-lengths": {"length_histogram": bins}}.items():
    spec = json.loads(json.dumps(chat))
    spec["workload"].update(extra)
    json.dump(spec, open(os.path.join(sys.argv[1], name + ".json"), "w"))
PYEOF
fails=0
check() { # FILE EXPECT(valid|invalid)
  local file=$1 want=$2 schema reader
  if "$PY" "$root/tests/support/validate_json.py" "$root/data/spec.schema.json" "$file" >"$tmp/why" 2>&1; then
    schema=valid
  else
    schema=invalid
  fi
  if "$bin" validate "$file" >/dev/null 2>&1; then reader=valid; else reader=invalid; fi
  if [ "$schema" = "$want" ] && [ "$reader" = "$want" ]; then
    echo "PASS: $file: $want for the schema and the reader"
  else
    echo "FAIL: $file: schema $schema, reader $reader, expected $want: $(head -c 300 "$tmp/why")"
    fails=$((fails + 1))
  fi
}
for f in examples/*.json; do
  case "$f" in *prices*) continue ;; esac
  check "$f" valid
done
for name in dropout framework precision-preset precision-object; do
  check "$tmp/$name.json" valid
done
check "$tmp/bad-framework.json" invalid
check "$tmp/embedding-output.json" invalid
check "$tmp/embedding-trtllm.json" invalid
check "$tmp/arrivals-gamma.json" valid
check "$tmp/arrivals-unknown.json" invalid
check "$tmp/histogram-and-lengths.json" invalid
[ "$fails" -eq 0 ] || exit 1
