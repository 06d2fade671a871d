#!/usr/bin/env bash
# tests/observe/test_limits.sh RIGHTSIZE
#
# rightsize observe under the limits a long run meets (issue 50, docs/reliability.md):
#   1. SIGTERM and SIGINT while it waits on a Prometheus that never answers: exit 143 and 130
#      (128 + the signal), and nothing written where -o points, no temporary file left beside it.
#   2. A memory limit (ulimit -v) under which a large DCGM file does not fit: one line,
#      "out of memory: ...", exit 2, no internal error, nothing written.
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without python3.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE"
  exit 2
fi
rightsize=$1
py=/usr/bin/python3
if [ ! -x "$py" ]; then
  echo "SKIP: no /usr/bin/python3 (the stalling server is a python script)"
  exit 77
fi
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY PROMETHEUS_URL
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

scratch=$(mktemp -d)
server=""
# shellcheck disable=SC2317 # run by the EXIT trap below, which shellcheck does not follow
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() {
  fails=$((fails + 1))
  echo "FAIL: $*"
}

# A server that accepts connections and never answers: rightsize waits on it until a signal.
"$py" -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept()[0])
' >"$scratch/port" &
server=$!
for _ in $(seq 50); do
  [ -s "$scratch/port" ] && break
  sleep 0.1
done
port=$(head -1 "$scratch/port")
if [ -z "$port" ]; then
  echo "FAIL: the stalling server did not start"
  exit 1
fi

for signal in TERM INT; do
  want=$([ "$signal" = TERM ] && echo 143 || echo 130)
  out=$scratch/out-$signal
  mkdir -p "$out"
  # timeout sends the signal after 2 s and, with --preserve-status, exits as the command did.
  timeout --preserve-status -s "$signal" 2 "$rightsize" observe --prometheus "http://127.0.0.1:$port" \
    --range 1h --timeout 60 -o "$out/report.json" 2>"$scratch/err-$signal"
  rc=$?
  left=$(find "$out" -mindepth 1 | head -3)
  if [ "$rc" -eq "$want" ] && [ -z "$left" ]; then
    pass "SIG$signal while waiting on Prometheus: exit $rc, nothing written"
  else
    fail "SIG$signal: exit $rc (expected $want), left: ${left:-nothing}, stderr: $(head -c 300 "$scratch/err-$signal")"
  fi
done

if [ "${RIGHTSIZE_SANITIZED:-0}" = 1 ]; then
  echo "PASS: ulimit -v not tried: a sanitized build reserves terabytes of address space"
  [ "$fails" -eq 0 ] || exit 1
  exit 0
fi
# About 90 MB of scrapes: 8 GPUs, 6 fields, every 10 s for 42 hours.
"$py" - "$scratch/big.prom" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    for k in range(15000):
        for g in range(8):
            for field in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
                          "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_GPU_TEMP"):
                f.write('%s{gpu="%d",UUID="GPU-%08d",modelName="NVIDIA H100 80GB HBM3",'
                        'Hostname="node-1"} %d %d\n' % (field, g, g, (k * 7 + g) % 100,
                                                       1700000000000 + k * 10000))
PYEOF
mkdir -p "$scratch/mem"
# 60 MB of address space: enough to start, not to hold the file and its samples.
(
  ulimit -v 60000
  "$rightsize" observe --dcgm "$scratch/big.prom" -o "$scratch/mem/report.json" \
    >"$scratch/mem.out" 2>"$scratch/mem.err"
)
rc=$?
lines=$(wc -l <"$scratch/mem.err")
if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "rightsize: error: out of memory" "$scratch/mem.err" &&
  [ ! -e "$scratch/mem/report.json" ]; then
  pass "ulimit -v 60000 and a $(($(wc -c <"$scratch/big.prom") / 1000000)) MB DCGM file: exit 2, $(cat "$scratch/mem.err")"
else
  fail "ulimit -v: exit $rc, $lines stderr lines: $(head -c 300 "$scratch/mem.err")"
fi
[ "$fails" -eq 0 ] || exit 1
