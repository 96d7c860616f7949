#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Interleaved comparison on a GPU node, from a bundle: this bundle's TSAR ("new": bin/, lib/)
# against a baseline ("base"), alternating new, base, base, new, new, base... so the node's drift
# and the place in a pair fall on both alike (the second process of each pair ran some suite
# kernels 16-38% faster, every runtime alike: docs/results/tsar/per-core-cuts-suite/). The
# baseline is bundle/base/ (scripts/bundle.sh --base-build: another commit's benchmarks and
# libtsar) or bundle/lib-base/ (--base-lib: its libtsar alone, swapped under
# this bundle's programs through LD_LIBRARY_PATH; only where the two commits' tsar.h agree).
# Each run of tsar-bench-gpu (default schedule) prints one JSON line here, wrapped as
#   {"run": R, "lib": "new"|"base", "status": S, "seconds": T, "bench": {...its line...}}
# then one tsar-bench-overhead line per side. A base/ build runs its own kernels (older ones
# lack bicgstab, residual, wave): compare the kernels both ran. Budget: one device call of at
# most 9 minutes (each bench run is cut at RUN_TIMEOUT seconds).
#
# Usage (in the bundle folder):  scripts/tsar_gpu_compare.sh [tsar-bench-gpu options...]
#   RUNS=3 (runs per side)  RUN_TIMEOUT=80  GPU_TESTS=1 (first ctest -L gpu, new build)
#   TRIALS=DIR: each run's participation-trial decisions, the trial lines of its TSAR_TRACE, in
#   DIR/trials-<lib>-<run>.jsonl (the pass lines are dropped: a run's are megabytes)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${RUNS:-3}
run_timeout=${RUN_TIMEOUT:-80}
if [[ -d base/bin ]]; then
  base_bin=$PWD/base/bin base_libs=$PWD/base/lib:$PWD/lib
elif [[ -d lib-base ]]; then
  base_bin=$PWD/bin base_libs=$PWD/lib-base:$PWD/lib
else
  echo "tsar_gpu_compare: no base/ or lib-base/ in $PWD (scripts/bundle.sh --base-build)" >&2
  exit 2
fi
# side PROGRAM ARGS...: the command line of one side
side() {
  local who=$1 program=$2
  shift 2
  if [[ $who == new ]]; then
    LD_LIBRARY_PATH=$PWD/lib timeout "$run_timeout" "$PWD/bin/$program" "$@"
  else
    LD_LIBRARY_PATH=$base_libs timeout "$run_timeout" "$base_bin/$program" "$@"
  fi
}

if [[ ${GPU_TESTS:-1} == 1 ]]; then
  ctest --test-dir ctest -L gpu --output-on-failure 2>&1 | tail -n 4 | sed 's/^/# ctest: /'
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/# gpu: /'
echo "# cores: $(nproc); node: $(uname -n); started $(date -u +%FT%TZ)"
for ((r = 1; r <= runs; ++r)); do
  order="new base"
  ((r % 2 == 0)) && order="base new"
  for who in $order; do
    start=$SECONDS
    [[ -z ${TRIALS:-} ]] || export TSAR_TRACE=$TRIALS/trace.jsonl
    line=$(side $who tsar-bench-gpu --schedules adaptive "$@" 2>/dev/null | tail -n 1)
    status=$?
    if [[ -n ${TRIALS:-} ]]; then
      grep '"trial"' "$TSAR_TRACE" >"$TRIALS/trials-$who-$r.jsonl" 2>/dev/null
      rm -f "$TSAR_TRACE"
    fi
    [[ $line == \{* ]] || line='{}'
    echo "{\"run\": $r, \"lib\": \"$who\", \"status\": $status, \"seconds\": $((SECONDS - start)), \"bench\": $line}"
  done
done
unset TSAR_TRACE
for who in new base; do
  line=$(side $who tsar-bench-overhead --passes 2000 2>/dev/null | tail -n 1)
  [[ $line == \{* ]] || line='{}'
  echo "{\"lib\": \"$who\", \"overhead\": $line}"
done
