#!/usr/bin/env bash
# Self-test of tests/deploy/validate_manifests.py against the hand-written fixtures:
#   * fixtures/good.yaml must pass (exit 0), also when read from stdin, and contain every
#     (apiVersion, kind) the validator supports;
#   * every fixtures/bad-*.yaml must fail (exit 1) with exactly one error line, equal to
#     "FILE: " + the text of its "# expect: ..." header (document number, Kind/name, field);
#   * usage / missing file / broken YAML exit 2;
#   * the vendored schemas still match the sha256 recorded in tests/data/schemas/SOURCES.json.
# Exit 0 when all expectations hold. PYTHON overrides the interpreter (default: Debian's
# /usr/bin/python3 with python3-yaml and python3-jsonschema).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
PY=${PYTHON:-/usr/bin/python3}
V=tests/deploy/validate_manifests.py
S=tests/data/schemas
FX=tests/deploy/fixtures
fails=0 checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

if ! "$PY" -c 'import yaml, jsonschema' 2>/dev/null; then
  echo "FAIL: $PY lacks PyYAML/jsonschema (Debian: apt-get install python3-yaml python3-jsonschema)"
  exit 1
fi

# run FILE... -> sets rc, out (stdout), err (stderr)
run() {
  "$PY" "$V" "$S" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

run "$FX/good.yaml"
if [ "$rc" -eq 0 ] && [ -z "$out" ] && [[ "$err" == "ok: "*" documents" ]]; then
  pass "good.yaml accepted ($err)"
else
  fail "good.yaml: rc=$rc, expected 0"; echo "$out"; echo "$err"
fi

# good.yaml must contain every (apiVersion, kind) the validator supports (incl. PodMonitor)
if missing=$("$PY" - "$V" "$FX/good.yaml" <<'EOF'
import importlib.util, sys, yaml
sys.dont_write_bytecode = True  # do not leave tests/deploy/__pycache__ behind
spec = importlib.util.spec_from_file_location("vm", sys.argv[1])
vm = importlib.util.module_from_spec(spec); spec.loader.exec_module(vm)
have = {(d.get("apiVersion"), d.get("kind")) for d in yaml.safe_load_all(open(sys.argv[2])) if d}
miss = sorted(f"{av} {k}" for av, k in vm.KINDS if (av, k) not in have)
print(", ".join(miss)); sys.exit(1 if miss else 0)
EOF
); then pass "good.yaml covers all supported kinds"; else fail "good.yaml lacks: $missing"; fi

run - <"$FX/good.yaml"
if [ "$rc" -eq 0 ]; then pass "good.yaml accepted from stdin"; else fail "stdin: rc=$rc"; echo "$out"; fi

for f in "$FX"/bad-*.yaml; do
  expect=$(sed -n 's/^# expect: //p' "$f" | head -n1)
  if [ -z "$expect" ]; then fail "$f has no '# expect:' header"; continue; fi
  run "$f"
  want="$f: $expect"
  lines=$(printf '%s\n' "$out" | grep -c .)
  if [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && [ "$out" = "$want" ]; then
    pass "$(basename "$f") rejected: ${out#"$f: "}"
  else
    fail "$(basename "$f"): rc=$rc (want 1), $lines error line(s) (want 1)"
    echo "  want: $want"; printf '  got:  %s\n' "$out"; [ -n "$err" ] && echo "  stderr: $err"
  fi
done

# all bad fixtures together: exit 1 and one line per file
run "$FX"/bad-*.yaml
nbad=$(find "$FX" -maxdepth 1 -name "bad-*.yaml" | wc -l)
if [ "$rc" -eq 1 ] && [ "$(printf '%s\n' "$out" | grep -c .)" -eq "$nbad" ]; then
  pass "all $nbad bad fixtures in one run: $nbad errors, exit 1"
else
  fail "bad fixtures in one run: rc=$rc"; echo "$out"
fi

run
if [ "$rc" -eq 2 ]; then pass "no FILE argument: exit 2"; else fail "usage: rc=$rc, want 2"; fi
run "$FX/does-not-exist.yaml"
if [ "$rc" -eq 2 ]; then pass "missing file: exit 2"; else fail "missing file: rc=$rc, want 2"; fi
run - <<<$'apiVersion: v1\nkind: [unclosed'
if [ "$rc" -eq 2 ]; then pass "YAML syntax error: exit 2"; else fail "YAML syntax error: rc=$rc, want 2"; fi
run - <<<$'apiVersion: v1\napiVersion: v1\nkind: Service'
if [ "$rc" -eq 2 ]; then pass "duplicate key: exit 2"; else fail "duplicate key: rc=$rc, want 2"; fi

if "$PY" - "$S" <<'EOF'; then pass "vendored schemas match SOURCES.json sha256"; else fail "vendored schemas differ from SOURCES.json (re-run vendor.py, do not hand-edit)"; fi
import hashlib, json, os, sys
d = sys.argv[1]
bad = 0
for s in json.load(open(os.path.join(d, "SOURCES.json")))["files"]:
    with open(os.path.join(d, s["file"]), "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != s["sha256"]:
            print("  changed:", s["file"]); bad = 1
sys.exit(bad)
EOF

echo "test_validator.sh: $((checks - fails))/$checks checks passed"
[ "$fails" -eq 0 ]
