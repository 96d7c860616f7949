#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds libtsar.so.0 of another commit, configured as this checkout's build (CUDA and
# offloading), for scripts/bundle.sh --base-lib: the baseline of an interleaved comparison on a
# GPU node (scripts/device/tsar_gpu_compare.sh). Only the library is built (ccache makes it
# cheap when that commit was built before).
#
# Usage: scripts/device/build_base_lib.sh COMMIT [DIR]   (DIR default: build-base)
# Prints the library's path; e.g.
#   scripts/bundle.sh --base-lib "$(scripts/device/build_base_lib.sh main~3)"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
commit=${1:?usage: build_base_lib.sh COMMIT [DIR]}
dir=${2:-build-base}
src=$dir/src
rm -rf "$src"
mkdir -p "$dir"
git worktree prune
git worktree add --detach "$src" "$commit" >&2
cmake -S "$src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTSAR_CUDA=AUTO -DTSAR_OFFLOAD=auto -DSYMMER_BUILD_TESTS=OFF >&2
cmake --build "$dir/build" --target tsar >&2
git worktree remove --force "$src" >&2
readlink -f "$dir/build/lib/libtsar.so.0"
