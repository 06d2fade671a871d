#!/usr/bin/env bash
# tests/observe/test_prometheus_fleet.sh RIGHTSIZE
#
# rightsize observe --prometheus on a small generated fleet with known statistics
# (docs/observe.md, "Prometheus"):
#   1. bench/observe/fleet.py writes 15 GPUs over the 4 hours ending END (every 30 s) with their
#      pods and kube-state-metrics' owner series: a Deployment rolled out from one ReplicaSet to
#      another and a pod replaced, a StatefulSet, a CronJob's Job, a LeaderWorkerSet, an Argo
#      Rollout, a pod without owner, a GPU without pod; fleet.json holds each GPU's exact
#      statistics. promtool imports it into a TSDB, and the same fleet without kube-state-metrics
#      into a second one; Debian's prometheus serves each on 127.0.0.1 (ports the kernel picks).
#   2. The fixture itself: Prometheus' quantile_over_time, max_over_time, avg_over_time,
#      count_over_time at END equal fleet.json's statistics (`fleet.py check`).
#   3. Through RIGHTSIZE: (a) --aggregate server (the default): workloads named by owner
#      ("team-a/Deployment/vllm-llama"), each GPU's p95 of work within 0.5 points of fleet.json;
#      (b) --aggregate client --step 30s: the same within 1 point; (c) without kube-state-metrics:
#      pods, and a warning naming it; (d) --group-by pod: pods; (e) auth through auth_proxy.py
#      (bearer token and X-Scope-OrgID): refused without (exit 2, one line naming the URL and
#      401), accepted with --bearer-token-file or --bearer-token and --header, the token in no
#      output even at -vv; PROMETHEUS_URL instead of --prometheus; (f) --range left out (14d);
#      (g) --format yaml reads back as the JSON report; -o DIR/ writes the report and a
#      strategic-merge patch for the over-provisioned Deployment (2 replicas), GPUs per pod.
#      (h) the vLLM Deployment's engine metrics (its pods' vllm:num_requests_* and KV cache) read
#      from the same Prometheus, and the verdict built on them.
#   Bytes received, server against client aggregation, as -v reports them (no assertion).
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without prometheus or
# promtool. Every process it starts is killed and its scratch directory removed on exit.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE"
  exit 2
fi
rightsize=$1
# Debian's python3, not a pyenv or virtualenv one that may shadow it on PATH.
py=/usr/bin/python3

if [ ! -x "$py" ]; then
  echo "SKIP: no /usr/bin/python3 (Debian's python3 generates the fleet)"
  exit 77
fi
prometheus=$(command -v prometheus || true)
promtool=$(command -v promtool || true)
if [ -z "$prometheus" ] || [ -z "$promtool" ]; then
  echo "SKIP: no prometheus or promtool on PATH; install Debian's package: apt-get install" \
    "prometheus (.ci/deps does)"
  exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)
fleet_py=$here/../../bench/observe/fleet.py
# The window: 4 hours ending at a round 2 h boundary in the past (2024-12-07T14:00:00Z).
end=1733580000

