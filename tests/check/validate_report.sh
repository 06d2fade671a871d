#!/usr/bin/env bash
# rightsize check --format json against its published schema (data/check-report.schema.json),
# through the real binary, in every outcome: all clear, a regression, added / removed / error
# specs, an update, infeasible. Usage: validate_report.sh RIGHTSIZE_BINARY. PYTHON overrides the
# interpreter (default: Debian's /usr/bin/python3 with python3-jsonschema).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin=${1:?usage: validate_report.sh RIGHTSIZE_BINARY}
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RIGHTSIZE_TODAY=2026-11-21
unset RIGHTSIZE_CATALOG
mkdir -p "$tmp/repo"
cp -r "$root/examples/ci/specs" "$root/examples/ci/.rightsize.json" "$root/examples/ci/price-rise.json" "$tmp/repo/"
mkdir -p "$tmp/models" && cp -r "$root/examples/models/llama-3.1-8b" "$root/examples/models/llama-3.1-70b" "$tmp/models/"
cd "$tmp/repo" || exit 1
fails=0 n=0
validate() { # NAME EXPECTED_EXIT ARGS...
  local name=$1 want=$2
  shift 2
  n=$((n + 1))
  "$bin" check "$@" --format json >"$tmp/out.json" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $name: exit $got, expected $want: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return
  fi
  if "$PY" "$root/tests/support/validate_json.py" "$root/data/check-report.schema.json" "$tmp/out.json"; then
    echo "PASS: $name (exit $got, $(grep -c '"status"' "$tmp/out.json") results)"
  else
    echo "FAIL: $name: not valid against data/check-report.schema.json"
    fails=$((fails + 1))
  fi
}
validate "all clear" 0 specs
validate "price rise" 1 specs --catalog price-rise.json
cp specs/chat.json specs/new.json
echo '{ broken' >specs/broken.json
mv specs/sla.json "$tmp/sla.json"
validate "added, removed, error" 2 specs
rm specs/broken.json
validate "update" 0 specs --update
mv "$tmp/sla.json" specs/sla.json
"$PY" -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); d["workload"]["input_tokens"]=120000; d["workload"]["targets"]["ttft_ms"]=10; json.dump(d,open(p,"w"))' specs/chat.json
validate "infeasible" 3 specs/chat.json
# A disaggregated recommendation (prefill_replicas) and an embedding's own-unit figures.
mkdir -p "$tmp/other/models"
cp -r "$root/examples/models/deepseek-v3" "$root/examples/models/bge-m3" "$tmp/other/models/"
cp "$root/examples/deepseek-v3-long-prompts.json" "$root/examples/bge-m3-rag-embeddings.json" "$tmp/other/"
for spec in deepseek-v3-long-prompts bge-m3-rag-embeddings; do
  "$bin" plan "$tmp/other/$spec.json" --lock --format csv >/dev/null 2>&1 || { echo "FAIL: plan --lock $spec"; fails=$((fails + 1)); }
  validate "$spec" 0 "$tmp/other/$spec.json"
done
grep -q '"prefill_replicas"' "$tmp/other/rightsize.lock.json" || { echo "FAIL: the DeepSeek lock is not disaggregated"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "all $n check reports valid"
exit $((fails > 0))
