#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compiles and runs every program of docs/tsar-porting.md.

A fenced block tagged ```c NAME.c or ```cpp NAME.cpp belongs to program NAME; a program's
blocks are joined in order. Every block outside the tsar-translate section must be tagged
(that section's blocks are checked against their kernels by tests/translate). Each program
must exit 0 (it checks its own result against a serial loop) under each device list given.

  check_porting_guide.py --guide GUIDE --cc CC --cxx CXX --lib DIR --work DIR -I DIR... \
      --devices "" --devices "cpu:0,omphost:0"
"""
import argparse
import os
import re
import subprocess
import sys

TRANSLATE = "## Keeping the OpenMP loop: tsar-translate"


def programs(text):
    """{name: source} in order of first appearance; raises on an untagged block."""
    start = text.index(TRANSLATE)
    end = text.find("\n## ", start + 1)
    outside = text[:start] + (text[end:] if end >= 0 else "")
    found = {}
    for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", outside, flags=re.S | re.M):
        info = m.group(1).split()
        if len(info) != 2 or info[0] not in ("c", "cpp") or not info[1].endswith("." + info[0]):
            raise SystemExit(f"FAIL a code block tagged '{m.group(1)}': expected 'c NAME.c' or "
                             "'cpp NAME.cpp', so the test compiles it")
        found[info[1]] = found.get(info[1], "") + m.group(2)
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guide", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--lib", required=True, help="the folder of libtsar")
    ap.add_argument("--work", required=True)
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--devices", action="append", default=[],
                    help="a TSAR_DEVICES value to run each program under ('' = the default)")
    args = ap.parse_args()
    with open(args.guide, encoding="utf-8") as f:
        found = programs(f.read())
    if not found:
        raise SystemExit(f"FAIL {args.guide}: no tagged code block")
    os.makedirs(args.work, exist_ok=True)
    failed = 0
    for name, source in found.items():
        path = os.path.join(args.work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        exe = path + ".bin"
        c = name.endswith(".c")
        cmd = [args.cc if c else args.cxx, "-std=c11" if c else "-std=c++20", "-O2", "-Wall",
               "-fopenmp", "-foffload=disable", path, "-o", exe, "-L" + args.lib, "-ltsar",
               "-Wl,-rpath," + args.lib, "-lm"]
        cmd[1:1] = ["-I" + d for d in args.includes]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0 or built.stderr.strip():
            print(f"FAIL {name}: does not compile cleanly\n{built.stderr}")
            failed += 1
            continue
        for devices in args.devices or [""]:
            env = dict(os.environ)
            env.pop("TSAR_DEVICES", None)
            if devices:
                env["TSAR_DEVICES"] = devices
            ran = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=240)
            where = f"TSAR_DEVICES={devices}" if devices else "the default devices"
            if ran.returncode != 0:
                print(f"FAIL {name} on {where}: exit {ran.returncode}\n{ran.stdout}{ran.stderr}")
                failed += 1
            else:
                print(f"ok   {name} on {where}: {ran.stdout.strip()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
