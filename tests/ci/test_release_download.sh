#!/usr/bin/env bash
# tests/ci/test_release_download.sh
#
# The GitHub action (.github/actions/rightsize-check/action.yml) and the GitLab template
# (ci/gitlab/rightsize-check.gitlab-ci.yml) download a pinned release; issue 49 found both
# defaulting to a placeholder repository. Their install scripts are taken from the files as CI
# would run them and run here with curl, apt-get and sudo replaced by stubs that print what they
# were asked and fail, so no network is used. Checked:
#   1. the action with no `repository` input downloads from the repository it was loaded from
#      (the runner's _actions/<owner>/<name>/<ref>/ path), a local action from this repository,
#      and the input wins when given; a repository that is not owner/name is exit 2;
#   2. the GitLab template without RIGHTSIZE_REPOSITORY is exit 2 naming it, and downloads from
#      the repository it names.
# One PASS or FAIL line per check; exit 1 if any failed, 77 (a CTest skip) without PyYAML.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
py=/usr/bin/python3
if ! "$py" -c 'import yaml' 2>/dev/null; then
  echo "SKIP: no python3-yaml (apt-get install python3-yaml)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { fails=$((fails + 1)); echo "FAIL: $*"; }

mkdir -p "$tmp/bin"
for tool in curl apt-get sudo; do
  printf '#!/bin/sh\necho "stub %s $*" >&2\nexit 22\n' "$tool" >"$tmp/bin/$tool"
  chmod +x "$tmp/bin/$tool"
done

"$py" - "$tmp" <<'PYEOF'
import sys, yaml
out = sys.argv[1]
action = yaml.safe_load(open(".github/actions/rightsize-check/action.yml"))
step = next(s for s in action["runs"]["steps"] if s.get("id") == "install")
open(out + "/action.sh", "w").write(step["run"])
open(out + "/action-default", "w").write(action["inputs"]["repository"].get("default", ""))
gitlab = yaml.safe_load(open("ci/gitlab/rightsize-check.gitlab-ci.yml"))
open(out + "/gitlab.sh", "w").write(gitlab[".rightsize-check"]["script"][0])
PYEOF

arch=$(uname -m)
# action ACTION_PATH [REPOSITORY_INPUT] -> rc, err (stdout and stderr); without the input, the
# input's default in action.yml, as the runner passes it
action() {
  local input
  input=${2-$(cat "$tmp/action-default")}
  err=$(env -i PATH="$tmp/bin:/usr/bin:/bin" RUNNER_TEMP="$tmp" GITHUB_OUTPUT="$tmp/output" \
    GITHUB_REPOSITORY=team/app GITHUB_ACTION_PATH="$1" RIGHTSIZE_REPOSITORY="$input" \
    RIGHTSIZE_VERSION=0.1.0 RIGHTSIZE_PACKAGE=tar.gz RIGHTSIZE_SHA256="" RIGHTSIZE_URL="" \
    bash "$tmp/action.sh" 2>&1)
  rc=$?
}
release="releases/download/v0.1.0/rightsize-0.1.0-Linux-$arch.tar.gz"

action /home/runner/work/_actions/acme/rightsize/v0.1.0/.github/actions/rightsize-check
if [[ "$err" == *"downloading https://github.com/acme/rightsize/$release"* ]]; then
  pass "a remote action downloads from its own repository"
else fail "remote action: $err"; fi

action /home/runner/work/app/app/.github/actions/rightsize-check
if [[ "$err" == *"downloading https://github.com/team/app/$release"* ]]; then
  pass "a local action downloads from this repository"
else fail "local action: $err"; fi

action /home/runner/work/_actions/acme/rightsize/v0.1.0/.github/actions/rightsize-check mirror/rs
if [[ "$err" == *"downloading https://github.com/mirror/rs/$release"* ]]; then
  pass "the repository input wins"
else fail "repository input: $err"; fi

action /x "not a repository"
if [ "$rc" -eq 2 ] && [[ "$err" == *"repository must be owner/name"* ]]; then
  pass "a repository that is not owner/name is exit 2"
else fail "bad repository: rc=$rc $err"; fi

# gitlab REPOSITORY -> rc, err
gitlab() {
  err=$(env -i PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp" RIGHTSIZE_VERSION=0.1.0 \
    RIGHTSIZE_REPOSITORY="$1" RIGHTSIZE_URL="" RIGHTSIZE_SHA256="" sh "$tmp/gitlab.sh" 2>&1)
  rc=$?
}
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/apt-get" # the template installs curl and jq first
gitlab ""
if [ "$rc" -eq 2 ] && [[ "$err" == *"RIGHTSIZE_REPOSITORY must be owner/name"* ]]; then
  pass "the GitLab template without RIGHTSIZE_REPOSITORY is exit 2"
else fail "gitlab without repository: rc=$rc $err"; fi
gitlab acme/rightsize
if [[ "$err" == *"downloading https://github.com/acme/rightsize/$release"* ]]; then
  pass "the GitLab template downloads from RIGHTSIZE_REPOSITORY"
else fail "gitlab with repository: $err"; fi

[ "$fails" -eq 0 ] || exit 1
