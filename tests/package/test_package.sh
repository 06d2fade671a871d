#!/usr/bin/env bash
# tests/package/test_package.sh BUILD_DIR
#
# The release packages build and install (docs/release.md): with BUILD_DIR's CPack configuration,
#   * `cpack -G TGZ` writes rightsize-<version>-<system>-<arch>.tar.gz and its .sha256; unpacked
#     into a scratch prefix, bin/rightsize --version names the version and the data versions of the
#     share/rightsize/ beside it, needs only libc and libm (a static-runtime build: its ELF NEEDED
#     entries are libc, libm and possibly ld-linux or libdl; libcurl is dlopen()ed by observe
#     --prometheus, SQLite linked in) and, run from a directory outside the source tree, plans
#     examples/llama-3.1-8b-chat.json (exit 0, a "recommended:" line) from the installed data: a
#     corrupted copy of that data is reported at its installed path, so the binary cannot be
#     falling back to the source tree's data/; and bin/rightsize copied alone into an empty
#     folder, run from another empty folder with HOME there and no RIGHTSIZE_DATA or
#     RIGHTSIZE_CATALOG, plans and deploys the example from its compiled-in data (docs/cli.md,
#     "Where the data comes from"), and catalog validate names <compiled-in>/gpus.json, never the
#     source tree's data/;
#   * where dpkg-deb exists, `cpack -G DEB` writes the .deb: package rightsize, Depends on libc6
#     (and libsqlite3-0 only if the binary needs libsqlite3.so.0), Recommends libcurl4,
#     usr/bin/rightsize and usr/share/rightsize/gpus.json listed; extracted, it runs the same way.
# One PASS or FAIL line per check; exit 1 if any failed. Everything is written under a mktemp -d
# scratch directory, removed on exit; BUILD_DIR is only read (cpack builds its `preinstall`).
# CPACK names the cpack to run (default: cpack on PATH).
set -uo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/CPackConfig.cmake" ]; then
  echo "FAIL: usage: $0 BUILD_DIR (a configured build directory with CPackConfig.cmake)"
  exit 2
fi
build=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
example=llama-3.1-8b-chat.json

