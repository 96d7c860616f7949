#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On a node of several GPUs, from a bundle (scripts/bundle.sh): the gpu tests, the node model
# TSAR builds (each GPU's NUMA node, near cores and control core, from the node-model test),
# then tsar-bench-gpu under the default schedule RUNS times on every GPU, and RUNS times on
# each subset of GPUS_SUBSETS (CUDA_VISIBLE_DEVICES lists separated by spaces; default "0,1"),
# interleaved. One JSON line per run:
#   {"run": R, "gpus": "all"|"0,1", "status": S, "seconds": T, "bench": {...its line...}}
# Usage (in the bundle folder):  scripts/multi_gpu.sh [tsar-bench-gpu options...]
#   RUNS=3  RUN_TIMEOUT=400  GPU_TESTS=1  GPUS_SUBSETS="0,1"
# On 4 GPUs one tsar-bench-gpu run of every kernel takes more than 140 s (each GPU is also
# timed alone; docs/results/tsar/bench-gpu/2026-11-26-h200x4-0ec96d3.txt): with a 10-minute
# device call, run one configuration per call (GPUS_SUBSETS="" for all GPUs only, RUNS=1) or
# fewer kernels (--kernels).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${RUNS:-3}
run_timeout=${RUN_TIMEOUT:-400}
subsets=${GPUS_SUBSETS-0,1}
if [[ ${GPU_TESTS:-1} == 1 ]]; then
  ctest --test-dir ctest -L gpu --output-on-failure 2>&1 | tail -n 6 | sed 's/^/# ctest: /'
fi
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader | sed 's/^/# gpu: /'
nvidia-smi topo -m 2>/dev/null | sed 's/^/# topo: /'
echo "# cores: $(nproc); NUMA nodes: $(ls -d /sys/devices/system/node/node[0-9]* | wc -l);" \
     "node: $(uname -n); started $(date -u +%FT%TZ)"
tests/$(ls tests | grep -m1 node_model) --gtest_filter='CudaOrdinals.FollowPciOrder' 2>&1 |
  sed 's/^/# model: /'
for ((r = 1; r <= runs; ++r)); do
  for gpus in all $subsets; do
    start=$SECONDS
    if [[ $gpus == all ]]; then
      line=$(LD_LIBRARY_PATH=$PWD/lib timeout "$run_timeout" bin/tsar-bench-gpu "$@" 2>/dev/null | tail -n 1)
    else
      line=$(CUDA_VISIBLE_DEVICES=$gpus LD_LIBRARY_PATH=$PWD/lib timeout "$run_timeout" \
             bin/tsar-bench-gpu "$@" 2>/dev/null | tail -n 1)
    fi
    status=$?
    [[ $line == \{* ]] || line='{}'
    echo "{\"run\": $r, \"gpus\": \"$gpus\", \"status\": $status, \"seconds\": $((SECONDS - start)), \"bench\": $line}"
  done
done
