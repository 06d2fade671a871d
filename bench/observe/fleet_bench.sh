#!/usr/bin/env bash
# bench/observe/fleet_bench.sh [--gpus 1000] [--days 14 | --hours H] [--rightsize build/rightsize]
#                              [--work DIR] [--end UNIX_S] [--seed S] [--client-max-gpus N]
#                              [--client-days D] [--compact] [--no-rightsize]
#
# `rightsize observe --prometheus` on a fleet of the size it is meant for (outside CI; minutes to
# tens of minutes, a few GB of disk at most):
#   1. fleet.py generates the fleet (GPUs with their pods, kube-state-metrics' owners) as one
#      OpenMetrics file per 2 h block; each is imported with `promtool tsdb create-blocks-from
#      openmetrics` into DIR/tsdb and deleted as soon as it is (generation and import overlap, so
#      that at most 2 blocks' text is ever on disk). DIR/tsdb is reused by a later run with the
#      same parameters (DIR/tsdb.params says which).
#   2. Debian's prometheus serves DIR/tsdb on 127.0.0.1 (a port the kernel picks), no scrape
#      target, a retention of 10 years (the data lies in the past: older blocks would be deleted),
#      compaction off unless --compact (it would start a minute in and disturb the timings).
#   3. `fleet.py check` times the instant queries a server-side aggregation issues at the window's
#      end and compares their answers with fleet.json's exact statistics.
#   4. rightsize observe, timed with /usr/bin/time: --aggregate server on the whole fleet, then
#      server and client (the raw query_range pull) on a sub-fleet of --client-max-gpus GPUs
#      (default 100, by a Hostname selector) over --client-days (default the whole window).
#      A Markdown table: mode, GPUs, days, wall s, peak RSS MiB, requests, bytes (and on the
#      wire, gzipped, where -v says), workloads; the server report's per-GPU p95 against
#      fleet.json; Prometheus' peak RSS before and after.
# It needs prometheus and promtool (Debian's package) and /usr/bin/python3; a rightsize without
# --end (whose window ends now) is reported and its runs skipped.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
gpus=1000 span=(--days 14) range_s=$((14 * 86400)) end=1733580000 seed=1 step=30
rightsize=$repo/build/rightsize work=$repo/build/fleet-bench
client_gpus=100 client_range_s="" compact=0 run_rightsize=1

usage() { sed -n '2,4p' "$0" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpus=$2; shift 2 ;;
    --days) span=(--days "$2"); range_s=$("$py" -c "print(round($2 * 86400))"); shift 2 ;;
    --hours) span=(--hours "$2"); range_s=$("$py" -c "print(round($2 * 3600))"); shift 2 ;;
    --rightsize) rightsize=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --end) end=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --client-max-gpus) client_gpus=$2; shift 2 ;;
    --client-days) client_range_s=$("$py" -c "print(round($2 * 86400))"); shift 2 ;;
    --compact) compact=1; shift ;;
    --no-rightsize) run_rightsize=0; shift ;;
    *) usage ;;
  esac
done
client_range_s=${client_range_s:-$range_s}

for tool in prometheus promtool; do
  if ! command -v "$tool" >/dev/null; then
    echo "fleet_bench: no $tool on PATH (apt-get install prometheus)"
    exit 2
  fi
done
[ -x "$py" ] || { echo "fleet_bench: no $py"; exit 2; }
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
mkdir -p "$work"
work=$(cd "$work" && pwd)

prom_pid="" gen_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  local pid
  for pid in $gen_pid $prom_pid; do
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$work/blocks"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

now_us() { echo "${EPOCHREALTIME/./}"; }
seconds() { "$py" -c "import sys; print(f'{int(sys.argv[1]) / 1e6:.1f}')" "$1"; }
mib() { "$py" -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f}')" "$1"; }

# --- 1. The fleet, imported block by block -----------------------------------------------------------
params="gpus=$gpus range_s=$range_s step=$step end=$end seed=$seed fleet.py=$(md5sum <"$here/fleet.py" | cut -c1-12)"
samples_est=$((gpus * range_s * 4 / step))
echo "## rightsize observe on a generated fleet: $gpus GPUs, $((range_s / 3600)) h at ${step} s, ending $end"
echo
echo "work directory $work; free: $(df -h --output=avail "$work" | tail -1 | tr -d ' ')"
if [ -f "$work/tsdb.params" ] && [ "$(cat "$work/tsdb.params")" = "$params" ] &&
    [ -f "$work/fleet.json" ]; then
  echo "reusing $work/tsdb ($params)"
