#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds another commit's libtsar and benchmarks (tsar-bench-gpu, tsar-bench-overhead),
# configured as this checkout's build (CUDA and offloading): the baseline of an interleaved
# comparison on a GPU node (scripts/device/tsar_gpu_compare.sh), packed by
#   scripts/bundle.sh --base-build DIR/build
# (a base with its own programs: the C++ API's inline code may call what an older libtsar
# lacks), or, where the two commits' tsar.h agree, by
#   scripts/bundle.sh --base-lib DIR/build/lib/libtsar.so.0
# (that library under this bundle's programs). ccache makes it cheap when the commit was built
# before.
#
# Usage: scripts/device/build_base.sh COMMIT [DIR]   (DIR default: build-base); prints
# DIR/build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
commit=${1:?usage: build_base.sh COMMIT [DIR]}
dir=${2:-build-base}
src=$dir/src
git worktree remove --force "$src" 2>/dev/null || true  # a run that stopped half-way
rm -rf "$src"
mkdir -p "$dir"
git worktree add --detach "$src" "$commit" >&2
cmake -S "$src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTSAR_CUDA=AUTO -DTSAR_OFFLOAD=auto -DSYMMER_BUILD_TESTS=OFF >&2
cmake --build "$dir/build" --target tsar tsar-bench-gpu tsar-bench-overhead >&2
git worktree remove --force "$src" >&2
readlink -f "$dir/build"
