#!/usr/bin/env bash
# tests/render/test_browser.sh RIGHTSIZE SOURCE_DIR
#
# The HTML reports in a real browser (docs/reports.md): every case below is run from
# SOURCE_DIR, its HTML checked by check_html.py (well-formed, self-contained, no script), then
# rendered by Debian's headless Chromium to a PNG of the whole page (screenshot.py, over the
# DevTools pipe: width 1200 CSS px, height the page's, device scale 1, light colour scheme,
# fonts-dejavu-core) and checked by png_check.py:
#   - not blank: at least 2 % of its pixels differ from the background (its most common colour);
#   - exactly the golden's size in pixels, i.e. the same laid-out page (goldens: the two
#     screenshots in docs/images/, and for the other cases tests/golden/browser/CASE.txt, the
#     size, background and ink png_check.py measured of the golden image: a few bytes, not an
#     image in the repository's history at every change);
#   - loosely, the same amount of ink: its share of non-background pixels within a factor 1.5 of
#     the golden's. No pixel-by-pixel diff: anti-aliasing and hinting change with Chromium and
#     FreeType, while a lost chart or table changes the ink far more than that.
# RIGHTSIZE_UPDATE_GOLDEN=1 (re)writes the goldens instead of comparing (still refusing a blank
# page); review them as images. RIGHTSIZE_RENDER_OUT=DIR keeps each case's HTML, stderr and PNG
# there. CHROMIUM=PATH picks the browser (default: Debian's /usr/lib/chromium/chromium).
# One PASS or FAIL line per case; exit 1 if any failed, 77 (a CTest skip) without chromium unless
# CI=true, where a missing browser fails. Each browser run is under `timeout`, with its own
# temporary HOME and profile; the scratch directory is removed on exit.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE SOURCE_DIR"
  exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# Debian's python3, not a pyenv or virtualenv one that may shadow it on PATH.
py=/usr/bin/python3

# The cases: NAME, the exit code rightsize must give (docs/cli.md, EXIT STATUS: 1 a check
# regression, 3 nothing feasible), then its arguments, run from SOURCE_DIR. One line each.
cases='
plan-llama-3.1-8b-chat       0  plan examples/llama-3.1-8b-chat.json --format html
plan-llama-3.1-70b-sla       0  plan examples/llama-3.1-70b-sla.json --format html
plan-llama-3.1-70b-pretrain  0  plan examples/llama-3.1-70b-pretrain.json --format html
plan-infeasible-latency      3  plan examples/infeasible-latency.json --format html
check-ci-price-rise          1  check examples/ci/specs --config examples/ci/.rightsize.json --catalog examples/ci/price-rise.json --format html
observe-cluster              0  observe --dcgm examples/observe/cluster.prom --format html
observe-node                 0  observe --nvidia-smi examples/observe/node-12.csv --format html
'

# Where each case's golden lives: these two are the screenshots docs/ shows.
golden_of() {
  case "$1" in
    plan-llama-3.1-70b-sla) echo "$src/docs/images/plan-llama-3.1-70b-sla.png" ;;
    observe-cluster) echo "$src/docs/images/observe-cluster.png" ;;
    *) echo "$src/tests/golden/browser/$1.txt" ;;
  esac
}

chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
  for c in /usr/lib/chromium/chromium "$(command -v chromium || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then chromium=$c; break; fi
  done
fi
fonts=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf  # screenshot.py shows only fonts-dejavu-core
if [ -z "$chromium" ] || [ ! -x "$chromium" ] || [ ! -x "$py" ] || [ ! -f "$fonts" ]; then
  what="chromium not installed"
  [ -f "$fonts" ] || what="fonts-dejavu-core not installed"
  [ -x "$py" ] || what="/usr/bin/python3 not installed"
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $what (CI=true: .ci/deps installs chromium and fonts-dejavu-core)"
    exit 1
  fi
  echo "$what; skipped (apt-get install chromium fonts-dejavu-core, or run .ci/deps)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${RIGHTSIZE_RENDER_OUT:-$tmp/out}
mkdir -p "$out" "$tmp/home"
update=${RIGHTSIZE_UPDATE_GOLDEN:-}

export RIGHTSIZE_TODAY=2026-11-21  # reports mark stale prices relative to today, as the goldens do
unset RIGHTSIZE_CATALOG

fails=0 passed=0
fail() {
  echo "FAIL: $1"
  fails=$((fails + 1))
}
while read -r name want args; do
  [ -n "$name" ] || continue
  html=$out/$name.html png=$out/$name.png err=$out/$name.stderr.txt
  read -r -a argv <<<"$args"
  (cd "$src" && timeout -k 5 60 "$bin" "${argv[@]}") >"$html" 2>"$err"
  got=$?
  if [ "$got" = 124 ] || [ "$got" = 137 ]; then
    fail "$name: rightsize did not finish in 60 s"
    continue
  elif [ "$got" != "$want" ]; then
    fail "$name: rightsize exited $got, expected $want: $(head -n 1 "$err")"
    continue
  fi
  if [ ! -s "$html" ]; then
    fail "$name: no HTML on standard output"
    continue
  fi
  problems=$("$py" "$here/check_html.py" "$html")
  if [ -n "$problems" ]; then
    n=$(printf '%s\n' "$problems" | wc -l)
    more=""
    [ "$n" -gt 1 ] && more=" (and $((n - 1)) more problems)"
    first=$(printf '%s\n' "$problems" | head -n 1)
    fail "$name: ${first#"$html: "}$more"
    continue
  fi
  # A private HOME, cache and temporary directory: nothing of the browser outlives the test.
  if ! shot=$(HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_CACHE_HOME=$tmp/home/.cache \
              TMPDIR=$tmp CHROMIUM=$chromium timeout -k 5 90 \
              "$py" "$here/screenshot.py" --timeout 60 --width 1200 "$html" "$png"); then
    fail "$name: ${shot:-screenshot.py timed out after 90 s}"
    continue
  fi
  golden=$(golden_of "$name")
  if [ -n "$update" ]; then
    if ! verdict=$("$py" "$here/png_check.py" "$png"); then
      fail "$name: $verdict; golden not written"
      continue
    fi
    mkdir -p "$(dirname "$golden")"
    case "$golden" in
      *.txt) "$py" "$here/png_check.py" --write-text "$golden" "$png" >/dev/null ;;
      *) cp "$png" "$golden" ;;
    esac
    echo "UPDATED: ${golden#"$src"/}: $verdict"
    passed=$((passed + 1))
    continue
  fi
  if [ ! -f "$golden" ]; then
    fail "$name: no golden ${golden#"$src"/} (RIGHTSIZE_UPDATE_GOLDEN=1 writes it)"
    continue
  fi
  if verdict=$("$py" "$here/png_check.py" "$png" "$golden"); then
    echo "PASS: $name: $verdict"
    passed=$((passed + 1))
  else
    fail "$name: $verdict"
  fi
done <<<"$cases"

version=$(HOME=$tmp/home "$chromium" --version 2>/dev/null | head -n 1)
echo "$passed passed, $fails failed (${version:-$chromium})"
exit $((fails > 0))
