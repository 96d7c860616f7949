#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/check_spdx.py on a small tree without git: it names the files that lack the line,
# leaves data files alone, and --fix puts the line first (after a shebang).
set -euo pipefail
check="$1/scripts/check_spdx.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/build"
printf '// SPDX-License-Identifier: BSD-3-Clause\nint a;\n' >"$tmp/src/ok.cpp"
printf 'int b;\n' >"$tmp/src/bad.hpp"
printf '#!/bin/sh\necho hi\n' >"$tmp/src/tool"
printf 'cpu0 1 2 3\n' >"$tmp/src/stat"          # a fixture: no source name, no shebang
printf 'int c;\n' >"$tmp/build/generated.cpp"   # build folders are not the project's

if out="$(python3 "$check" "$tmp" 2>&1)"; then
  echo "FAIL: files without the line passed: $out"; exit 1
fi
for f in src/bad.hpp src/tool; do
  grep -qx "  $f" <<<"$out" || { echo "FAIL: $f not named in: $out"; exit 1; }
done
for f in src/ok.cpp src/stat build/generated.cpp; do
  if grep -q "$f" <<<"$out"; then echo "FAIL: $f named in: $out"; exit 1; fi
done

python3 "$check" --fix "$tmp" >/dev/null
python3 "$check" "$tmp"
[[ "$(head -1 "$tmp/src/bad.hpp")" == "// SPDX-License-Identifier: BSD-3-Clause" ]] ||
  { echo "FAIL: bad.hpp not fixed"; exit 1; }
[[ "$(sed -n 2p "$tmp/src/tool")" == "# SPDX-License-Identifier: BSD-3-Clause" ]] ||
  { echo "FAIL: the line does not follow the shebang"; exit 1; }
echo "check_spdx: ok"
