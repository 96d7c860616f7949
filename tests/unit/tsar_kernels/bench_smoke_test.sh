#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench.sh tsar --quick on three kernels (regular, imbalanced, overhead-sensitive):
# every runtime of this build must run each kernel and match the serial reference. No timing
# is asserted. Arguments: source dir, build dir.
set -euo pipefail
src="$1"
export SYMMER_BUILD_DIR="$2"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$src/scripts/bench.sh" tsar --quick --kernels gemm,corr,cg --reps 1 --warmup 0 \
  --starpu-calibration-runs 1 >"$out"
python3 - "$out" "$SYMMER_BUILD_DIR/bin/tsar-suite" <<'PY'
import json, subprocess, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
header, kernels, summary = lines[0], [l for l in lines if "kernel" in l], lines[-1]
listed = subprocess.run([sys.argv[2], "--list"], capture_output=True, text=True, check=True).stdout
runtimes = ["tsar"] + [l.split()[1] for l in listed.splitlines() if l.startswith("runtime ") and "tsar" not in l]
assert header["runtimes"] == runtimes, (header["runtimes"], runtimes)
assert [k["kernel"] for k in kernels] == ["gemm", "corr", "cg"], kernels
for k in kernels:
    for key in ("kernel", "correct", "tsar_s", "best_peer", "best_peer_s", "speedup_vs_best_peer", "efficiency"):
        assert key in k, (k["kernel"], key)
    assert sorted(k["correct_by_runtime"]) == sorted(runtimes), k["correct_by_runtime"]
    wrong = [r for r, ok in k["correct_by_runtime"].items() if not ok]
    assert not wrong, (k["kernel"], wrong, k.get("failures"))
    assert k["correct"] is True
    assert all(isinstance(t, float) and t > 0 for t in k["times_s"].values()), k["times_s"]
assert summary["bench"] == "tsar-suite" and summary["correct"] is True, summary
print("bench smoke: %d kernels x %d runtimes correct" % (len(kernels), len(runtimes)))
PY
