#!/usr/bin/env bash
# tests/catalog/test_refresh.sh RIGHTSIZE
#
# rightsize catalog refresh against replayed price lists (docs/catalog.md, "Fresh prices"):
# price_server.py serves tests/data/prices/ on 127.0.0.1 (a port the kernel picks) and answers
# each fault on request. Checked through the real binary:
#   1. Azure's Retail Prices API, two pages: the overlay holds the Linux on-demand, Spot and
#      1- and 3-year reservation prices per GPU of the listed VM sizes of the region, nothing of
#      Windows, Low Priority, Dev/Test, Cloud Services or another region; `plan --catalog` uses it
#      (--provider azure, --price-kind committed-1y).
#   2. AWS's EC2 offer file: on-demand and 1-/3-year no-upfront standard reserved prices, dated by
#      the file's Publication Date (and so flagged STALE by plan); not the Capacity Block, Windows,
#      Dedicated, unused-reservation, upfront-fee or convertible rows.
#   3. A 429 with Retry-After is waited out; a 500, a truncated body, a renamed field, an HTML
#      page, a NextPageLink loop, a server that never answers and a closed port each exit 2 with
#      one line on stderr naming the URL, and write nothing: no new file, an old one unchanged.
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without python3.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE"
  exit 2
fi
rightsize=$1
py=/usr/bin/python3
if [ ! -x "$py" ]; then
  echo "SKIP: no /usr/bin/python3 (it runs the replay server)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd) || exit 2
root=$(cd "$here/../.." && pwd) || exit 2

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
export RIGHTSIZE_TODAY=2026-12-07

scratch=$(mktemp -d)
server=""
# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0 checks=0
pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

"$py" "$here/price_server.py" "$root/tests/data/prices" "$scratch/port" &
server=$!
for _ in $(seq 100); do
  [ -s "$scratch/port" ] && break
  sleep 0.05
done
if [ ! -s "$scratch/port" ]; then
  echo "FAIL: the replay server did not start"
  exit 1
fi
base="http://127.0.0.1:$(cat "$scratch/port")"

# --- 1. Azure -------------------------------------------------------------------------------
if "$rightsize" catalog refresh --provider azure --url "$base/ok" -o "$scratch/azure.json" \
  >"$scratch/out" 2>"$scratch/err"; then
  pass "azure: exit 0"
else
  fail "azure: exit $? ($(head -c 300 "$scratch/err"))"
fi
if grep -q "^wrote $scratch/azure.json: 7 prices of 4 Azure instance types in eastus, retrieved 2026-12-07 (2 requests" "$scratch/out"; then
  pass "azure: the summary line"
else
  fail "azure: the summary line: $(head -c 300 "$scratch/out")"
fi
check_overlay() { # FILE PYTHON-ASSERTIONS
  "$py" - "$1" "$2" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
prices = {(g["name"], p["instance"], p["kind"]): p for g in o["gpus"] for p in g["prices"]}
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(sorted((k, v["usd_per_gpu_hour"]) for k, v in prices.items())))
sys.exit(0 if ok else 1)
PY
}
h100="'H100-SXM-80GB', 'Standard_ND96isr_H100_v5'"
if check_overlay "$scratch/azure.json" \
  "o['extends'] == 'bundled' and len(prices) == 7 and prices[('GB200-186GB', 'Standard_ND128isr_NDR_GB200_v6', 'on_demand')]['usd_per_gpu_hour'] == 27.0 and prices[($h100, 'on_demand')]['usd_per_gpu_hour'] == 12.29 and prices[($h100, 'spot')]['usd_per_gpu_hour'] == 2.271192 and prices[($h100, 'committed_1y')]['usd_per_gpu_hour'] == round(603660 / 8760 / 8, 6) and prices[($h100, 'committed_3y')]['usd_per_gpu_hour'] == round(1292000 / 26280 / 8, 6) and prices[('A100-PCIE-80GB', 'Standard_NC24ads_A100_v4', 'on_demand')]['usd_per_gpu_hour'] == 3.673 and prices[('T4-16GB', 'Standard_NC4as_T4_v3', 'on_demand')]['usd_per_gpu_hour'] == 0.526 and all(p['provider'] == 'Azure' and p['as_of'] == '2026-12-07' and p['as_of_kind'] == 'retrieved' and p['gpus_per_instance'] in (1, 4, 8) for p in prices.values())"; then
  pass "azure: Linux on-demand, Spot and reservations per GPU; no Windows, Low Priority, Dev/Test, Cloud Services or westus"