# Only 127.0.0.1, never through a proxy that the environment may name.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY PROMETHEUS_URL
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
  [ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$scratch"
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

# --- The fleets and their TSDBs -------------------------------------------------------------------
# fleet NAME [ARGS...]: the fleet in $scratch/NAME (fleet.json, then its blocks in NAME/tsdb).
fleet() {
  local name=$1 file
  shift
  if ! timeout 30 "$py" "$fleet_py" --gpus 15 --hours 4 --end "$end" --out "$scratch/$name" "$@" \
      2>"$scratch/$name.log"; then
    fail "fleet.py $name: $(tail -c 400 "$scratch/$name.log")"
    finish
  fi
  for file in "$scratch/$name"/fleet-*.om; do
    if ! timeout 30 "$promtool" tsdb create-blocks-from openmetrics -q "$file" "$scratch/$name/tsdb" \
        >"$scratch/$name.promtool" 2>&1; then
      fail "promtool on $file: $(tail -c 400 "$scratch/$name.promtool")"
      finish
    fi
  done
  pass "fleet $name: $(tail -1 "$scratch/$name.log"), imported by promtool"
}
fleet owners
fleet pods --no-kube-state-metrics

printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$scratch/prometheus.yml"
# serve NAME: Prometheus on NAME's TSDB; sets url. A retention of 10 years: the blocks lie in the
# past, and older ones would be deleted.
serve() {
  local name=$1 port pid
  for _ in 1 2 3; do # another process may take the free port first
    port=$(free_port)
    (cd "$scratch" && exec timeout 110 "$prometheus" --config.file="$scratch/prometheus.yml" \
      --storage.tsdb.path="$scratch/$name/tsdb" --storage.tsdb.retention.time=3650d \
      --web.listen-address="127.0.0.1:$port" --log.level=warn >"$scratch/$name.prometheus.log" 2>&1) &
    pid=$!
    pids+=("$pid")
    sleep 0.5
    kill -0 "$pid" 2>/dev/null && break
  done
  url="http://127.0.0.1:$port"
}
serve owners
owners_url=$url
serve pods
pods_url=$url

# Waits (at most 20 s) until both answer count(DCGM_FI_DEV_GPU_UTIL) at END: the 12 GPUs a pod
# or nobody holds then (the first two of the Deployment's pods and the Job's have ended).
ready=$("$py" - "$end" "$owners_url" "$pods_url" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
end, urls = sys.argv[1], sys.argv[2:]
q = urllib.parse.urlencode({"query": "count(DCGM_FI_DEV_GPU_UTIL)", "time": end})
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline = time.time() + 20
got = {}
while time.time() < deadline:
    for url in urls:
        try:
            with opener.open(f"{url}/api/v1/query?{q}", timeout=2) as r:
                got[url] = [s["value"][1] for s in json.load(r)["data"]["result"]]
        except Exception as e:  # not up yet
            got[url] = str(e)
    if all(v == ["12"] for v in got.values()):
        print("ok")
        sys.exit(0)
    time.sleep(0.3)
print("count(DCGM_FI_DEV_GPU_UTIL) at %s after 20 s: %s" % (end, got))
EOF
)
if [ "$ready" = ok ]; then
  pass "prometheus on $owners_url and $pods_url serve the two fleets after ${SECONDS} s"
else
  fail "prometheus: $ready; its logs: $(tail -c 300 "$scratch/owners.prometheus.log")" \
    "$(tail -c 300 "$scratch/pods.prometheus.log")"
  finish
fi

# --- The fixture: what Prometheus answers equals fleet.json -----------------------------------------
for name in owners pods; do
  u=$owners_url
  [ "$name" = pods ] && u=$pods_url
  if line=$(timeout 30 "$py" "$fleet_py" check --prometheus "$u" --fleet "$scratch/$name/fleet.json"); then
    pass "fixture $name: ${line##*check: }"
  else
    fail "fixture $name: $line"
  fi
done

# check_report LABEL REPORT GROUPING TOLERANCE [SPANS]: the report's workloads are fleet.json's,
# grouped by_owner or by_pod, each with fleet.json's GPUs, each GPU's p95 of work within TOLERANCE
# points; with SPANS=spans, each workload's GPU count is the most GPUs held at once (a rollout's
# pods replace one another). The raw pull cannot tell that here: a backfilled series has no
# staleness marker, so query_range's 5-minute lookback stretches each pod past its last sample.
check_report() {
  local label=$1 report=$2 grouping=$3 tolerance=$4 spans=${5:-} result
  if result=$("$py" - "$report" "$scratch/owners/fleet.json" "$grouping" "$tolerance" "$spans" <<'EOF'
import json, sys
report, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
grouping, tolerance, check_spans = sys.argv[3], float(sys.argv[4]), sys.argv[5] == "spans"
gpus, want = {}, {}
for w in truth["workloads"]:
    for g in w["gpus"]:
        gpus[g["uuid"]] = g
    if grouping == "by_owner" or not w["pods"]:
        want[w["name"]] = {g["label"] for g in w["gpus"]}
    else:
        for p in w["pods"]:
            want[p["workload_by_pod"]] = {g["label"] for g in w["gpus"] if g["uuid"] in p["gpus"]}
assert sorted(want) == truth["expected_workloads"][grouping]
got = {w["name"]: w for w in report["workloads"]}
problems = []
if sorted(got) != sorted(want):
    problems.append("workloads %s; expected %s" % (sorted(got), sorted(want)))
worst = 0.0
by_label = {g["label"]: g for g in gpus.values()}
for name, w in got.items():
    labels = {g["label"] for g in w["per_gpu"]}
    if name in want and labels != want[name]:
        problems.append("%s: GPUs %s, expected %s" % (name, sorted(labels), sorted(want[name])))
    # GPUs held at once, not GPUs ever held: a rollout's pods replace one another.
    spans = [(by_label[l]["first_s"], by_label[l]["last_s"]) for l in labels if l in by_label]
    at_once = max((sum(1 for a, b in spans if a <= f <= b) for f, _ in spans), default=0)
    if check_spans and w["gpus"] != at_once:
        problems.append("%s: %s GPUs, expected %d held at once" % (name, w["gpus"], at_once))
    for g in w["per_gpu"]:
        truth_gpu = gpus.get(g.get("uuid"))
        if truth_gpu is None:
            problems.append("%s: GPU %s is no GPU of the fleet" % (name, g.get("uuid")))
            continue
        p95, expected = g["work_percent"]["p95"], truth_gpu["gpu_util_percent"]["p95"]
        worst = max(worst, abs(p95 - expected))
        if abs(p95 - expected) > tolerance:
            problems.append("%s %s: p95 %s, fleet.json %s" % (name, g["label"], p95, expected))
if problems:
    print("; ".join(problems)[:1500])
    sys.exit(1)
print("%d workloads, %d GPUs' p95 within %.3f points%s" % (
    len(got), sum(len(w["per_gpu"]) for w in got.values()), worst,
    ", GPUs held at once as fleet.json's spans say" if check_spans else ""))
EOF
  ); then
    pass "$label: $result"
  else
    fail "$label: $result"
  fi
}

# observe LABEL OUT [ARGS...]: RIGHTSIZE observe --format json -o OUT.json ARGS, stderr to
# OUT.err; a FAIL line, and status 1, unless it exits 0.
observe() {
  local label=$1 out=$2 rc
  shift 2
  timeout 30 "$rightsize" observe --format json -o "$scratch/$out.json" "$@" \
    >"$scratch/$out.out" 2>"$scratch/$out.err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$label: exit $rc, stderr: $(head -c 400 "$scratch/$out.err")"
    return 1
  fi
}
# bytes_of OUT: "N requests, M bytes" of OUT.err's -v line "prometheus: N requests, M bytes ...".
bytes_of() {
  grep -E 'prometheus:.*requests.*bytes' "$scratch/$1.err" | tail -1 | sed -E 's/.*prometheus: *//' ||
    echo "not reported"
}

# --- (a) server aggregation, (b) the raw pull --------------------------------------------------------
window=(--end "$end" --range 4h)
if observe "(a) --aggregate server" server --prometheus "$owners_url" "${window[@]}" -v; then
  check_report "(a) --aggregate server: by owner" "$scratch/server.json" by_owner 0.5 spans
fi
if observe "(b) --aggregate client" client --prometheus "$owners_url" "${window[@]}" \
    --aggregate client --step 30s -v; then
  check_report "(b) --aggregate client --step 30s: by owner" "$scratch/client.json" by_owner 1
fi
# (h) the vLLM Deployment judged on its engine's metrics (fleet.py ENGINE_STORY: waiting i mod 5,
# KV cache 0.93 + 0.01 (i mod 5)), read from Prometheus beside the DCGM series; the
# LeaderWorkerSet, whose pods export none, is not.
if [ -f "$scratch/server.json" ] && result=$("$py" - "$scratch/server.json" <<'EOF'
import json, sys
got = {w["name"]: w for w in json.load(open(sys.argv[1]))["workloads"]}
w, lws = got["team-a/Deployment/vllm-llama"], got["team-a/LeaderWorkerSet/llama-70b"]
s, codes = w["serving"], sorted(r["code"] for r in w["reasons"])
problems = []
if s is None:
    problems.append("no serving figures")
else:
    if s["engine"] != "vllm" or s["pods"] != 3:
        problems.append("engine %s on %s pods, expected vllm on 3" % (s["engine"], s["pods"]))
    if s["requests_waiting"]["max"] != 4 or s["requests_waiting"]["p95"] != 4:
        problems.append("waiting %s, expected p95 and max 4" % s["requests_waiting"])
    if abs(s["kv_cache_usage_percent"]["p95"] - 97) > 0.01:
        problems.append("KV cache %s, expected p95 97%%" % s["kv_cache_usage_percent"])
    # TTFT (fleet.py): p50 0.5 s, p95 0.95 s, mean 0.6 s, whatever the window holds.
    ttft = s["ttft_ms"]
    if abs(ttft["p50"] - 500) > 0.5 or abs(ttft["p95"] - 950) > 0.5 or abs(ttft["mean"] - 600) > 0.5:
        problems.append("TTFT %s ms, expected p50 500, p95 950, mean 600" % ttft)
    if s["window_s"] < 3600:
        problems.append("window %s s" % s["window_s"])
if codes != ["kv_cache_full", "requests_waiting"] or w["verdict"] != "under-provisioned":
    problems.append("%s with %s, expected under-provisioned on kv_cache_full, requests_waiting"
                    % (w["verdict"], codes))
# Three pods one after another, one at once: each holds about 35 requests at its p95 (running
# 24-32 plus 0-4 waiting), 35 x 1.2 over the 32 one pod ran at most: 2 replicas of 1 GPU.
if w["pods"] != 1 or not 34 <= s["requests_held_p95"] <= 36 or w["recommendation"]["gpus"] != 2:
    problems.append("%s pods, %s requests held, recommendation %s" % (
        w["pods"], s["requests_held_p95"], w["recommendation"]))
if lws["serving"] is not None:
    problems.append("the LeaderWorkerSet has serving figures: %s" % lws["serving"])
if problems:
    print("; ".join(problems)[:1000])
    sys.exit(1)
print("%s: %s on %s (waiting p95 %g, KV cache p95 %g%%, TTFT p95 %g ms, %d scrapes over %.0f s; "
      "%.1f requests held at once, p95): %d GPUs" % (
    w["name"], w["verdict"], ", ".join(codes), s["requests_waiting"]["p95"],
    s["kv_cache_usage_percent"]["p95"], s["ttft_ms"]["p95"], s["scrapes"], s["window_s"], s["requests_held_p95"],
    w["recommendation"]["gpus"]))
EOF
); then
  pass "(h) engine metrics from Prometheus: $result"
else
  fail "(h) engine metrics from Prometheus: $result"
fi
echo "bytes moved for 15 GPUs x 4 h: server aggregation $(bytes_of server);" \
  "client aggregation $(bytes_of client)"

# --- (c) without kube-state-metrics, (d) --group-by pod ------------------------------------------------
if observe "(c) without kube-state-metrics" nksm --prometheus "$pods_url" "${window[@]}"; then
  check_report "(c) without kube-state-metrics: by pod" "$scratch/nksm.json" by_pod 0.5
  if "$py" -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["warnings"]))' \
      "$scratch/nksm.json" | grep -qi 'kube_pod_owner\|kube-state-metrics'; then
    pass "(c) without kube-state-metrics: the report warns of it"
  else
    fail "(c) without kube-state-metrics: no warning names kube-state-metrics or kube_pod_owner:" \
      "$(head -c 400 "$scratch/nksm.json")"
  fi
