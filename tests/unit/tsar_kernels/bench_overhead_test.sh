#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tsar-bench-overhead, a few passes: its final JSON line carries every figure, each a positive
# number, and no more devices ran rows than the region has. No timing is asserted. Argument:
# build dir.
set -euo pipefail
"$1/bin/tsar-bench-overhead" --passes 10 --chunks 1000 | tail -n 1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
keys = ("pass_us", "pass_overhead_us", "pass_devices_ran", "pass_one_device_us", "omp_static_pass_us",
        "cores_pass_us", "cores_pass_omp_static_us", "cores_pass_work_us", "cores_pass_schedule_us",
        "cores_pass_over_omp_static", "chunk_dispatch_ns")
bad = [k for k in keys if not (isinstance(d.get(k), (int, float)) and d[k] > 0)]
assert not bad, ("missing or not positive", bad)
assert d["pass_devices_ran"] <= len(d["devices"]), (d["pass_devices_ran"], d["devices"])
print("tsar-bench-overhead: %d figures on %d devices" % (len(keys), len(d["devices"])))
'