else
  fail "azure: the overlay's prices (above)"
fi
if "$rightsize" catalog validate "$scratch/azure.json" >/dev/null 2>"$scratch/err" &&
  "$rightsize" catalog show GB200 --catalog "$scratch/azure.json" | grep -q "Standard_ND128isr_NDR_GB200_v6"; then
  pass "azure: catalog validate takes the overlay; GB200, not rentable in the bundled catalog, is priced by it"
else
  fail "azure: catalog validate: $(head -c 300 "$scratch/err")"
fi
if "$rightsize" plan "$root/examples/llama-3.1-70b-sla.json" --catalog "$scratch/azure.json" \
  --provider azure --price-kind committed-1y --format json >"$scratch/plan.json" 2>"$scratch/err" &&
  "$py" -c '
import json, sys
p = json.load(open(sys.argv[1]))
label = p["candidates"][0]["cost"]["price"]
# Instances added as demand grows commit past the 12-month horizon: the plan says so.
noted = any(n.startswith("committed_1y prices are costed for the months each instance runs") for n in p["notes"])
sys.exit(0 if "Azure Standard_ND96isr_H100_v5" in label and "committed_1y" in label and noted else 1)' "$scratch/plan.json"; then
  pass "azure: plan --catalog OVERLAY --provider azure --price-kind committed-1y prices the 8-GPU VM, noting the term past the horizon"
else
  fail "azure: plan with the overlay: $(head -c 300 "$scratch/err") $(head -c 300 "$scratch/plan.json")"
fi

# --- 2. AWS ---------------------------------------------------------------------------------
if "$rightsize" catalog refresh --provider aws --url "$base/ok" -o "$scratch/aws.json" \
  >"$scratch/out" 2>"$scratch/err"; then
  pass "aws: exit 0"
else
  fail "aws: exit $? ($(head -c 300 "$scratch/err"))"
fi
if grep -q "^wrote $scratch/aws.json: 5 prices of 3 AWS instance types in us-east-1, published 2025-09-12 (1 request" "$scratch/out"; then
  pass "aws: the summary line"
else
  fail "aws: the summary line: $(head -c 300 "$scratch/out")"
fi
p5="'H100-SXM-80GB', 'p5.48xlarge'"
if check_overlay "$scratch/aws.json" \
  "len(prices) == 5 and prices[($p5, 'on_demand')]['usd_per_gpu_hour'] == 12.29 and prices[($p5, 'committed_1y')]['usd_per_gpu_hour'] == round(61.943 / 8, 6) and prices[($p5, 'committed_3y')]['usd_per_gpu_hour'] == round(42.275 / 8, 6) and prices[('A10G-24GB', 'g5.12xlarge', 'on_demand')]['usd_per_gpu_hour'] == 1.418 and prices[('A10G-24GB', 'g5.xlarge', 'on_demand')]['usd_per_gpu_hour'] == 1.006 and all(p['as_of'] == '2025-09-12' and p['as_of_kind'] == 'stated' for p in prices.values())"; then
  pass "aws: on-demand and no-upfront standard reserved, per GPU, dated by the file"
else
  fail "aws: the overlay's prices (above)"
fi
if "$rightsize" plan "$root/examples/llama-3.1-70b-sla.json" --catalog "$scratch/aws.json" \
  --provider aws --price-kind committed-3y --wide >"$scratch/plan.txt" 2>"$scratch/err" &&
  grep -q "price \$42.27/h AWS p5.48xlarge (8 GPUs, instance) committed_3y (as of 2025-09-12) STALE" "$scratch/plan.txt"; then
  pass "aws: plan --catalog OVERLAY --price-kind committed-3y prices p5.48xlarge and flags the file's 2025-09-12 prices STALE"