fi
if observe "(d) --group-by pod" bypod --prometheus "$owners_url" "${window[@]}" --group-by pod; then
  check_report "(d) --group-by pod, kube-state-metrics present: by pod" "$scratch/bypod.json" \
    by_pod 0.5 spans
fi

# --- (e) auth ----------------------------------------------------------------------------------------
timeout 110 "$py" "$here/auth_proxy.py" "$owners_url" "$scratch/proxy.port" 2>"$scratch/proxy.log" &
pids+=($!)
for _ in $(seq 50); do
  [ -s "$scratch/proxy.port" ] && break
  sleep 0.1
done
if [ ! -s "$scratch/proxy.port" ]; then
  fail "auth_proxy.py did not start: $(head -c 400 "$scratch/proxy.log")"
  finish
fi
proxy="http://127.0.0.1:$(cat "$scratch/proxy.port")"
tenant=(--header 'X-Scope-OrgID: tenant-1')

# refused LABEL ARGS...: exit 2, nothing on stdout, one stderr line naming the proxy and 401.
refused() {
  local label=$1 rc lines line
  shift
  timeout 30 "$rightsize" observe --format json "${window[@]}" "$@" >"$scratch/ref.out" 2>"$scratch/ref.err"
  rc=$?
  lines=$(grep -c . "$scratch/ref.err")
  line=$(head -n 1 "$scratch/ref.err")
  if [ "$rc" -eq 2 ] && [ ! -s "$scratch/ref.out" ] && [ "$lines" -eq 1 ] &&
      [[ "$line" == *"$proxy"* ]] && [[ "$line" == *401* ]]; then
    pass "$label: exit 2, $line"
  else
    fail "$label: exit $rc, $lines stderr lines: $(head -c 400 "$scratch/ref.err")" \
      "(expected exit 2 and one line naming $proxy and 401)"
  fi
}
refused "(e) no token" --prometheus "$proxy"
refused "(e) the token without X-Scope-OrgID" --prometheus "$proxy" --bearer-token s3cret-token