else
  # About 1.3 bytes per sample in the TSDB; 2 blocks of text (~270 bytes per sample) in flight.
  need=$((samples_est * 3 / 2 + 2 * gpus * 7200 * 4 * 270 / step))
  avail=$(($(df --output=avail -B1 "$work" | tail -1)))
  if [ "$need" -gt $((20 * 1024 * 1024 * 1024)) ] || [ "$need" -gt "$avail" ]; then
    echo "fleet_bench: needs about $(mib "$need") MiB of disk, $(mib "$avail") MiB free (limit 20 GiB)"
    exit 2
  fi
  rm -rf "$work/tsdb" "$work/blocks" "$work/tsdb.params"
  mkdir -p "$work/blocks"
  t0=$(now_us)
  timeout 7200 "$py" "$here/fleet.py" --gpus "$gpus" "${span[@]}" --step "$step" --end "$end" \
    --seed "$seed" --out "$work/blocks" --max-pending 2 2>"$work/fleet.log" &
  gen_pid=$!
  text_bytes=0 promtool_us=0 files=0
  while :; do
    running=0
    kill -0 "$gen_pid" 2>/dev/null && running=1
    next=$(find "$work/blocks" -name 'fleet-*.om' | sort | head -1)
    if [ -z "$next" ]; then
      [ "$running" -eq 0 ] && break
      sleep 0.1
      continue
    fi
    text_bytes=$((text_bytes + $(stat -c %s "$next")))
    t1=$(now_us)
    if ! timeout 1800 promtool tsdb create-blocks-from openmetrics -q "$next" "$work/tsdb" \
        >"$work/promtool.log" 2>&1; then
      echo "fleet_bench: promtool failed on $next: $(tail -c 600 "$work/promtool.log")"
      exit 1
    fi
    promtool_us=$((promtool_us + $(now_us) - t1))
    files=$((files + 1))
    rm -f "$next"
  done
  wait "$gen_pid"
  rc=$?
  gen_pid=""
  if [ "$rc" -ne 0 ]; then
    echo "fleet_bench: fleet.py failed (exit $rc): $(tail -c 600 "$work/fleet.log")"
    exit 1
  fi
  mv "$work/blocks/fleet.json" "$work/fleet.json"
  echo "$params" >"$work/tsdb.params"
  echo "generated and imported in $(seconds $(($(now_us) - t0))) s: $(tail -1 "$work/fleet.log")"
  echo "promtool: $files files, $(mib "$text_bytes") MiB of OpenMetrics text, $(seconds "$promtool_us") s"
fi
echo "TSDB: $(du -sh "$work/tsdb" | cut -f1), $(find "$work/tsdb" -maxdepth 1 -name '01*' | wc -l) blocks"

# --- 2. Prometheus -------------------------------------------------------------------------------------
cat >"$work/prometheus.yml" <<'EOF'
global:
  scrape_interval: 1m
scrape_configs: []
EOF
no_compaction=(--storage.tsdb.min-block-duration=2h --storage.tsdb.max-block-duration=2h)
[ "$compact" -eq 1 ] && no_compaction=()
for _ in 1 2 3; do # another process may take the free port first
  port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  (cd "$work" && exec timeout 14400 prometheus --config.file="$work/prometheus.yml" \
    --storage.tsdb.path="$work/tsdb" --storage.tsdb.retention.time=3650d "${no_compaction[@]}" \
    --web.listen-address="127.0.0.1:$port" --log.level=warn >"$work/prometheus.log" 2>&1) &
  prom_pid=$!
  sleep 1
  kill -0 "$prom_pid" 2>/dev/null && break
done
url="http://127.0.0.1:$port"
# The server's own process (timeout's child), for its peak RSS.
server_pid=$(pgrep -P "$prom_pid" -x prometheus || echo "$prom_pid")
vm() { awk -v k="$1:" '$1 == k { print int($2 / 1024) " MiB" }' "/proc/$server_pid/status" 2>/dev/null; }

