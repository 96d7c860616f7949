#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs the symptom benchmarks, symmer-run, the PMPI shims, symmerctl and what they need (MPICH
# with its hydra mpiexec and UCX modules, hwloc, libnuma, PAPI) into a folder that runs
# `bench_symmer.py` on a node with none of them installed; and the real-application harness
# (apps/mpi/bench_apps.py) with the vendored proxy applications and, when this node has them,
# the Debian applications (NWChem's MPICH build with its basis library; LAMMPS and HPCC with
# the Open MPI runtime, relocated through OPAL_PREFIX and PMIX_INSTALL_PREFIX):
#
#   apps/mpi/symptoms/bundle_symmer.sh [--proxy-only] [BUILD_DIR [OUT_DIR]]
#                                        (defaults: build, bundle-symmer; --proxy-only leaves the
#                                        Debian applications out: NWChem alone is ~95 MB)
#   cd OUT_DIR && ./bench.sh --ranks 8                           (on the other node)
#   cd OUT_DIR && ./apps.sh --ranks 8                            (real applications)
#   OUT=DIR OUT_DIR/node.sh                         (one device call: applications, overhead)
#   cd OUT_DIR && RUNS=3 SHIMS=old ./overhead.sh > $OUT/ovh.jsonl   (the shim against another)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
debian_apps=1
if [[ ${1:-} == --proxy-only ]]; then
  debian_apps=0
  shift
