#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/check_layering.py on a small tree without git: it reads the rules from the tree's
# docs/architecture.md and names each forbidden include, banned header and link, and nothing
# that the rules allow.
set -euo pipefail
check="$1/scripts/check_layering.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs" "$tmp/lib/base" "$tmp/lib/top" "$tmp/lib/include/lib/base" "$tmp/app"
cat >"$tmp/docs/architecture.md" <<'RULES'
```layering
lib/base   may-use
lib/base   owns lib/base/
lib/top    may-use lib/base
lib/top    owns lib/top/
app        may-use *
lib/*      never-includes mpi.h
lib/*      never-links MPI::*
```
RULES
echo '#include "lib/base/b.hpp"' >"$tmp/lib/top/ok.cpp"         # allowed
echo '#include "lib/top/t.hpp"' >"$tmp/lib/base/up.cpp"         # base may use nothing
echo '#include <mpi.h>' >"$tmp/lib/base/mpi.cpp"                 # banned header
echo '#include "../top/beside.hpp"' >"$tmp/lib/base/rel.cpp"     # found beside: lib/top
touch "$tmp/lib/top/beside.hpp"
echo '#include "lib/top/t.hpp"' >"$tmp/lib/include/lib/base/h.hpp"  # a base header using top
echo '#include "lib/top/t.hpp"' >"$tmp/app/main.cpp"            # apps may use anything
cat >"$tmp/targets.json" <<JSON
[{"name": "base", "dir": "$tmp/lib", "sources": ["base/up.cpp"], "links": ["top", "MPI::MPI_C"]},
 {"name": "top", "dir": "$tmp/lib", "sources": ["top/ok.cpp"], "links": ["\$<LINK_ONLY:NS::base>"]},
 {"name": "app", "dir": "$tmp/app", "sources": ["main.cpp"], "links": ["top", "base"]}]
JSON

if out="$(python3 "$check" --targets "$tmp/targets.json" "$tmp" 2>&1)"; then
  echo "FAIL: violations passed: $out"; exit 1
fi
expect() { grep -qF "$1" <<<"$out" || { echo "FAIL: '$1' not reported in: $out"; exit 1; }; }
expect "lib/base/up.cpp: lib/base includes lib/top/t.hpp of lib/top"
expect "lib/base/mpi.cpp: lib/base includes mpi.h, which it never may"
expect "lib/base/rel.cpp: lib/base includes ../top/beside.hpp of lib/top"
expect "lib/include/lib/base/h.hpp: lib/base includes lib/top/t.hpp of lib/top"
expect "target base: lib/base links top (lib/top)"
expect "target base: lib/base links MPI::MPI_C, which it never may"
expect "6 violation(s)"
if grep -q -e "ok.cpp" -e "app/main.cpp" -e "target top" -e "target app" <<<"$out"; then
  echo "FAIL: an allowed use was reported: $out"; exit 1
fi
echo "check_layering: ok"
