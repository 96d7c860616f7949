#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What one device call on a GPU node (any number of GPUs) brings back, from a bundle
# (scripts/bundle.sh), into $OUT -- at most 8 files, what the device tool returns:
#
#   tests.txt      the node (GPUs, their links, cores, the node model TSAR builds), ctest -L gpu
#                  (CUDA runtime mapping included), and each translated kernel on the GPUs
#   trace.jsonl    TSAR_TRACE of Jacobi on CUDA beside the cores: per pass and region each
#                  device's rows, busy time, copies and peer bytes (TRACE=0 skips it)
#   bench.jsonl    tsar-bench-gpu --schedules adaptive, RUNS times (default 3), one line each:
#                  {"run": R, "seconds": T, "bench": {...its final line...}}
#   translate.txt  tsar-bench-translate --scale large --reps 9, TRANSLATE_RUNS times (default 3)
#   lstopo.xml     the node as hwloc sees it (lstopo-no-graphics --of xml: a test fixture)
#
# Usage (in the bundle folder):  OUT=DIR scripts/gpu_node.sh
#   RUNS=3  RUN_TIMEOUT=150  TRACE=1  TRANSLATE_RUNS=3
# On one GPU the whole takes about 6 minutes; on two, runs take about a minute each.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${OUT:?OUT names the folder the results go to}"
export LD_LIBRARY_PATH=$PWD/lib
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader |
    sed 's/^/# gpu: /'
  nvidia-smi topo -m 2>/dev/null | sed 's/^/# topo: /'
  echo "# cores: $(nproc); NUMA nodes: $(ls -d /sys/devices/system/node/node[0-9]* | wc -l);" \
       "started $(date -u +%FT%TZ); $(bin/tsar-bench-gpu --version)"
  tests/node_model_gpu_test --gtest_filter='CudaOrdinals.FollowPciOrder' 2>&1 | sed 's/^/# model: /'
  ctest --test-dir ctest -L gpu --output-on-failure 2>&1 | tail -n 40
  for k in gemm 2mm atax bicg mvt gesummv jacobi heat stream kmeans corr; do
    timeout 60 tests/tsar-translate-kernels --gpu "$k" > /tmp/gpu_node_tk.txt 2>&1
    rc=$?
    echo "translated $k rc=$rc"
    [[ $rc == 0 ]] || tail -c 800 /tmp/gpu_node_tk.txt
  done
} > "$OUT/tests.txt" 2>&1
timeout 60 bin/lstopo-no-graphics --of xml > "$OUT/lstopo.xml" 2>> "$OUT/tests.txt"
echo "tests done at $SECONDS s"
if [[ ${TRACE:-1} == 1 ]]; then
  TSAR_TRACE=$OUT/trace.jsonl timeout 120 bin/tsar-bench-gpu --kernels jacobi --backend cuda \
    --schedules adaptive > /dev/null 2>&1
fi
for ((r = 1; r <= ${RUNS:-3}; ++r)); do
  start=$SECONDS
  line=$(timeout "${RUN_TIMEOUT:-150}" bin/tsar-bench-gpu --schedules adaptive 2>/dev/null | tail -n 1)
  [[ $line == \{* ]] || line='{}'
  echo "{\"run\": $r, \"seconds\": $((SECONDS - start)), \"bench\": $line}" >> "$OUT/bench.jsonl"
  echo "bench run $r done at $SECONDS s"
done
for ((r = 1; r <= ${TRANSLATE_RUNS:-3}; ++r)); do
  start=$SECONDS
  timeout 120 bin/tsar-bench-translate --scale large --reps 9 >> "$OUT/translate.txt" 2>&1
  echo "# run $r rc=$? seconds=$((SECONDS - start))" >> "$OUT/translate.txt"
done
echo "all done at $SECONDS s"
