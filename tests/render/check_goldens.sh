#!/usr/bin/env bash
# tests/render/check_goldens.sh RIGHTSIZE [SOURCE_DIR]
#
# Every golden CLI case that writes HTML or SVG (tests/golden/*/args with --format html or
# --format svg) is run again from SOURCE_DIR (default: this checkout) and its standard output
# checked by check_html.py: well-formed XML, self-contained, no script, the HTML head and style
# rules (see check_html.py). The golden test (tests/cli/test_golden.cpp) separately holds the
# output byte for byte; the output is checked rather than stdout.txt because the golden files
# write this checkout's path as <root>, which is not XML.
# Then check_html.py itself must reject the first HTML and the first SVG output spoiled four
# ways (an unclosed tag, a <script>, an external href, an SVG without its xmlns), so that a
# checker that accepts anything cannot pass.
# One PASS or FAIL line per case; exit 1 if any failed, or if there is not at least one HTML and
# one SVG case.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "FAIL: usage: $0 RIGHTSIZE [SOURCE_DIR]"
  exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${2:-$here/../..}" && pwd)
py=/usr/bin/python3  # Debian's, not a pyenv or virtualenv one that may shadow it on PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RIGHTSIZE_TODAY=2026-11-21  # as tests/cli/test_golden.cpp pins it
unset RIGHTSIZE_CATALOG

fails=0 html_cases=0 svg_cases=0 first_html="" first_svg=""
for dir in "$src"/tests/golden/*/; do
  [ -f "$dir/args" ] || continue
  name=$(basename "$dir")
  read -r -a args <"$dir/args"
  ext=""
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --format=html) ext=html ;;
      --format=svg) ext=svg ;;
      --format)
        case "${args[i + 1]:-}" in html | svg) ext=${args[i + 1]} ;; esac ;;
    esac
  done
  [ -n "$ext" ] || continue
  out=$tmp/$name.$ext
  (cd "$src" && "$bin" "${args[@]}") >"$out" 2>"$tmp/err"
  code=$?
  if [ ! -s "$out" ]; then
    if [ "$code" -ne 0 ]; then
      echo "PASS: $name: exit $code, no output to check"
    else
      echo "FAIL: $name: exit 0 and no output"
      fails=$((fails + 1))
    fi
    continue
  fi
  problems=$("$py" "$here/check_html.py" "$out")
  if [ -z "$problems" ]; then
    echo "PASS: $name ($ext, $(wc -c <"$out") bytes)"
  else
    printf '%s\n' "$problems" | sed "s|^$tmp/|FAIL: |"
    fails=$((fails + 1))
  fi
  if [ "$ext" = html ]; then
    html_cases=$((html_cases + 1))
    [ -n "$first_html" ] || first_html=$out
  else
    svg_cases=$((svg_cases + 1))
    [ -n "$first_svg" ] || first_svg=$out
  fi
done

# check_html.py must refuse spoiled copies: FILE, a label, the problem it must name, a sed edit.
spoil() {
  local from=$1 label=$2 want=$3 edit=$4
  local to=$tmp/spoiled-$label.${from##*.}
  sed -e "$edit" "$from" >"$to"
  if cmp -s "$from" "$to"; then
    echo "FAIL: self-test $label: the edit did not change $(basename "$from")"
    fails=$((fails + 1))
  elif [[ "$("$py" "$here/check_html.py" "$to")" == *"$want"* ]]; then
    echo "PASS: self-test: check_html.py refuses $label"
  else
    echo "FAIL: self-test: check_html.py accepts $label in $(basename "$from")"
    fails=$((fails + 1))
  fi
}
if [ -n "$first_html" ]; then
  spoil "$first_html" unclosed-tag "not well-formed" 's|</body>|<p></body>|'
  spoil "$first_html" script "<script> element" 's|</body>|<script>alert(1)</script></body>|'
  spoil "$first_html" external-href "points outside" \
    's|</head>|<link rel="stylesheet" href="https://example.com/x.css"/></head>|'
fi
if [ -n "$first_svg" ]; then
  spoil "$first_svg" svg-without-xmlns "without xmlns" \
    '0,/<svg /s| xmlns="http://www.w3.org/2000/svg"||'
fi

if [ "$html_cases" -lt 1 ] || [ "$svg_cases" -lt 1 ]; then
  echo "FAIL: $html_cases golden cases with --format html and $svg_cases with --format svg" \
    "(at least one of each expected)"
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] && echo "all HTML and SVG outputs well-formed ($html_cases HTML, $svg_cases SVG)"
exit $((fails > 0))