# From fleet.json: the GPUs with a sample at END; the client pull's sub-fleet (the first hosts,
# enough for --client-max-gpus GPUs): its hosts, GPUs and selector.
read -r want hosts sub_gpus selector < <("$py" - "$work/fleet.json" "$client_gpus" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
gpus = [g for w in t["workloads"] for g in w["gpus"]]
hosts = (int(sys.argv[2]) + 7) // 8
print(sum(g["last_s"] == t["parameters"]["end_s"] for g in gpus), hosts,
      sum(int(g["host"][5:]) <= hosts for g in gpus),
      'Hostname=~"' + "|".join(f"node-{i:04d}" for i in range(1, hosts + 1)) + '"')
EOF
)
t0=$(now_us)
ready=$("$py" - "$url" "$end" "$want" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
url, end, want = sys.argv[1], sys.argv[2], sys.argv[3]
q = urllib.parse.urlencode({"query": "count(DCGM_FI_DEV_GPU_UTIL)", "time": end})
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline, got = time.time() + 600, None
while time.time() < deadline:
    try:
        with opener.open(f"{url}/api/v1/query?{q}", timeout=10) as r:
            got = [s["value"][1] for s in json.load(r)["data"]["result"]]
        if got == [want]:
            print("ok")
            sys.exit(0)
    except Exception as e:  # not up yet
        got = str(e)
    time.sleep(0.5)
print(f"count(DCGM_FI_DEV_GPU_UTIL) at {end}: {got} after 600 s, expected {want}")
EOF
)
if [ "$ready" != ok ]; then
  echo "fleet_bench: prometheus on $url: $ready; its log: $(tail -c 600 "$work/prometheus.log")"
  exit 1
fi
echo "prometheus $url ready in $(seconds $(($(now_us) - t0))) s with $want GPUs at $end;" \
  "RSS $(vm VmRSS), peak $(vm VmHWM)"
if [ "$compact" -eq 1 ]; then
  echo "--compact: waiting for Prometheus' first compaction to end (it starts a minute in)"
  "$py" - "$url" <<'EOF'