fails=0 checks=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }
# check DESCRIPTION COMMAND...: PASS when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# The value of "KEY": "VALUE" in a JSON file (the data files keep their version near the top).
json_string() { sed -n "s/^ *\"$2\": *\"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1; }

# cpack_one GENERATOR: writes the package under $scratch/out; its log in $scratch/cpack-GEN.log.
cpack_one() {
  if (cd "$scratch" && "${CPACK:-cpack}" -G "$1" --config "$build/CPackConfig.cmake" -B "$scratch/out") \
      >"$scratch/cpack-$1.log" 2>&1; then
    return 0
  fi
  sed 's/^/  cpack: /' "$scratch/cpack-$1.log" | tail -n 20
  return 1
}

# sha256_ok FILE: FILE under $scratch/out matches the FILE.sha256 cpack wrote beside it.
sha256_ok() { (cd "$scratch/out" && sha256sum --quiet -c "$1.sha256"); }

# installed_checks LABEL PREFIX: the checks of an installed tree (bin/rightsize, share/rightsize).
installed_checks() {
  local label=$1 prefix=$2
  local exe=$prefix/bin/rightsize data=$prefix/share/rightsize
  if [ ! -x "$exe" ] || [ ! -f "$data/gpus.json" ] || [ ! -f "$data/engines.json" ]; then
    fail "$label: bin/rightsize and share/rightsize/{gpus,engines}.json installed under $prefix"
    return
  fi
  pass "$label: bin/rightsize and share/rightsize/ installed"

  # --version: the release and the versions of the data installed beside it.
  local catalog engines version
  catalog=$(json_string "$data/gpus.json" catalog_version)
  engines=$(json_string "$data/engines.json" engines_version)
  version=$("$exe" --version 2>&1)
  local expected="^rightsize [0-9]+\\.[0-9]+\\.[0-9]+ "
  expected+="\\(catalog ${catalog//./\\.}, engines ${engines//./\\.}\\)$"
  if [ -n "$catalog" ] && [ -n "$engines" ] && [[ "$version" =~ $expected ]]; then
    pass "$label: --version names the data versions: $version"
  else
    fail "$label: --version printed \"$version\"; expected catalog $catalog, engines $engines"
  fi

  # The shared libraries it needs, when the C++ runtime is linked in: its own ELF NEEDED entries
  # are libc and libm (ld-linux and libdl allowed), no libcurl (dlopen()ed by observe
  # --prometheus only) and no SQLite (linked in from libsqlite3.a); ldd loads nothing else.
  if grep -q '^RIGHTSIZE_STATIC_RUNTIME:BOOL=ON' "$build/CMakeCache.txt" &&
      ! grep -Eq '^RIGHTSIZE_(SANITIZE|FUZZ):BOOL=ON' "$build/CMakeCache.txt"; then
    local needed unexpected loaded
    needed=$(LC_ALL=C readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
    unexpected=$(tr ' ' '\n' <<<"$needed" |
                 grep -Ev '^(|libc\.so\.6|libm\.so\.6|libdl\.so\.2|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$' |
                 tr '\n' ' ')
    loaded=$(ldd "$exe" | awk '{print $1}' |
             grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libdl\.so\.2|(/.*/)?ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$' |
             tr '\n' ' ')
    if [[ "$needed" == *libc.so.6* ]] && [ -z "$unexpected" ] && [ -z "$loaded" ]; then
      pass "$label: loads only libc and libm (NEEDED: $needed)"
    else
      fail "$label: with RIGHTSIZE_STATIC_RUNTIME, NEEDED: $needed; unexpected: ${unexpected:-none};" \
        "ldd also loads: ${loaded:-none}"
    fi
  else
    pass "$label: a shared C++ runtime in this build (sanitizers, fuzzing or" \
      "RIGHTSIZE_STATIC_RUNTIME=OFF), ldd not checked"
  fi

  # A plan of the bundled example, from a directory outside the source tree.
  local work=$scratch/work-$label
  mkdir -p "$work/models"
  cp "$source_dir/examples/$example" "$work/"
  cp -r "$source_dir/examples/models/llama-3.1-8b" "$work/models/"
  local rc
  (cd "$work" && env -u RIGHTSIZE_CATALOG "$exe" plan "$example") >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^recommended: ' "$work/out"; then
    pass "$label: plan $example from $work: exit 0, $(grep -m1 '^recommended: ' "$work/out")"
  else
    fail "$label: plan $example from $work: exit $rc, stderr: $(head -c 400 "$work/err")"
  fi

  # The data it read is the installed one: a copy of the tree whose gpus.json is corrupted must
  # report that file, at its installed path.
  local copy=$scratch/corrupt-$label
  cp -a "$prefix" "$copy"
  echo 'not json' >>"$copy/share/rightsize/gpus.json"
  (cd "$work" && env -u RIGHTSIZE_CATALOG "$copy/bin/rightsize" catalog list) \
    >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF "$copy/share/rightsize/gpus.json" "$work/err"; then
    pass "$label: reads its data from <prefix>/share/rightsize, not the source tree"
  else
    fail "$label: a corrupted <prefix>/share/rightsize/gpus.json was not reported" \
      "(exit $rc): $(head -c 400 "$work/err")"
  fi
  rm -rf "$copy"

  # The binary copied alone: no share/rightsize beside it, cwd and HOME in an empty folder, the
  # spec and its model elsewhere. It runs on the data compiled into it, not the source tree's.
  local alone=$scratch/alone-$label empty=$scratch/empty-$label
  mkdir -p "$alone" "$empty"
  cp "$exe" "$alone/rightsize"
  (cd "$empty" && env -u RIGHTSIZE_CATALOG -u RIGHTSIZE_DATA HOME="$empty" \
    "$alone/rightsize" plan "$work/$example") >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^recommended: ' "$work/out"; then
    pass "$label: bin/rightsize copied alone plans $example from an empty folder:" \
      "$(grep -m1 '^recommended: ' "$work/out")"
  else
    fail "$label: bin/rightsize copied alone: plan $example exit $rc, stderr: $(head -c 400 "$work/err")"
  fi
  (cd "$empty" && env -u RIGHTSIZE_CATALOG -u RIGHTSIZE_DATA HOME="$empty" \
    "$alone/rightsize" deploy "$work/$example" --model-uri meta-llama/Llama-3.1-8B-Instruct) \
    >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q 'kind: Deployment' "$work/out"; then
    pass "$label: bin/rightsize copied alone deploys $example (deploy.json compiled in)"
  else
    fail "$label: bin/rightsize copied alone: deploy $example exit $rc, stderr: $(head -c 400 "$work/err")"
  fi
  (cd "$empty" && env -u RIGHTSIZE_CATALOG -u RIGHTSIZE_DATA HOME="$empty" \
    "$alone/rightsize" catalog validate) >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^<compiled-in>/gpus.json: ok: ' "$work/out"; then
    pass "$label: bin/rightsize copied alone reads <compiled-in>/gpus.json, not $source_dir/data"
  else
    fail "$label: bin/rightsize copied alone: catalog list exit $rc, not from <compiled-in>:" \
      "$(head -c 200 "$work/out") $(head -c 400 "$work/err")"
  fi
  rm -rf "$alone" "$empty"
}

# --- TGZ ------------------------------------------------------------------------------------------
if cpack_one TGZ; then
  tarballs=("$scratch"/out/rightsize-*.tar.gz)
  if [ ${#tarballs[@]} -eq 1 ] && [ -f "${tarballs[0]}" ]; then
    tarball=${tarballs[0]}
    name=$(basename "$tarball" .tar.gz)
    if [[ "$name" =~ ^rightsize-[0-9]+\.[0-9]+\.[0-9]+-[A-Za-z]+-[A-Za-z0-9_]+$ ]]; then
      pass "TGZ: $name.tar.gz named rightsize-<version>-<system>-<arch>"
    else
      fail "TGZ: $name.tar.gz is not named rightsize-<version>-<system>-<arch>"
    fi
    check "TGZ: $name.tar.gz.sha256 matches" sha256_ok "$name.tar.gz"
    mkdir -p "$scratch/tgz"
    if tar -xzf "$tarball" -C "$scratch/tgz"; then
      installed_checks tgz "$scratch/tgz/$name"
    else
      fail "TGZ: $tarball does not unpack"
    fi
  else
    fail "TGZ: cpack wrote no single rightsize-*.tar.gz: $(cd "$scratch/out" && echo *)"
  fi
else
  fail "TGZ: cpack -G TGZ failed"
fi

# --- DEB ------------------------------------------------------------------------------------------
if ! command -v dpkg-deb >/dev/null; then
  echo "note: no dpkg-deb, the .deb is not built"
elif cpack_one DEB; then
  debs=("$scratch"/out/rightsize-*.deb)
  if [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ]; then
    deb=${debs[0]}
    package=$(dpkg-deb --field "$deb" Package)
    depends=$(dpkg-deb --field "$deb" Depends)
    recommends=$(dpkg-deb --field "$deb" Recommends)
    # libsqlite3-0 only for a binary that needs libsqlite3.so.0 (one not linked with
    # libsqlite3.a); libcurl, which dpkg-shlibdeps cannot see in a dlopen(), is recommended.
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/rightsize >"$scratch/deb-rightsize"
    needed=$(LC_ALL=C readelf -d "$scratch/deb-rightsize" | grep NEEDED)
    sqlite_ok=1
    if [[ "$needed" == *libsqlite3.so.0* ]] && [[ "$depends" != *libsqlite3-0* ]]; then
      sqlite_ok=0
    fi
    if [ "$package" = rightsize ] && [[ "$depends" == *libc6* ]] && [ "$sqlite_ok" -eq 1 ]; then
      pass "DEB: $(basename "$deb"): package $package, Depends: $depends"
    else
      fail "DEB: $(basename "$deb"): package \"$package\", Depends \"$depends\"" \
        "(expected rightsize, libc6$([ "$sqlite_ok" -eq 1 ] || echo ' and libsqlite3-0'))"
    fi
    if [[ "$recommends" == libcurl4* ]] && [[ "$depends" != *libcurl* ]]; then
      pass "DEB: Recommends: $recommends (libcurl, dlopen()ed by observe --prometheus)"
    else
      fail "DEB: Recommends \"$recommends\", Depends \"$depends\" (expected Recommends: libcurl4," \
        "and no libcurl in Depends)"
    fi
    check "DEB: $(basename "$deb").sha256 matches" sha256_ok "$(basename "$deb")"
    contents=$(dpkg-deb --contents "$deb")
    check "DEB: lists usr/bin/rightsize" grep -Eq ' \./usr/bin/rightsize$' <<<"$contents"
    check "DEB: lists usr/share/rightsize/gpus.json" \
      grep -Eq ' \./usr/share/rightsize/gpus\.json$' <<<"$contents"
    mkdir -p "$scratch/deb"
    if dpkg-deb -x "$deb" "$scratch/deb"; then
      installed_checks deb "$scratch/deb/usr"
    else
      fail "DEB: dpkg-deb -x $deb failed"
    fi
  else
    fail "DEB: cpack wrote no single rightsize-*.deb: $(cd "$scratch/out" && echo *)"
  fi
else
  fail "DEB: cpack -G DEB failed"
fi

if [ "$fails" -ne 0 ]; then
  echo "FAIL: $fails of $checks package checks failed"
  exit 1
fi
echo "PASS: all $checks package checks"
