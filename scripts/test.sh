#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what is missing, builds (build/), and runs the whole test suite with ctest.
# Extra arguments go to ctest, e.g. `scripts/test.sh -L unit`.
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