import sys, time, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def metric(name):
    with opener.open(sys.argv[1] + "/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0
# Each trigger runs the compactions the blocks need, then waits a minute: two triggers seen means
# the first run ended.
while metric("prometheus_tsdb_compactions_triggered_total") < 2:
    time.sleep(5)
EOF
  echo "compacted: $(find "$work/tsdb" -maxdepth 1 -name '01*' | wc -l) blocks; peak RSS $(vm VmHWM)"
fi

# --- 3. The server-side queries, by hand ---------------------------------------------------------
echo
echo "### The instant queries of a server-side aggregation at $end (fleet.py check)"
echo
echo '```'
timeout 3600 "$py" "$here/fleet.py" check --prometheus "$url" --fleet "$work/fleet.json" --timing
echo '```'
echo "prometheus RSS $(vm VmRSS), peak $(vm VmHWM)"

# --- 4. rightsize --------------------------------------------------------------------------------------
if [ "$run_rightsize" -eq 0 ]; then
  exit 0
fi
if [ ! -x "$rightsize" ]; then
  echo "fleet_bench: no rightsize at $rightsize: no rightsize runs"
  exit 0
fi
if ! "$rightsize" observe --help 2>&1 | grep -q -- '--end'; then
  echo "fleet_bench: $rightsize observe has no --end (its window ends now, after this fleet):" \
    "no rightsize runs"
  exit 0
fi

# compare_report REPORT: the report's workloads and per-GPU p95 against fleet.json. Tolerant of
# the report's shape (it may change): keys are looked for, and a warning says what was not found.
compare_report() {
  "$py" - "$1" "$work/fleet.json" <<'EOF'
import json, sys

def find_p95(item):
    """The per-GPU work p95 in percent, or None: work_percent.p95, else work.p95 (a fraction)."""
    for key in ("work_percent", "gpu_utilization_percent", "work", "gpu_utilization"):
        v = item.get(key)
        if isinstance(v, dict) and isinstance(v.get("p95"), (int, float)):
            return v["p95"] if "percent" in key else 100 * v["p95"]
    return None

def compare(report, truth):
    gpus = {}
    for w in truth["workloads"]:
        for g in w["gpus"]:
            gpus[g["uuid"]] = gpus[g["label"]] = (w["name"], g)
    names = {w.get("name") for w in report.get("workloads", [])}
    want = set(truth["expected_workloads"]["by_owner"])
    print(f"workloads: {len(names)} in the report, {len(want)} in fleet.json, "
          f"{len(names & want)} named alike; missing {sorted(want - names)[:5]}, "
          f"unexpected {sorted(names - want)[:5]}")
    checked = close = unknown = 0
    worst = []
    for w in report.get("workloads", []):
        for item in w.get("per_gpu", []):
            entry = gpus.get(item.get("uuid")) or gpus.get(item.get("label"))
            p95 = find_p95(item)
            if entry is None or p95 is None:
                unknown += 1
                continue
            checked += 1
            diff = abs(p95 - entry[1]["gpu_util_percent"]["p95"])
            close += diff <= 0.5
            worst.append((diff, item.get("label"), p95, entry[1]["gpu_util_percent"]["p95"]))
    if not checked:
        print("warning: no per-GPU p95 found in the report (workloads[].per_gpu[] with uuid or "
              "label, and work_percent.p95): adapt compare() in fleet_bench.sh")
        return
    worst.sort(reverse=True)
    print(f"per-GPU p95 within 0.5 points of fleet.json: {close} of {checked} GPUs"
          f"{f', {unknown} not matched' if unknown else ''}; largest difference "
          f"{worst[0][0]:.3f} ({worst[0][1]}: {worst[0][2]} vs {worst[0][3]})")

try:
    compare(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
except Exception as e:  # the report's shape moved: say so, never fail the benchmark
    print(f"warning: cannot compare the report with fleet.json: {type(e).__name__}: {e}")
EOF
}

rows=()
# run_one MODE GPUS RANGE_S NAME [ARGS...]: one timed run; appends a table row.
run_one() {
  local mode=$1 n=$2 rs=$3 name=$4
  shift 4
  local out="$work/out-$name.json" err="$work/err-$name.txt" tm="$work/time-$name.txt"
  local rc wall rss line requests bytes wire workloads
  /usr/bin/time -f '%e %M' -o "$tm" timeout 7200 "$rightsize" observe --prometheus "$url" \
    --end "$end" --range "${rs}s" --aggregate "$mode" --format json -v -o "$out" "$@" 2>"$err"
  rc=$?
  # GNU time writes "Command exited with non-zero status N" before its figures when it fails.
  read -r wall rss < <(tail -n 1 "$tm" 2>/dev/null) || { wall='?'; rss=0; }
  [[ "$rss" =~ ^[0-9]+$ ]] || rss=0
  rss=$((rss / 1024))
  line=$(grep -E 'prometheus:.*requests.*bytes' "$err" | tail -1)
  if [ -n "$line" ]; then
    requests=$(sed -E 's/.*[^0-9]([0-9]+) requests.*/\1/' <<<"$line")
    bytes=$(sed -E 's/.*[^0-9]([0-9]+) bytes.*/\1/' <<<"$line")
    wire=$(sed -nE 's/.*[^0-9]([0-9]+) on the wire.*/\1/p' <<<"$line")
  else
    requests="?" bytes="not reported"
  fi
  workloads=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["workloads"]))' "$out" 2>/dev/null || echo "?")
  [ "$rc" -ne 0 ] && workloads="exit $rc: $(grep -v '^rightsize: warning' "$err" | tail -1 | cut -c1-80)"
  rows+=("| $mode | $n | $("$py" -c "print(f'{$rs / 86400:g}')") | $wall | $rss | $requests | $bytes | ${wire:--} | $workloads |")
  echo "$name: exit $rc, ${wall} s, $rss MiB; ${line:-bytes: not reported}"
}

echo
echo "### rightsize observe"
echo
run_one server "$gpus" "$range_s" server
compare_report "$work/out-server.json"
note="client pull on hosts node-0001..node-$(printf '%04d' "$hosts") ($sub_gpus GPUs, --selector '$selector')"
[ "$client_range_s" != "$range_s" ] && note="$note over the last $((client_range_s / 3600)) h"
echo "$note; server on the same sub-fleet for comparison"
run_one server "$sub_gpus" "$client_range_s" server-sub --selector "$selector"
run_one client "$sub_gpus" "$client_range_s" client-sub --step 30s --selector "$selector"
echo
echo "| mode | GPUs | days | wall s | peak RSS MiB | requests | bytes | on the wire | workloads |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "prometheus after the runs: RSS $(vm VmRSS), peak $(vm VmHWM)"