else
  fail "aws: plan with the overlay: $(head -c 300 "$scratch/err") $(grep -m3 -i "price" "$scratch/plan.txt")"
fi

# --- 3. Faults ------------------------------------------------------------------------------
# -o is checked before any request: a missing directory fails at once, not after a download.
start=$SECONDS
if ! "$rightsize" catalog refresh --provider aws --url "$base/hang" --timeout 30 \
  -o "$scratch/missing/x.json" >/dev/null 2>"$scratch/err" &&
  grep -q "^rightsize: error: -o: $scratch/missing: no such directory$" "$scratch/err" &&
  [ $((SECONDS - start)) -lt 10 ]; then
  pass "-o in a missing directory: refused before any request"
else
  fail "-o in a missing directory: $(head -c 300 "$scratch/err")"
fi
cp -r "$root/data" "$scratch/data"
if ! "$rightsize" catalog refresh --provider azure --url "$base/ok" --data "$scratch/data" \
  -o "$scratch/data/gpus.json" >/dev/null 2>"$scratch/err" &&
  grep -q "is in the data directory rightsize reads" "$scratch/err"; then
  pass "-o into the data directory: refused"
else
  fail "-o into the data directory: $(head -c 300 "$scratch/err")"
fi

if "$rightsize" catalog refresh --provider azure --url "$base/throttle" -o "$scratch/t.json" \
  >/dev/null 2>"$scratch/err" && [ -s "$scratch/t.json" ]; then
  pass "throttle: a 429 with Retry-After: 1 is waited out"
else
  fail "throttle: $(head -c 300 "$scratch/err")"
fi

echo '{"old": true}' >"$scratch/old.json"
cp "$scratch/old.json" "$scratch/old.copy"
fault() { # NAME PROVIDER EXPECTED-STDERR-FRAGMENT [ARGS...]
  local name=$1 provider=$2 expected=$3
  shift 3
  local url="$base/$name"
  [ "$name" = refused ] && url="http://127.0.0.1:1"
  for target in new old; do
    local file="$scratch/$name-$provider.json"
    [ $target = old ] && file="$scratch/old.json"
    "$rightsize" catalog refresh --provider "$provider" --url "$url" -o "$file" "$@" \
      >"$scratch/out" 2>"$scratch/err"
    local code=$?
    local lines
    lines=$(wc -l <"$scratch/err")
    if [ $code -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$expected" "$scratch/err" ||
      ! grep -q "^rightsize: error: http://127.0.0.1:" "$scratch/err" || [ -s "$scratch/out" ]; then
      fail "$name ($provider, $target file): exit $code, $lines lines: $(head -c 400 "$scratch/err")"
      continue
    fi
    if [ $target = new ] && [ -e "$file" ]; then
      fail "$name ($provider): wrote $file"
    elif [ $target = old ] && ! cmp -s "$scratch/old.json" "$scratch/old.copy"; then
      fail "$name ($provider): changed the existing file"
    else
      pass "$name ($provider, $target file): exit 2, one line naming the URL, nothing written"
    fi
  done
}
fault error500 azure "HTTP 500 after 2 attempts: upstream price service failed" --retries 1
fault error500 aws "HTTP 500 after 1 attempt: upstream price service failed" --retries 0
fault truncated azure "truncated"
fault truncated aws "truncated"
fault renamed azure 'has no "retailPrice" number'
fault renamed aws 'the header has no "PricePerUnit" column'
fault garbage azure "is not a JSON object"
fault garbage aws 'no "SKU",... header'
fault loop azure "NextPageLink is the page itself"
fault hang aws "no answer within 1 s (timed out)" --timeout 1 --retries 0
fault refused azure "cannot connect (Connection refused) after 1 attempt" --retries 0

if [ "$fails" -ne 0 ]; then
  echo "FAIL: $fails of $checks checks failed"
  exit 1
fi
echo "PASS: all $checks checks in ${SECONDS} s"