printf 's3cret-token\n' >"$scratch/token"
if observe "(e) --bearer-token-file" tokenfile --prometheus "$proxy" "${window[@]}" \
    --bearer-token-file "$scratch/token" "${tenant[@]}"; then
  check_report "(e) --bearer-token-file FILE --header 'X-Scope-OrgID: tenant-1'" \
    "$scratch/tokenfile.json" by_owner 0.5
fi
if observe "(e) --bearer-token -vv" token --prometheus "$proxy" "${window[@]}" \
    --bearer-token s3cret-token "${tenant[@]}" -vv; then
  if grep -qF s3cret-token "$scratch/token.out" "$scratch/token.err" "$scratch/token.json"; then
    fail "(e) --bearer-token -vv: the token appears in $(grep -lF s3cret-token "$scratch"/token.*)"
  else
    pass "(e) --bearer-token s3cret-token -vv: exit 0, the token in none of stdout, stderr" \
      "($(grep -c . "$scratch/token.err") lines), the report"
  fi
fi
# Issue 50: no secret in any output, at any verbosity, in any format, in -o DIR's patches, or in
# the error of a refused request: the bearer token, a password in the URL, a secret header.
secrets=(s3cret-token s3cret-pass k3y-s3cret)
leaks() { # FILE... -> the files that hold a secret
  local f s
  for f in "$@"; do
    for s in "${secrets[@]}"; do
      if grep -qF "$s" "$f" 2>/dev/null; then echo "$f ($s)"; fi
    done
  done
}
basic_url=${proxy/http:\/\//http://rs:s3cret-pass@}
runs=0 leaked=""
# Every verbosity in JSON, and every other format at -vv, each with the token and the password.
for run in "-q json" " json" "-v json" "-vv json" "-vv yaml" "-vv csv" "-vv markdown" "-vv table"; do
  verbosity=${run% *}
  format=${run#* }
  loud=()
  if [ -n "$verbosity" ]; then loud=("$verbosity"); fi
  for auth in bearer basic; do
    {
      if [ "$auth" = bearer ]; then
        how=(--prometheus "$proxy" --bearer-token s3cret-token)
      else
        how=(--prometheus "$basic_url")
      fi
      out="$scratch/secret-$auth-$format${verbosity}"
      rm -rf "$out.dir"
      timeout 30 "$rightsize" observe "${how[@]}" "${window[@]}" "${tenant[@]}" \
        --header 'X-Api-Key: k3y-s3cret' --format "$format" -o "$out.dir/" "${loud[@]}" \
        >"$out.out" 2>"$out.err"
      rc=$?
      runs=$((runs + 1))
      if [ "$rc" -ne 0 ]; then
        leaked+=" [$auth $format $verbosity: exit $rc: $(head -c 200 "$out.err")]"
      fi
      files=("$out.out" "$out.err")
      while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$out.dir" -type f -print0 2>/dev/null)
      leaked+=$(leaks "${files[@]}")
    }
  done
done
for verbosity in "" -vv; do # refused: the error line names the URL, never the password
  timeout 30 "$rightsize" observe --prometheus "${basic_url/s3cret-pass/wr0ng-pass}" \
    "${window[@]}" "${tenant[@]}" --header 'X-Api-Key: k3y-s3cret' $verbosity \
    >"$scratch/refused-secret.out" 2>"$scratch/refused-secret.err"
  rc=$?
  runs=$((runs + 1))
  [ "$rc" -eq 2 ] || leaked+=" [refused $verbosity: exit $rc]"
  leaked+=$(leaks "$scratch/refused-secret.out" "$scratch/refused-secret.err")
  if grep -qF wr0ng-pass "$scratch/refused-secret.err"; then leaked+=" [refused: wr0ng-pass]"; fi
done
if [ -z "$leaked" ]; then
  pass "(e) secrets: $runs runs (bearer token, user:password URL, a secret header; -q to -vv;" \
    "json, yaml, csv, markdown, table; -o DIR; a refused password): no secret in any output"
else
  fail "(e) secrets:$leaked"
fi

if PROMETHEUS_URL=$owners_url observe "(e) PROMETHEUS_URL" envurl "${window[@]}"; then
  check_report "(e) PROMETHEUS_URL=URL without --prometheus" "$scratch/envurl.json" by_owner 0.5
fi

# --- (f) the default window --------------------------------------------------------------------------
if observe "(f) --range left out" default --prometheus "$owners_url" --end "$end" -v; then
  check_report "(f) --range left out (14d): the same workloads" "$scratch/default.json" by_owner 0.5
fi

# --- (g) something to apply: --format yaml, and -o DIR/ with a patch per re-sized owner ----------------
if timeout 30 "$rightsize" observe --prometheus "$owners_url" "${window[@]}" --format yaml \
    >"$scratch/report.yaml" 2>"$scratch/yaml.err" &&
    "$py" -c 'import json, sys, yaml
assert yaml.safe_load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' \
      "$scratch/report.yaml" "$scratch/server.json" 2>"$scratch/yaml.check"; then
  pass "(g) --format yaml: the JSON report's document, read back equal"
else
  fail "(g) --format yaml: $(head -c 300 "$scratch/yaml.err" "$scratch/yaml.check")"
fi
if timeout 30 "$rightsize" observe --prometheus "$owners_url" "${window[@]}" --format json \
    -o "$scratch/apply/" >"$scratch/apply.out" 2>"$scratch/apply.err"; then
  if result=$("$py" - "$scratch/apply" <<'EOF'
import json, os, sys, yaml
d = sys.argv[1]
report = json.load(open(os.path.join(d, "report.json")))
patch = yaml.safe_load(open(os.path.join(d, "deployment-team-c-whisper.yaml")))
w = next(w for w in report["workloads"] if w["name"] == "team-c/Deployment/whisper")
assert w["verdict"] == "over-provisioned", w["verdict"]
assert w["owner"] == {"namespace": "team-c", "kind": "Deployment", "name": "whisper",
                      "container": "asr"}, w["owner"]
assert w["pods"] == 2 and w["gpus"] == 2, (w["pods"], w["gpus"])
# A serving engine known by its containers' name (vllm), not the owner's: not sized on the
# engine's busy loop and preallocation (no "under-provisioned 8x" for the LeaderWorkerSet).
lws = next(w for w in report["workloads"] if w["name"] == "team-a/LeaderWorkerSet/llama-70b")
assert lws["verdict"] == "inconclusive", (lws["verdict"], lws["reasons"])
assert any(r["code"] == "engine_busy" for r in lws["reasons"]), lws["reasons"]
rec = w["recommendation"]
pod = patch["spec"]["template"]["spec"]
(container,) = pod["containers"]
assert container["name"] == "asr", container
# Fewer GPUs than its two pods of one GPU: fewer replicas of one GPU; else GPUs per pod.
per_pod = 1 if rec["gpus"] < w["pods"] else rec["gpus"] // w["pods"]
assert patch["spec"].get("replicas", w["pods"]) == (rec["gpus"] if rec["gpus"] < w["pods"] else w["pods"]), patch["spec"]
limits = container["resources"]["limits"]
assert list(pod["nodeSelector"]) == ["nvidia.com/gpu.product"], pod["nodeSelector"]
assert limits == container["resources"]["requests"], container["resources"]
assert limits.get("nvidia.com/gpu") == per_pod or limits.get(
    "nvidia.com/mig-%s" % rec["partition"]) == per_pod, (limits, rec)
files = sorted(f for f in os.listdir(d) if f.endswith(".yaml"))
print("%s; %s: %s, %s" % (", ".join(files), w["name"], rec["text"][:60], limits))
EOF
  ); then
    pass "(g) -o DIR/: report.json and $result"
  else
    fail "(g) -o DIR/: $result $(head -c 300 "$scratch/apply.err")"
  fi
else
  fail "(g) -o DIR/: exit $?, $(head -c 300 "$scratch/apply.err")"
fi

finish
