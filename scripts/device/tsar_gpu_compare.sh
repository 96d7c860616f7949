#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Interleaved comparison on a GPU node, from a bundle (scripts/bundle.sh --base-lib ...): this
# bundle's libtsar ("new", bundle/lib) against a baseline libtsar ("base", bundle/lib-base)
# swapped under the same programs through LD_LIBRARY_PATH, alternating new, base, new, base...
# so the node's drift falls on both alike. Each run of tsar-bench-gpu (default schedule) prints
# one JSON line here, wrapped as {"run": R, "lib": "new"|"base", "bench": {...its line...}};
# then one tsar-bench-overhead line per library. Budget: one device call of at most 9 minutes
# (each bench run is cut at RUN_TIMEOUT seconds).
#
# Usage (in the bundle folder):  scripts/tsar_gpu_compare.sh [tsar-bench-gpu options...]
#   RUNS=3 (runs per library)  RUN_TIMEOUT=80  GPU_TESTS=1 (first ctest -L gpu, new library)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${RUNS:-3}
run_timeout=${RUN_TIMEOUT:-80}
[[ -d lib-base ]] || { echo "tsar_gpu_compare: no lib-base/ in $PWD (scripts/bundle.sh --base-lib)" >&2; exit 2; }
libs() { [[ $1 == new ]] && echo "$PWD/lib" || echo "$PWD/lib-base:$PWD/lib"; }

if [[ ${GPU_TESTS:-1} == 1 ]]; then
  ctest --test-dir ctest -L gpu --output-on-failure 2>&1 | tail -n 4 | sed 's/^/# ctest: /'
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/# gpu: /'
echo "# cores: $(nproc); node: $(uname -n); started $(date -u +%FT%TZ)"
for ((r = 1; r <= runs; ++r)); do
  for lib in new base; do
    start=$SECONDS
    line=$(LD_LIBRARY_PATH=$(libs $lib) timeout "$run_timeout" bin/tsar-bench-gpu --schedules adaptive "$@" 2>/dev/null | tail -n 1)
    status=$?
    [[ $line == \{* ]] || line='{}'
    echo "{\"run\": $r, \"lib\": \"$lib\", \"status\": $status, \"seconds\": $((SECONDS - start)), \"bench\": $line}"
  done
done
for lib in new base; do
  line=$(LD_LIBRARY_PATH=$(libs $lib) timeout 60 bin/tsar-bench-overhead --passes 2000 2>/dev/null | tail -n 1)
  [[ $line == \{* ]] || line='{}'
  echo "{\"lib\": \"$lib\", \"overhead\": $line}"
done
