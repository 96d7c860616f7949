#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what is missing, builds (build/), and runs the whole test suite with ctest; then,
# where clang-14 is installed, builds the libFuzzer targets (the fuzz preset, build-fuzz/) and
# runs each for 30 s. Extra arguments go to ctest, e.g. `scripts/test.sh -L unit` (the fuzz
# targets then do not run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh
# The packages test builds the tree again beside build/ (build-package/): through ccache, with
# paths relative to the checkout and the build folder left out of the hash, that second build
# reuses the first one's objects.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release "$@"
if (($# == 0)) && command -v clang++-14 >/dev/null; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
  ctest --preset fuzz
fi
