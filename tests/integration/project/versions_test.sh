#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every program the build puts in bin/, and the ones it keeps elsewhere (tsar-translate), answers
# --version with one line, "<program> <version> (commit <12 hex digits>[-dirty] | unknown)",
# and exit status 0.
#   versions_test.sh BIN_DIR VERSION [PROGRAM...]
set -euo pipefail
bin="$1" version="$2"
shift 2
# Programs without options: tsar-demo takes a schedule name and runs at once (scripts/demo.sh);
# symmer-poll-loops runs its loops at once (callgrind's target); the vendored proxy
# applications (apps/mpi/proxy) are left as published.
skip=" tsar-demo symmer-poll-loops lulesh2.0 miniFE.x miniAMR.x "
checked=0
for program in "$bin"/* "$@"; do
  name="$(basename "$program")"
  [[ -x "$program" && ! -d "$program" && "$skip" != *" $name "* ]] || continue
  status=0
  out="$("$program" --version 2>&1)" || status=$?
  pattern="^$name ${version//./\\.} \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$"
  if ((status != 0)) || ! grep -Eq "$pattern" <<<"$out" || (($(wc -l <<<"$out") != 1)); then
    echo "FAIL: $name --version: exit $status, printed: $out"
    exit 1
  fi
  echo "$out"
  checked=$((checked + 1))
done
((checked > 0)) || { echo "FAIL: no program in $bin"; exit 1; }
