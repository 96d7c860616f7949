#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cmake/version.cmake's commit: HEAD's 12 digits in a checkout, "-dirty" after an edit,
# "unknown" in a tree without git (a release tarball) even when that tree lies inside some
# other checkout, and the packager's -DCOMMIT when given.
set -euo pipefail
script="$1/cmake/version.cmake"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
commit_of() {  # commit_of DIR [COMMIT]: what the build would report for DIR
  cmake -DSOURCE_DIR="$1" -DOUTPUT="$tmp/out.cpp" -DTEXT="$tmp/version.txt" -DVERSION=9.8.7 \
    -DCOMMIT="${2:-}" -P "$script"
  local commit
  commit="$(sed -n 's/.*return "\(.*\)";.*/\1/p' "$tmp/out.cpp")"
  [[ "$(cat "$tmp/version.txt")" == "9.8.7 (commit $commit)" ]] ||
    { echo "FAIL: version.txt says '$(cat "$tmp/version.txt")' for commit $commit" >&2; exit 1; }
  echo "$commit"
}
expect() {
  [[ "$2" == "$3" ]] || { echo "FAIL: $1: got '$2', expected '$3'"; exit 1; }
}

mkdir "$tmp/repo"
git -C "$tmp/repo" init -q
echo one >"$tmp/repo/file"
git -C "$tmp/repo" add file
git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -qm one
head="$(git -C "$tmp/repo" rev-parse --short=12 HEAD)"
expect "clean checkout" "$(commit_of "$tmp/repo")" "$head"
echo two >"$tmp/repo/file"
expect "edited checkout" "$(commit_of "$tmp/repo")" "$head-dirty"

mkdir -p "$tmp/repo/unpacked" "$tmp/tarball"
expect "tree inside another checkout" "$(commit_of "$tmp/repo/unpacked")" unknown
expect "tree without git" "$(commit_of "$tmp/tarball")" unknown
expect "given by the packager" "$(commit_of "$tmp/tarball" 0123456789ab)" 0123456789ab
echo "version: ok"
