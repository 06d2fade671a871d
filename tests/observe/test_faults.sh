#!/usr/bin/env bash
# tests/observe/test_faults.sh RIGHTSIZE
#
# rightsize observe --prometheus against a server that fails in each way a network fails
# (issue 50, docs/reliability.md): fault_server.py stalls mid-body, resets the connection,
# answers 429 with Retry-After, declares a 2 GiB body, streams more than 2 GiB, or redirects to
# itself. Each run must end by itself within its time limit, exit 2 with one line on standard
# error naming the server's URL, print nothing on standard output and write nothing where -o
# points. One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without
# python3.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE"
  exit 2
fi
rightsize=$1
py=/usr/bin/python3
if [ ! -x "$py" ]; then
  echo "SKIP: no /usr/bin/python3 (the failing server is a python script)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd) || exit 2
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

"$py" "$here/fault_server.py" "$scratch/port" &
server=$!
for _ in $(seq 100); do
  [ -s "$scratch/port" ] && break
  sleep 0.1
done
port=$(cat "$scratch/port" 2>/dev/null)
if [ -z "$port" ]; then
  echo "FAIL: the failing server did not start"
  exit 1
fi

# fault NAME LIMIT_S WHAT: observe against /NAME, killed after LIMIT_S, with --timeout 3.
fault() {
  local name=$1 limit=$2 what=$3 url rc lines start took
  url="http://127.0.0.1:$port/$name"
  start=$(date +%s)
  timeout "$limit" "$rightsize" observe --prometheus "$url" --end 2026-11-21T12:00:00Z \
    --range 1h --timeout 3 --format json -o "$scratch/$name.json" \
    >"$scratch/$name.out" 2>"$scratch/$name.err"
  rc=$?
  took=$(($(date +%s) - start))
  lines=$(grep -c . "$scratch/$name.err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$scratch/$name.out" ] &&
      [ ! -e "$scratch/$name.json" ] && grep -qF "$url" "$scratch/$name.err" &&
      ! grep -q "internal error" "$scratch/$name.err"; then
    pass "$what: exit 2 in ${took} s, $(cat "$scratch/$name.err")"
  else
    fail "$what: exit $rc in ${took} s, $lines stderr lines, stdout $(wc -c <"$scratch/$name.out") bytes:" \
      "$(head -c 300 "$scratch/$name.err")"
  fi
}

fault stall 60 "a server that stalls mid-body"
fault reset 60 "a connection reset before the answer"
fault throttle 90 "429 with Retry-After: 1 every time"
requests=$(grep -c '^throttle$' "$scratch/port.requests")
if [ "$requests" -ge 2 ]; then
  pass "429: asked again after Retry-After ($requests requests)"
else
  fail "429: $requests request(s): Retry-After was not waited out and retried"
fi
fault huge 60 "a declared 2 GiB body"
fault flood 120 "more than 2 GiB streamed without a length"
fault loop 60 "a redirect to itself"

[ "$fails" -eq 0 ] || exit 1
