#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs a build into a relocatable folder that runs on a GPU node with nothing but the NVIDIA
# driver (no compilers, no hwloc/libnuma/PAPI/MPI packages):
#
#   bundle/bin/     TSAR programs (tsar-bench-gpu, tsar-demo, ...) and hwloc's lstopo-no-graphics
#   bundle/tests/   the test binaries labelled gpu
#   bundle/lib/     libtsar and the project's libraries, and every shared library they need
#                   beyond glibc, libstdc++/libgcc and the driver (hwloc, udev, libgomp with its
#                   nvptx offloading plugin, the CUDA runtime...)
#   bundle/ctest/   CTestTestfile.cmake for those tests:  ctest --test-dir bundle/ctest -L gpu
#   bundle/scripts/ the device-run scripts of scripts/device/ (tsar_gpu_compare.sh)
#   bundle/base/    with --base-build: another commit's tsar-bench-gpu, tsar-bench-overhead and
#                   libtsar (base/bin, base/lib), the baseline of scripts/tsar_gpu_compare.sh
#   bundle/lib-base/ with --base-lib: a baseline libtsar.so.0 alone, swapped under the same
#                   programs (LD_LIBRARY_PATH=bundle/lib-base:bundle/lib) -- only where the two
#                   commits' tsar.h agree (scripts/device/build_base.sh builds either)
#
# Programs find lib/ through RUNPATH $ORIGIN/../lib, libraries each other through $ORIGIN, and
# libgomp its plugin (dlopened by name) through its own RUNPATH, so the folder can be copied
# anywhere. Debug information is stripped to keep it small.
#
# Usage: scripts/bundle.sh [--no-build] [--base-build DIR | --base-lib LIBTSAR]
#                          [BUILD_DIR [OUT_DIR]]        (defaults: build, bundle)
#   --no-build    pack what is built already (otherwise the build is brought up to date first)
#   --base-build  another commit's build folder to pack as base/ (its benchmarks and libtsar)
#   --base-lib    a libtsar.so.0 (of another commit) to pack as lib-base/libtsar.so.0
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build_first=1
base_lib=
base_build=
while [[ ${1:-} == --* ]]; do
  case $1 in
    --no-build) build_first=0; shift ;;
    --base-lib) base_lib=${2:?--base-lib needs a libtsar.so.0}; shift 2 ;;
    --base-build) base_build=${2:?--base-build needs a build folder}; shift 2 ;;
    *) echo "bundle: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -z $base_lib || -f $base_lib ]] || { echo "bundle: --base-lib $base_lib: no such file" >&2; exit 1; }
[[ -z $base_build || -x $base_build/bin/tsar-bench-gpu ]] ||
  { echo "bundle: --base-build $base_build has no bin/tsar-bench-gpu" >&2; exit 1; }
build=${1:-build}
out=${2:-bundle}

