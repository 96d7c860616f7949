#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what is missing, builds, and runs the main job on an embedded default: the node
# model symmer and TSAR work from with each core's effective capability right now, then the
# parts' demos (each section below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release

echo
echo "== The node model symmer and TSAR work from (build/bin/symmerctl topology --load)"
build/bin/symmerctl topology --load --window 1s
echo
echo "== A 2-socket, 4-NUMA-node, 4-GPU node from its hwloc export (--xml)"
build/bin/symmerctl topology --xml tests/fixtures/topologies/2p4n4gpu.xml | grep -v '^  core '

echo
echo "== TSAR: one loop split across every device found, and the split it learns (build/bin/tsar-demo)"
build/bin/tsar-demo

echo
echo "== symmer: the idleness benchmark with core 0 half taken by noise (build/bin/symmer-noise),"
echo "   plain, then under symmer-run --report: the busy rank is moved off the noisy core"
if (($(nproc) >= 2)); then
  mpiexec=$(command -v mpiexec.mpich || echo mpiexec)
  idleness=(build/bin/symmer-idleness --iterations 150 --work-ms 5 --ratio 4)
  build/bin/symmer-noise --cpus 0 --share 0.5 >/dev/null 2>&1 &
  noise=$!
  trap 'kill $noise 2>/dev/null || true' EXIT
  sleep 0.3
  echo "-- plain:"
  "$mpiexec" -n 2 -bind-to user:0,1 "${idleness[@]}" | grep -v '^{'
  echo "-- under symmer-run --report:"
  build/bin/symmer-run --report "$mpiexec" -n 2 -bind-to user:0,1 "${idleness[@]}" 2>&1 |
    grep -v '^{'
  kill $noise 2>/dev/null || true
else
  echo "(needs 2 cores; this machine has $(nproc))"
fi
echo
echo "(symmer runs embedded in each job by default; to run the same jobs under the node daemon instead:"
echo " build/bin/symmerd --socket /tmp/symmerd.sock & then start them as usual and watch with"
echo " build/bin/symmerctl watch --socket /tmp/symmerd.sock -- README.md, section symmerd)"
