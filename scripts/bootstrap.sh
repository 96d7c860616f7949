#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages the build, the tests and the demo need; nothing else.
# Idempotent: packages already installed are left alone, and nothing runs when none is missing.
# As a normal user it installs nothing: it names the missing packages and the command to run.
set -euo pipefail

packages=(
  # toolchain
  g++ gfortran cmake ninja-build pkg-config python3
  # ccache: the packages test builds the tree a second time under the package preset
  ccache
  # MPI: MPICH first; Open MPI for the second build of the PMPI shim
  mpich libmpich-dev openmpi-bin libopenmpi-dev
  # node model (hwloc: lstopo regenerates test fixtures), memory placement, counters
  hwloc libhwloc-dev libnuma-dev numactl libpapi-dev papi-tools
  # daemon, parsing, logging
  libboost-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libspdlog-dev libfmt-dev
  # tests and micro-benchmarks; man-db renders the manual pages in their test
  libgtest-dev libgmock-dev libbenchmark-dev man-db
  # TSAR: GCC OpenMP offload to NVIDIA, and the peer runtimes of the benchmark suite
  gcc-12-offload-nvptx libtbb-dev libstarpu-dev
  # scripts/bundle.sh: relocatable builds for GPU nodes without these packages
  patchelf
  # scripts/bench.sh apps: real MPI applications (Open MPI's LAMMPS with its OMP package and
  # HPCC, NWChem's MPICH build) beside the vendored proxy applications
  lammps hpcc nwchem-mpich
  # pictures of what the runtime did (scripts/plot.py)
  python3-matplotlib
  # tsar-translate: libclang's Python bindings, clang's own headers and omp.h for its parse
  python3-clang-14 libclang-common-14-dev libomp-14-dev
  # the fuzz preset (tests/fuzz): clang and its libFuzzer and sanitizer runtimes
  clang-14 libclang-rt-14-dev
)

if ! command -v dpkg-query >/dev/null; then
  echo "bootstrap: not a Debian system; make sure the equivalents of these are installed:" \
       "${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "bootstrap: ${#missing[@]} Debian package(s) missing: ${missing[*]}." \
       "Install them as root, then run this again:" \
       "sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "bootstrap: installing ${#missing[@]} Debian package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "bootstrap: done"