for tool in patchelf ldd strip python3 ctest; do
  command -v "$tool" >/dev/null ||
    { echo "bundle: '$tool' is missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }
done
[[ -f $build/CMakeCache.txt ]] ||
  { echo "bundle: $build is not a configured build (cmake --preset release)" >&2; exit 1; }
if ((build_first)); then cmake --build "$build"; fi

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests" "$out/ctest" "$out/scripts"
cp scripts/device/*.sh "$out/scripts/"

# The gpu-labelled tests as ctest knows them: name, command, environment, timeout.
tests_json=$(ctest --test-dir "$build" -N -L gpu --show-only=json-v1)

# Programs and test binaries: compiled programs only (tsar-translate, a Python tool that needs
# libclang, stays on the build machine).
is_elf() { [[ $(head -c 4 "$1" 2>/dev/null | tr -d '\0') == $'\x7fELF' ]]; }
programs=()
for p in "$build"/bin/tsar-*; do
  [[ -x $p && ! -d $p ]] && is_elf "$p" && programs+=("$p")
done
mapfile -t test_binaries < <(python3 -c '
import json, sys
seen = set()
for t in json.load(sys.stdin)["tests"]:
    cmd = t.get("command") or []
    if cmd and cmd[0] not in seen:
        seen.add(cmd[0]); print(cmd[0])' <<<"$tests_json")
if ((${#programs[@]})); then cp "${programs[@]}" "$out/bin/"; fi
# hwloc's lstopo, for the node's topology as hwloc sees it (XML for a test fixture).
lstopo=$(command -v lstopo-no-graphics || true)
if [[ -n $lstopo ]]; then cp -L "$lstopo" "$out/bin/"; fi
if ((${#test_binaries[@]})); then cp "${test_binaries[@]}" "$out/tests/"; fi

# Libraries: what ldd resolves for every program, test and project library, except the C
# library family, the C++ runtime (every Linux node has a recent one) and the driver.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libutil|libresolv|libstdc\+\+|libgcc_s|libcuda\.so|libnvidia-)'
copy_deps() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
    [[ $soname =~ $skip ]] && continue
    [[ -e $out/lib/$soname ]] || cp -L "$path" "$out/lib/$soname"
  done
}
for f in "$out"/bin/* "$out"/tests/*; do copy_deps "$f"; done
# libgomp loads its offloading plugin with dlopen: ship the plugin of the same GCC.
# (awk reads to the end: an early exit would kill the pipeline with SIGPIPE under pipefail)
gomp=$(for f in "$out"/bin/* "$out"/tests/*; do ldd "$f"; done |
       awk '$1 == "libgomp.so.1" && !found {print $3; found = 1}')
if [[ -n $gomp ]]; then
  plugin=$(dirname "$(readlink -f "$gomp")")/libgomp-plugin-nvptx.so.1
  if [[ -e $plugin ]]; then
    cp -L "$plugin" "$out/lib/"
    copy_deps "$out/lib/libgomp-plugin-nvptx.so.1"
  else
    echo "bundle: no libgomp-plugin-nvptx.so.1 beside $gomp: OpenMP target regions will run" \
         "on the host (install gcc-12-offload-nvptx)" >&2
  fi
fi
# Dependencies of the copied libraries themselves (ldd above already followed them).
for f in "$out"/lib/*; do copy_deps "$f"; done

# The baseline: its programs and libtsar, beside the other libraries in lib/ (the same
# dependencies).
if [[ -n $base_build ]]; then
  mkdir -p "$out/base/bin" "$out/base/lib"
  cp "$base_build/bin/tsar-bench-gpu" "$base_build/bin/tsar-bench-overhead" "$out/base/bin/"
  cp -L "$base_build/lib/libtsar.so.0" "$out/base/lib/"
  chmod u+w "$out"/base/bin/* "$out"/base/lib/*
  strip --strip-debug "$out"/base/bin/* "$out"/base/lib/* 2>/dev/null || true
  for f in "$out"/base/bin/*; do patchelf --set-rpath '$ORIGIN/../lib:$ORIGIN/../../lib' "$f"; done
  patchelf --set-rpath '$ORIGIN:$ORIGIN/../../lib' "$out/base/lib/libtsar.so.0"
  # What the baseline needs beyond lib/ (an older libtsar links libraries the new one does not,
  # libsymmer or the CUDA runtime): from its own build first, into base/lib.
  for f in "$out"/base/bin/* "$out"/base/lib/libtsar.so.0; do
    LD_LIBRARY_PATH=$base_build/lib:$out/lib ldd "$f" |
      awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
        [[ $soname =~ $skip || -e $out/lib/$soname || -e $out/base/lib/$soname ]] && continue
        cp -L "$path" "$out/base/lib/$soname"
        chmod u+w "$out/base/lib/$soname"
        strip --strip-debug "$out/base/lib/$soname" 2>/dev/null || true
        patchelf --set-rpath '$ORIGIN:$ORIGIN/../../lib' "$out/base/lib/$soname"
      done
  done
fi
if [[ -n $base_lib ]]; then
  mkdir -p "$out/lib-base"
  cp -L "$base_lib" "$out/lib-base/libtsar.so.0"
  chmod u+w "$out/lib-base/libtsar.so.0"
  strip --strip-debug "$out/lib-base/libtsar.so.0" 2>/dev/null || true
  patchelf --set-rpath '$ORIGIN/../lib' "$out/lib-base/libtsar.so.0"
fi

chmod u+w "$out"/bin/* "$out"/tests/* "$out"/lib/*
strip --strip-debug "$out"/bin/* "$out"/tests/* "$out"/lib/* 2>/dev/null || true
for f in "$out"/bin/* "$out"/tests/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$out"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done

# ctest for the gpu tests, with paths relative to the bundle.
python3 - "$out/ctest/CTestTestfile.cmake" <(printf '%s' "$tests_json") <<'PY'
import json, os, sys
tests = json.load(open(sys.argv[2]))["tests"]
def q(s):
    return '"' + str(s).replace('"', '\\"') + '"'
lines = ["# Generated by scripts/bundle.sh: the gpu tests of the build, run from the bundle.",
         "# Run: ctest --test-dir <bundle>/ctest -L gpu --output-on-failure"]
for t in tests:
    cmd = t.get("command") or []
    if not cmd:
        continue
    # ctest runs each test in this file's folder and finds relative programs from there.
    exe = "../tests/" + os.path.basename(cmd[0])
    lines.append("add_test(%s %s %s)" % (q(t["name"]), q(exe), " ".join(q(a) for a in cmd[1:])))
    props = []
    for p in t.get("properties", []):
        v = p["value"]
        if p["name"] in ("LABELS", "ENVIRONMENT"):
            props += [p["name"], q(";".join(v))]
        elif p["name"] in ("TIMEOUT", "SKIP_RETURN_CODE"):
            props += [p["name"], q(int(v))]
    lines.append("set_tests_properties(%s PROPERTIES %s)" % (q(t["name"]), " ".join(props)))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

echo "bundle: $out ($(du -sh "$out" | cut -f1)): $(ls "$out/bin" | wc -l) programs," \
     "$(ls "$out/tests" | wc -l) gpu test binaries, $(ls "$out/lib" | wc -l) libraries" \
     "${base_lib:+, baseline libtsar from $base_lib}${base_build:+, baseline from $base_build}"
