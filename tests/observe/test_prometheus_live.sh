#!/usr/bin/env bash
# tests/observe/test_prometheus_live.sh RIGHTSIZE PROBE
#
# rightsize reads DCGM series from a real Prometheus server (docs/observe.md, "Prometheus"):
#   1. Debian's prometheus (.ci/deps installs it) scrapes fixture_exporter.py's two dcgm-exporter
#      hosts every second: node-a with a busy pod (~80 %) and an idle pod (~0 %), node-b with a GPU
#      outside Kubernetes. Everything listens on 127.0.0.1 only, on ports the kernel picks.
#   2. Once Prometheus holds >= 5 scrapes of every GPU, PROBE (rightsize_prometheus_probe, the
#      library's query_prometheus) must read 3 GPUs with their identities and SI values, and
#      `RIGHTSIZE observe --prometheus URL --range 1m --step 1s --format json` 3 workloads, the idle
#      pod's verdict "idle".
#   3. Error paths, through both: a closed port, a server answering HTML, one answering HTTP 500,
#      one that never answers (--timeout 2), one answering garbage: each exit 2, nothing on
#      stdout, one line on stderr naming the URL and the problem.
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without prometheus.
# Every process it starts is killed and its scratch directory removed on exit.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE PROBE"
  exit 2
fi
rightsize=$1
probe=$2
# Debian's python3, not a pyenv or virtualenv one that may shadow it on PATH.
py=/usr/bin/python3

if [ ! -x "$py" ]; then
  echo "SKIP: no /usr/bin/python3 (Debian's python3 runs the fixture exporter)"
  exit 77
fi
prometheus=$(command -v prometheus || true)
if [ -z "$prometheus" ]; then
  echo "SKIP: no prometheus on PATH; install Debian's package: apt-get install prometheus" \
    "(.ci/deps does)"
  exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)

# Only 127.0.0.1, never through a proxy that the environment may name.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

scratch=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # run by the EXIT trap below, which shellcheck does not follow
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    # Prometheus stops in well under a second on SIGTERM; KILL what is left after 5 s.
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0 checks=0
pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }
finish() {
  if [ "$SECONDS" -ge 60 ]; then
    fail "the test took ${SECONDS} s, more than 60"
  fi
  if [ "$fails" -ne 0 ]; then
    echo "FAIL: $fails of $checks checks failed"
    exit 1
  fi
  echo "PASS: all $checks checks in ${SECONDS} s"
  exit 0
}

