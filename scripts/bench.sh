#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's benchmarks, one subcommand each:
#   scripts/bench.sh symmer [--ranks N] [--benchmarks LIST] [--seconds S] [--repeat R]
#                           [--balanced-repeat R]
#       The symptom benchmarks (idleness, outofsync, locality, balanced) with a noisy core or a
#       bad initial mapping, each plain, under symmer-run and on the best static mapping, in
#       the same run, pinned the same at start, with the same work; repetitions interleave the
#       variants (balanced, the no-harm check: 5 by default): progress and a table on stderr,
#       one JSON line per benchmark on stdout (plain_s, symmer_s, oracle_s, speedup,
#       symmer_ratio with its spread, reaction_s, analyzer cost, ...).
#       Needs N cores (default 2 ranks); apps/mpi/symptoms/bench_symmer.py --help for more.
#   scripts/bench.sh apps [--apps LIST] [--ranks N] [--configs 8x1,4x2] [--repeat R] [--scale F]
#       Real MPI applications (vendored LULESH, miniFE, miniAMR; Debian's NWChem and LAMMPS;
#       HPCC on request) with one and two noisy cores and balanced, each plain, under
#       symmer-run --domain node and on the best static mapping, interleaved: one JSON line per
#       run, then per application, configuration and case a summary line (plain_s, symmer_s,
#       oracle_s, recovered, symmer_over_plain, moves, verified by the application itself).
#       Needs N cores (default 8 ranks); apps/mpi/bench_apps.py --help for more.
#   scripts/bench.sh daemon [--connections N] [--segments N] [--seconds S] [--requests N]
#       symmerd under one hostile user (needs root): N idle connections and N forged 1 GiB
#       sparse segments; one JSON line: the daemon's resident MiB before and at most, and
#       root's status times (median, p95, max ms). Goals: 64 MiB, 100 ms.
#   scripts/bench.sh tsar [--quick] [--gpu] [tsar-suite options]
#       TSAR's kernel suite against OpenMP static/dynamic/guided, oneTBB and StarPU
#       dmda/dmdas/lws in the same run: progress on stderr; a JSON line per kernel, the table
#       and a summary JSON line on stdout. --quick: CI-sized problems (a few minutes).
#       --gpu: TSAR on its default devices (the cores less one control core per GPU, plus the
#       GPUs through OpenMP offloading) and GPU-sized problems; the peers stay on the CPU.
#       Other options go to tsar-suite (build/bin/tsar-suite --help), e.g. --kernels gemm,cg.
# Recording (any subcommand): --record <part>/<question> --node <node> [--describe TEXT]
#   [--node-description TEXT] files stdout under docs/results/<part>/<question>/ as
#   <date>-<node>-<commit> (the commit the benchmark's program was built from) and updates
#   docs/results/README.md (scripts/results.py). Only from a committed build.
# Programs come from $SYMMER_BUILD_DIR when set (as is, e.g. from ctest), else from build/,
# which is configured and brought up to date first.
# Adding a benchmark: write a function cmd_<name> below and name its main program in
# program_<name> (its --version gives the recorded commit); the dispatch at the end finds it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
  sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  echo "subcommands:$(declare -F | awk '$3 ~ /^cmd_/ {sub(/^cmd_/, "", $3); printf " %s", $3}')"
}

# bin_dir TARGET...: prints the folder of the built programs, building the targets if needed.
bin_dir() {
  if [[ -n "${SYMMER_BUILD_DIR:-}" ]]; then
    echo "$SYMMER_BUILD_DIR/bin"
    return
  fi
  (
    cd "$root"
    [[ -f build/build.ninja ]] || cmake --preset release >/dev/null
    cmake --build --preset release --target "$@" >&2
  )
  echo "$root/build/bin"
}

program_symmer=symmer-run
cmd_symmer() {
  local bin
  bin="$(bin_dir symmer-idleness symmer-outofsync symmer-locality symmer-noise symmer-run \
    symmer-pmpi)"
  exec python3 "$root/apps/mpi/symptoms/bench_symmer.py" --bin "$bin" "$@"
}

program_apps=symmer-run
cmd_apps() {
  local bin targets=(lulesh2.0 miniFE.x miniAMR.x symmer-noise symmer-run symmerctl symmer-pmpi)
  # The Open MPI shim exists where Open MPI was found at configure time.
  grep -q 'symmer-pmpi-ompi' "$root/build/build.ninja" 2>/dev/null && targets+=(symmer-pmpi-ompi)
  bin="$(bin_dir "${targets[@]}")"
  exec python3 "$root/apps/mpi/bench_apps.py" --bin "$bin" "$@"
}

program_daemon=symmerd
cmd_daemon() {
  local bin
  bin="$(bin_dir symmerd segment_attack)"
  exec python3 "$root/apps/daemon/bench_hostile.py" --bin "$bin" --tests "$bin/../tests" "$@"
}

program_tsar=tsar-suite
cmd_tsar() {
  local scale="" gpu=0 args=()
  for a in "$@"; do
    case "$a" in
      --quick) scale=quick ;;
      --gpu) gpu=1 ;;
      *) args+=("$a") ;;
    esac
  done
  if ((gpu)); then
    args+=(--tsar-devices default)
    scale=${scale:-large}
  fi
  local bin
  bin="$(bin_dir tsar-suite)"
  exec "$bin/tsar-suite" --scale "${scale:-full}" "${args[@]}"
}

if (($# == 0)) || [[ "$1" == -h || "$1" == --help ]]; then
  usage
  exit 0
fi
if ! declare -F "cmd_$1" >/dev/null; then
  echo "bench.sh: no benchmark '$1'" >&2
  usage >&2
  exit 2
fi
name="$1"
shift
record=() args=()
while (($#)); do
  case "$1" in
    --record | --node | --describe | --node-description)
      (($# >= 2)) || { echo "bench.sh: $1 needs a value" >&2; exit 2; }
      record+=("$1" "$2")
      shift 2
      ;;
    *) args+=("$1"); shift ;;
  esac
done
if ((${#record[@]} == 0)); then
  "cmd_$name" "${args[@]}"
  exit
fi

# record_run: runs the benchmark with stdout kept, then files it with the build's commit.
question="" node="" describe=() command="scripts/bench.sh $name ${args[*]}"
for ((i = 0; i < ${#record[@]}; i += 2)); do
  case "${record[i]}" in
    --record) question="${record[i + 1]}" ;;
    --node) node="${record[i + 1]}" ;;
    *) describe+=("${record[i]}" "${record[i + 1]}") ;;
  esac
done
[[ -n "$question" && -n "$node" ]] ||
  { echo "bench.sh: recording needs both --record <part>/<question> and --node <node>" >&2; exit 2; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"cmd_$name" "${args[@]}" | tee "$out"
program_var="program_$name"
version="$("$(bin_dir "${!program_var}")/${!program_var}" --version)"
commit="$(sed -n 's/.*(commit \(.*\))$/\1/p' <<<"$version")"
python3 "$root/scripts/results.py" record "$question" --node "$node" --commit "$commit" \
  --command "$command" --input "$out" "${describe[@]}"
