#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs the symptom benchmarks, symmer-run, the PMPI shim and what they need (MPICH with its
# hydra mpiexec and UCX modules, hwloc, libnuma, PAPI) into a folder that runs
# `bench_symmer.py` on a node with none of them installed:
#
#   apps/mpi/symptoms/bundle_symmer.sh [BUILD_DIR [OUT_DIR]]     (defaults: build, bundle-symmer)
#   cd OUT_DIR && ./bench.sh --ranks 8                           (on the other node)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
build=${1:-build}
out=${2:-bundle-symmer}
for tool in patchelf ldd mpiexec.mpich; do
  command -v "$tool" >/dev/null || { echo "bundle: '$tool' is missing" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/ucx"
for p in symmer-idleness symmer-outofsync symmer-locality symmer-noise symmer-run; do
  cp "$build/bin/$p" "$out/bin/"
done
hydra=$(readlink -f "$(command -v mpiexec.mpich)")
cp "$hydra" "$out/bin/mpiexec.mpich"
cp "$(dirname "$hydra")/hydra_pmi_proxy" "$out/bin/"
cp -L "$build"/lib/libsymmer-pmpi.so "$build"/lib/libsymmer.so.0 "$build"/lib/libsymmer-topology.so.0 \
  "$out/lib/"
ucx=$(dirname "$(ldd "$build/bin/symmer-idleness" | awk '$1 == "libucp.so.0" {print $3}')")/ucx
for m in "$ucx"/*.so.0; do cp -L "$m" "$out/lib/ucx/"; done
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s)'
copy_deps() {
  ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r so path; do
    [[ $so =~ $skip || -e $out/lib/$so ]] || cp -L "$path" "$out/lib/$so"
  done
}
for f in "$out"/bin/* "$out"/lib/*.so* "$out"/lib/ucx/*; do copy_deps "$f"; done
for f in "$out"/lib/*.so*; do copy_deps "$f"; done
chmod -R u+w "$out"
strip --strip-debug "$out"/bin/* "$out"/lib/*.so* "$out"/lib/ucx/* 2>/dev/null || true
for f in "$out"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f" 2>/dev/null || true; done
for f in "$out"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$out"/lib/ucx/*; do patchelf --set-rpath '$ORIGIN/..' "$f"; done
cp apps/mpi/symptoms/bench_symmer.py "$out/"
cat >"$out/bench.sh" <<'SH'
#!/usr/bin/env bash
# bench_symmer.py from this bundle: its own mpiexec, UCX modules and libraries.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$here/bin:$PATH" UCX_MODULE_DIR="$here/lib/ucx"
exec python3 "$here/bench_symmer.py" --bin "$here/bin" --mpiexec "$here/bin/mpiexec.mpich" "$@"
SH
chmod +x "$out/bench.sh"
echo "bundle: $out ($(du -sh "$out" | cut -f1)), $(ls "$out/lib" | wc -l) libraries"