free_port() {
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_of() { "$py" -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$scratch/ports.json" "$1"; }

# --- The fixture exporter and the misbehaving servers ----------------------------------------------
# Under `timeout`, so that nothing outlives the test even if it is killed without its EXIT trap
# (timeout passes the TERM of cleanup() on to the server).
timeout 110 "$py" "$here/fixture_exporter.py" "$scratch/ports.json" 2>"$scratch/exporter.log" &
pids+=($!)
for _ in $(seq 50); do
  [ -f "$scratch/ports.json" ] && break
  sleep 0.1
done
if [ ! -f "$scratch/ports.json" ]; then
  fail "fixture_exporter.py did not start: $(head -c 400 "$scratch/exporter.log")"
  finish
fi

# --- Prometheus ------------------------------------------------------------------------------------
cat >"$scratch/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dcgm
    static_configs:
      - targets: ["127.0.0.1:$(port_of node-a)", "127.0.0.1:$(port_of node-b)"]
EOF
prom_pid=""
for _ in 1 2 3; do # another process may take the free port first
  prom_port=$(free_port)
  (cd "$scratch" && exec timeout 110 "$prometheus" --config.file="$scratch/prometheus.yml" \
    --storage.tsdb.path="$scratch/tsdb" --web.listen-address="127.0.0.1:$prom_port" \
    --log.level=warn >"$scratch/prometheus.log" 2>&1) &
  prom_pid=$!
  pids+=("$prom_pid")
  sleep 0.5
  kill -0 "$prom_pid" 2>/dev/null && break
done
url="http://127.0.0.1:$prom_port"

# Waits (at most 30 s) until Prometheus holds >= 5 scrapes of each of the 3 GPUs.
ready=$("$py" - "$url" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
url = sys.argv[1] + "/api/v1/query?query=" + urllib.parse.quote("count_over_time(DCGM_FI_DEV_GPU_UTIL[1m])")
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline = time.time() + 30
counts = []
while time.time() < deadline:
    try:
        with opener.open(url, timeout=2) as r:
            counts = [float(s["value"][1]) for s in json.load(r)["data"]["result"]]
        if len(counts) == 3 and min(counts) >= 5:
            print("ok")
            sys.exit(0)
    except Exception as e:  # not up yet
        counts = [str(e)]
    time.sleep(0.5)
print("scrapes per GPU after 30 s: %s" % counts)
EOF
)
if [ "$ready" = ok ]; then
  pass "prometheus on $url holds >= 5 scrapes of 3 GPUs after ${SECONDS} s"
else
  fail "prometheus on $url: $ready; its log: $(tail -c 600 "$scratch/prometheus.log")"
  finish
fi

# --- The library: query_prometheus through the probe -------------------------------------------------
if "$probe" "$url" 60 1 >"$scratch/probe.json" 2>"$scratch/probe.err"; then
  if "$py" - "$scratch/probe.json" "$url" <<'EOF'; then
import json, sys
out = json.load(open(sys.argv[1]))
url = sys.argv[2]
mib = 1024 * 1024
problems = []
def expect(ok, what):
    if not ok:
        problems.append(what)
gpus = {g["label"]: g for g in out["gpus"]}
expect(sorted(gpus) == ["node-a/gpu0", "node-a/gpu1", "node-b/gpu0"], "GPUs %s" % sorted(gpus))
expect(out["warnings"] == [], "warnings %s" % out["warnings"])
want = {
    "node-a/gpu0": ("inference", "chat-busy-7d9f8", "vllm", "GPU-5f3b1c2e-8a41-4d0f-9c7e-2b6a1d9e0f11"),
    "node-a/gpu1": ("inference", "chat-idle-5c4b2", "vllm", "GPU-a7c04e19-3d2b-4f5e-8e61-0c9b7f2a4d22"),
    "node-b/gpu0": ("", "", "", "GPU-0e6d2f7a-91b3-4c8e-a5d4-6f1e3b8c9a33"),
}
total = 0
for label, (ns, pod, container, uuid) in want.items():
    g = gpus.get(label)
    if g is None:
        continue
    expect((g["namespace"], g["pod"], g["container"], g["uuid"]) == (ns, pod, container, uuid),
           "%s identity %s" % (label, [g["namespace"], g["pod"], g["container"], g["uuid"]]))
    expect(g["model_name"] == "NVIDIA H100 80GB HBM3" and g["source"] == url,
           "%s model %r source %r" % (label, g["model_name"], g["source"]))
    m = g["metrics"]
    for name in ["gpu_utilization", "memory_utilization", "memory_used", "memory_total", "power",
                 "power_limit", "sm_clock", "temperature", "sm_active", "sm_occupancy",
                 "tensor_active", "dram_active", "pcie_tx", "pcie_rx", "throttled"]:
        s = m.get(name)
        expect(s is not None and s["samples"] >= 5 and s["time_ordered"],
               "%s %s: %s" % (label, name, s))
    total += sum(s["samples"] for s in m.values())
    # memory_total = FB_USED + FB_FREE + FB_RESERVED = 81559 MiB, in bytes.
    expect(m["memory_total"]["min"] == m["memory_total"]["max"] == 81559 * mib,
           "%s memory_total %s" % (label, m["memory_total"]))
    expect(m["power_limit"]["min"] == 700, "%s power_limit %s" % (label, m["power_limit"]))
busy, idle, batch = (gpus.get(k, {}).get("metrics", {}) for k in want)
if busy and idle and batch:
    expect(0.7 <= busy["gpu_utilization"]["mean"] <= 0.9, "busy utilization %s" % busy["gpu_utilization"])
    expect(idle["gpu_utilization"]["max"] <= 0.01, "idle utilization %s" % idle["gpu_utilization"])
    expect(busy["memory_used"]["min"] == 71234 * mib, "busy memory_used %s" % busy["memory_used"])
    expect(busy["sm_clock"]["min"] == 1980e6, "busy sm_clock %s" % busy["sm_clock"])
    # Reasons: busy none, idle "GPU idle" (0x1, not limiting), node-b power cap (0x4).
    expect(busy["throttled"]["max"] == 0 and idle["throttled"]["max"] == 0
           and batch["throttled"]["min"] == 1, "throttled %s %s %s"
           % (busy["throttled"], idle["throttled"], batch["throttled"]))
expect(out["samples"] == total, "samples %s, the GPUs hold %s" % (out["samples"], total))
if problems:
    print("; ".join(problems))
    sys.exit(1)
EOF
    pass "probe: 3 GPUs with their pods, SI values, memory_total, throttled"
  else
    fail "probe: unexpected telemetry (above); the output is $(head -c 300 "$scratch/probe.json")"
  fi
else
  fail "probe $url: exit $?, stderr: $(head -c 400 "$scratch/probe.err")"
fi

# A window of 25,001 steps, more than Prometheus' 11,000 points per series: 3 requests per field,
# the same GPUs, every metric in time order.
if "$probe" "$url" 25000 1 >"$scratch/probe.json" 2>"$scratch/probe.err" &&
    "$py" - "$scratch/probe.json" <<'EOF'; then
import json, sys
out = json.load(open(sys.argv[1]))
gpus = sorted(g["label"] for g in out["gpus"])
ok = gpus == ["node-a/gpu0", "node-a/gpu1", "node-b/gpu0"] and not out["warnings"] and all(
    s["time_ordered"] and s["samples"] >= 5 for g in out["gpus"] for s in g["metrics"].values())
print("GPUs %s, warnings %s" % (gpus, out["warnings"]))
sys.exit(0 if ok else 1)
EOF
  pass "probe over 25000 s at 1 s steps: the window in 3 requests per field"
else
  fail "probe over 25000 s at 1 s steps (above): $(head -c 400 "$scratch/probe.err")"
fi

# The selector reaches Prometheus: one namespace's two pods; one pod by regular expression; none.
for selection in 'namespace="inference"|node-a/gpu0 node-a/gpu1' \
  '{pod=~"chat-idle.*", container!="x"}|node-a/gpu1' '{namespace="nowhere"}|'; do
  selector=${selection%|*} want=${selection#*|}
  if "$probe" "$url" 60 1 5 "$selector" >"$scratch/probe.json" 2>"$scratch/probe.err"; then
    got=$("$py" -c 'import json, sys; print(" ".join(sorted(g["label"] for g in json.load(open(sys.argv[1]))["gpus"])))' \
      "$scratch/probe.json")
    warned=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["warnings"]))' \
      "$scratch/probe.json")
    # No GPU: the one warning "no DCGM series matched ..."; otherwise none.
    warnings_wanted=0
    [ -z "$want" ] && warnings_wanted=1
    if [ "$got" = "$want" ] && [ "$warned" = "$warnings_wanted" ]; then
      pass "probe --selector '$selector': GPUs \"$got\", $warned warning(s)"
    else
      fail "probe --selector '$selector': GPUs \"$got\", $warned warning(s); expected \"$want\""
    fi
  else
    fail "probe --selector '$selector': stderr: $(head -c 400 "$scratch/probe.err")"
  fi
done

# --- The CLI: rightsize observe ---------------------------------------------------------------------
"$rightsize" observe --prometheus "$url" --range 1m --step 1s --min-window 1s --min-samples 2 --format json \
  >"$scratch/cli.json" 2>"$scratch/cli.err"
rc=$?
if [ "$rc" -ne 0 ]; then
  fail "rightsize observe --prometheus $url: exit $rc, stderr: $(head -c 400 "$scratch/cli.err")"
elif "$py" - "$scratch/cli.json" <<'EOF'; then
import json, sys
out = json.load(open(sys.argv[1]))
problems = []
def expect(ok, what):
    if not ok:
        problems.append(what)
workloads = {w["name"]: w for w in out["workloads"]}
names = ["inference/chat-busy-7d9f8", "inference/chat-idle-5c4b2", "node-b/gpu0"]
expect(sorted(workloads) == names, "workloads %s, expected %s" % (sorted(workloads), names))
for name, w in workloads.items():
    expect(isinstance(w["samples"], int) and w["samples"] > 0, "%s samples %s" % (name, w["samples"]))
    expect(w["gpus"] == 1, "%s gpus %s" % (name, w["gpus"]))
    expect(w["window_s"] > 0, "%s window_s %s" % (name, w["window_s"]))
    for key in ("gpu", "observed", "verdict", "reasons", "recommendation"):
        expect(key in w, "%s has no %s" % (name, key))
idle = workloads.get("inference/chat-idle-5c4b2")
expect(idle is not None and idle["verdict"] == "idle",
       "idle pod verdict %s" % (idle and idle["verdict"]))
busy = workloads.get("inference/chat-busy-7d9f8")
expect(busy is not None and busy["verdict"] != "idle", "busy pod verdict %s" % (busy and busy["verdict"]))
expect(out["summary"]["workloads"] == 3, "summary.workloads %s" % out["summary"]["workloads"])
if problems:
    print("; ".join(problems))
    sys.exit(1)
EOF
  pass "rightsize observe --prometheus: 3 workloads, the idle pod idle"
else
  fail "rightsize observe --prometheus: unexpected report (above): $(head -c 300 "$scratch/cli.json")"
fi

# --watch: the report, then two more rounds against the live server; exit 0, and whatever it
# prints after the report are lines "[time]" or "workload: verdict -> ... (was ...)".
if timeout 20 "$rightsize" observe --prometheus "$url" --range 1m --step 1s --min-window 1s --min-samples 2 --watch 1s \
    --watch-count 2 >"$scratch/watch.out" 2>"$scratch/watch.err"; then
  if head -1 "$scratch/watch.out" | grep -q '^rightsize observe: 3 workloads' &&
     ! sed '1,/^WORK: /d' "$scratch/watch.out" | grep -v '^$' | grep -v '^  ' | grep -v ': ' |
       grep -qv '^\[20[0-9-]*T[0-9:]*Z\]$'; then
    pass "rightsize observe --watch 1s --watch-count 2: the report, then only changes"
  else
    fail "rightsize observe --watch: unexpected output: $(head -c 400 "$scratch/watch.out")"
  fi
else
  fail "rightsize observe --watch: exit $?, stderr: $(head -c 400 "$scratch/watch.err")"
fi

# --- Error paths -------------------------------------------------------------------------------------
# expect_error LABEL PREFIX PHRASE COMMAND...: exit 2, empty stdout, and stderr exactly one line
# "rightsize: error: PREFIX...: ...PHRASE..." (PREFIX: the URL of the first request).
expect_error() {
  local label=$1 prefix="rightsize: error: $2" phrase=$3
  shift 3
  "$@" >"$scratch/err.out" 2>"$scratch/err.err"
  local rc=$? lines line
  lines=$(grep -c . "$scratch/err.err")
  line=$(head -n 1 "$scratch/err.err")
  if [ "$rc" -eq 2 ] && [ ! -s "$scratch/err.out" ] && [ "$lines" -eq 1 ] &&
      [[ "$line" == "$prefix"* ]] && [[ "$line" == *"$phrase"* ]]; then
    pass "$label: exit 2, $line"
  else
    fail "$label: exit $rc, $lines stderr lines: $(head -c 400 "$scratch/err.err")" \
      "(expected exit 2 and one line \"$prefix...$phrase...\")"
  fi
}

closed=$(free_port)
declare -A base=(
  [refused]="http://127.0.0.1:$closed"
  [html]="http://127.0.0.1:$(port_of html)"
  [error500]="http://127.0.0.1:$(port_of error500)"
  [hang]="http://127.0.0.1:$(port_of hang)"
  [garbage]="http://127.0.0.1:$(port_of garbage)"
)
declare -A phrase=(
  [refused]="cannot connect (Connection refused) after 3 attempts"
  [html]="the answer is HTML, not Prometheus' JSON API (is the URL a Prometheus server?)"
  [error500]="HTTP 500 after 3 attempts: internal error: the storage is locked please retry later"
  [hang]="no answer within 2 s (timed out)"
  [garbage]="not a query_range answer: invalid JSON at line 1, column"
)
# The server's summaries start with the label values request (which fields have series).
for case in refused html error500 hang garbage; do
  raw="${base[$case]}/api/v1/query_range?query=DCGM_FI_"
  expect_error "probe, $case" "$raw" "${phrase[$case]}" "$probe" "${base[$case]}" 60 1 2
  expect_error "observe --aggregate client, $case" "$raw" "${phrase[$case]}" \
    "$rightsize" observe --prometheus "${base[$case]}" --range 1m --step 1s --timeout 2 \
    --aggregate client --format json
  expect_error "observe, $case" "${base[$case]}/api/v1/label/__name__/values: " \
    "${phrase[$case]/not a query_range answer/not a label values answer}" \
    "$rightsize" observe --prometheus "${base[$case]}" --range 1m --timeout 2 --format json
done

finish