fi
build=${1:-build}
out=${2:-bundle-symmer}
for tool in patchelf ldd mpiexec.mpich; do
  command -v "$tool" >/dev/null || { echo "bundle: '$tool' is missing" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/ucx"
for p in symmer-idleness symmer-outofsync symmer-locality symmer-noise symmer-run symmerctl \
         symmer-bench-overhead lulesh2.0 miniFE.x miniAMR.x; do
  cp "$build/bin/$p" "$out/bin/"
done
hydra=$(readlink -f "$(command -v mpiexec.mpich)")
cp "$hydra" "$out/bin/mpiexec.mpich"
cp "$(dirname "$hydra")/hydra_pmi_proxy" "$out/bin/"
cp -L "$build"/lib/libsymmer-pmpi.so "$build"/lib/libsymmer.so.0 "$build"/lib/libsymmer-topology.so.0 \
  "$out/lib/"
[[ -e $build/lib/libsymmer-pmpi-ompi.so ]] && cp -L "$build/lib/libsymmer-pmpi-ompi.so" "$out/lib/"
ucx=$(dirname "$(ldd "$build/bin/symmer-idleness" | awk '$1 == "libucp.so.0" {print $3}')")/ucx
for m in "$ucx"/*.so.0; do cp -L "$m" "$out/lib/ucx/"; done
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s)'
copy_deps() {
  ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r so path; do
    [[ $so =~ $skip || -e $out/lib/$so ]] || cp -L "$path" "$out/lib/$so"
  done
}
# Debian's applications, when installed here.
if ((debian_apps)) && [[ -x /usr/bin/nwchem.mpich ]]; then
  cp /usr/bin/nwchem.mpich "$out/bin/nwchem"
  mkdir -p "$out/share/nwchem"
  cp -rL /usr/share/nwchem/libraries "$out/share/nwchem/"
fi
ompi_elves=()
if ((debian_apps)) && [[ -x /usr/bin/lmp || -x /usr/bin/hpcc ]] && command -v ompi_info >/dev/null; then
  for p in lmp hpcc; do [[ -x /usr/bin/$p ]] && cp /usr/bin/$p "$out/bin/"; done
  # Open MPI keeps its layout under OPAL_PREFIX: libraries and components, helpers, help texts.
  info() { ompi_info --path "$1" --parsable | sed 's/^[^:]*:[^:]*://'; }
  prefix=$(info prefix)
  libdir=$(info libdir)
  pkglibdir=$(info pkglibdir)
  mkdir -p "$out/ompi/${libdir#"$prefix"/}" "$out/ompi/bin" "$out/ompi/share"
  cp -L "$libdir"/*.so.* "$out/ompi/${libdir#"$prefix"/}/" 2>/dev/null || true
  cp -rL "$pkglibdir" "$out/ompi/${pkglibdir#"$prefix"/}"
  for p in orterun orted; do cp -L "$(command -v $p)" "$out/ompi/bin/"; done
  cp -rL "$(info pkgdatadir)" "$out/ompi/share/"
  pmix=$(dirname "$(dirname "$(readlink -f "$(ldd "$libdir/libopen-pal.so.40" |
         awk '$1 ~ /^libpmix/ {print $3}')")")")
  if [[ -d $pmix/lib/pmix ]]; then
    mkdir -p "$out/pmix2/lib"
    cp -L "$pmix"/lib/libpmix.so.2 "$out/pmix2/lib/"
    cp -rL "$pmix/lib/pmix" "$out/pmix2/lib/"
  fi
  mapfile -t ompi_elves < <(find "$out/ompi" "$out/pmix2" -type f \( -name '*.so*' -o -perm -u+x \) \
                            2>/dev/null)
fi
for f in "$out"/bin/* "$out"/lib/*.so* "$out"/lib/ucx/* "${ompi_elves[@]}"; do copy_deps "$f"; done
for f in "$out"/lib/*.so*; do copy_deps "$f"; done
chmod -R u+w "$out"
strip --strip-debug "$out"/bin/* "$out"/lib/*.so* "$out"/lib/ucx/* 2>/dev/null || true
for f in "$out"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f" 2>/dev/null || true; done
for f in "$out"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$out"/lib/ucx/*; do patchelf --set-rpath '$ORIGIN/..' "$f"; done
cp apps/mpi/symptoms/bench_symmer.py apps/mpi/bench_apps.py "$out/"
cat >"$out/bench.sh" <<'SH'
#!/usr/bin/env bash
# bench_symmer.py from this bundle: its own mpiexec, UCX modules and libraries.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$here/bin:$PATH" UCX_MODULE_DIR="$here/lib/ucx"
exec python3 "$here/bench_symmer.py" --bin "$here/bin" --mpiexec "$here/bin/mpiexec.mpich" "$@"
SH
chmod +x "$out/bench.sh"
cat >"$out/apps.sh" <<'SH'
#!/usr/bin/env bash
# bench_apps.py from this bundle: its own MPICH and Open MPI, applications and libraries.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$here/bin:$here/ompi/bin:$PATH" UCX_MODULE_DIR="$here/lib/ucx"
export OPAL_PREFIX="$here/ompi" PMIX_INSTALL_PREFIX="$here/pmix2"
ompi_lib=$(find "$here/ompi" -name 'libmpi.so.40' -printf '%h' -quit 2>/dev/null || true)
export LD_LIBRARY_PATH="$here/lib${ompi_lib:+:$ompi_lib}:$here/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec python3 "$here/bench_apps.py" --bin "$here/bin" --mpiexec "$here/bin/mpiexec.mpich" \
  --ompi-mpiexec "$here/ompi/bin/orterun" "$@"
SH
chmod +x "$out/apps.sh"
cat >"$out/node.sh" <<'SH'
#!/usr/bin/env bash
# One device call on a node of 16 cores or more: the real applications (one and two noisy
# cores, balanced; 8x1 and the hybrid 4x2, 3 repetitions), the shim's overhead, and with
# SYMPTOMS=1 the symptom benchmarks, each into its own file of $OUT (apps.txt, overhead.txt,
# symptoms.txt). APPS_TIMEOUT, OVERHEAD_TIMEOUT, SYMPTOMS_TIMEOUT bound each (seconds).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${OUT:?OUT names the folder the results go to}"
echo "# cores: $(nproc); started $(date -u +%FT%TZ); $("$here/bin/symmer-run" --version)" \
  > "$OUT/apps.txt"
timeout "${APPS_TIMEOUT:-360}" "$here/apps.sh" --apps minife,lulesh --ranks 8 \
  --cases noisy1,noisy2,balanced --repeat 3 >> "$OUT/apps.txt" 2>&1
echo "# rc=$? at $SECONDS s" >> "$OUT/apps.txt"
PATH="$here/bin:$PATH" UCX_MODULE_DIR="$here/lib/ucx" timeout "${OVERHEAD_TIMEOUT:-150}" \
  "$here/bin/symmer-bench-overhead" --repeats 5 --mpiexec "$here/bin/mpiexec.mpich" \
  > "$OUT/overhead.txt" 2>&1
echo "# rc=$? at $SECONDS s" >> "$OUT/overhead.txt"
if [[ ${SYMPTOMS:-0} == 1 ]]; then
  timeout "${SYMPTOMS_TIMEOUT:-200}" "$here/bench.sh" --ranks 8 --repeat 3 \
    > "$OUT/symptoms.txt" 2>&1
  echo "# rc=$? at $SECONDS s" >> "$OUT/symptoms.txt"
fi
SH
chmod +x "$out/node.sh"
cat >"$out/overhead.sh" <<'SH'
#!/usr/bin/env bash
# The shim's overhead, RUNS times (default 3), each run symmer-bench-overhead --repeats REPEATS
# (default 5): this bundle's shim ("cur"), alternated with each other shim named in SHIMS
# (lib-<name>/libsymmer-pmpi.so, its RPATH set to $ORIGIN/../lib by patchelf), so that the
# node's drift falls on all alike. One JSON line a run on stdout:
#   {"run": R, "shim": NAME, "seconds": T, "bench": {...its last line...}}
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$here/bin:$PATH" UCX_MODULE_DIR="$here/lib/ucx"
echo "# cores $(nproc) $(date -u +%FT%TZ); $(grep -m1 'model name' /proc/cpuinfo)"
for ((r = 1; r <= ${RUNS:-3}; r++)); do
  for shim in cur ${SHIMS:-}; do
    lib=$here/lib/libsymmer-pmpi.so
    [[ $shim != cur ]] && lib=$here/lib-$shim/libsymmer-pmpi.so
    start=$SECONDS
    line=$(timeout 150 "$here/bin/symmer-bench-overhead" --repeats "${REPEATS:-5}" \
      --mpiexec "$here/bin/mpiexec.mpich" --shim "$lib" 2>/dev/null | tail -n 1)
    [[ $line == \{* ]] || line='{}'
    echo "{\"run\": $r, \"shim\": \"$shim\", \"seconds\": $((SECONDS - start)), \"bench\": $line}"
  done
done
SH
chmod +x "$out/overhead.sh"
echo "bundle: $out ($(du -sh "$out" | cut -f1)), $(ls "$out/lib" | wc -l) libraries"
