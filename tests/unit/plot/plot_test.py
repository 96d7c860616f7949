#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/plot.py on real inputs (ctest label unit).

    plot_test.py --src <source dir> --bin <build/bin> --fixtures <tests/fixtures/plot>

tsar:   tsar-suite runs a kernel on TSAR with TSAR_TRACE set (JSON lines and CSV); plot.py must
        draw the split, the timeline and the bytes from both, as PNG and SVG, and the split it
        reads must be the one the trace holds (iterations per device add up to n per pass).
suite:  plot.py draws the speedup picture from the same run's JSON lines.
symmer: plot.py reads a decision log of a real symmer-run (tests/fixtures/plot, see its
        README) into the placements that log describes: the ranks start where the evidence
        says and end where the completed moves put them.
Bad input (a missing region, a file that is not a trace) gives a message and a non-zero exit.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

try:
    import matplotlib  # noqa: F401  (plot.py is imported below)
except ImportError:  # Debian's matplotlib is /usr/bin/python3's; PATH may start elsewhere
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise


def check(cond, what):
    if not cond:
        print("FAIL: " + what, file=sys.stderr)
        sys.exit(1)


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 2000


def is_svg(path):
    with open(path) as f:
        return "<svg" in f.read(4000)


def plot(src, *args, ok=True):
    p = subprocess.run([sys.executable, os.path.join(src, "scripts", "plot.py"), *args],
                       capture_output=True, text=True, timeout=120)
    if ok:
        check(p.returncode == 0, "plot.py %s failed:\n%s%s" % (" ".join(args), p.stdout, p.stderr))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("plot", os.path.join(a.src, "scripts", "plot.py"))
    plotmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plotmod)

    with tempfile.TemporaryDirectory() as tmp:
        # A real TSAR run: jacobi (two loops: sweep and copy) on two CPU devices, traced.
        results = os.path.join(tmp, "suite.jsonl")
        for trace in ("trace.jsonl", "trace.csv"):
            env = dict(os.environ, TSAR_TRACE=os.path.join(tmp, trace))
            with open(results, "w") as out:
                p = subprocess.run([os.path.join(a.bin, "tsar-suite"), "--scale", "tiny",
                                    "--kernels", "jacobi", "--runtimes", "tsar,omp-static",
                                    "--cores", "0", "--tsar-devices", "cpu:0,cpu:0", "--reps", "2", "--warmup", "1", "--efficiency", "off"],
                                   stdout=out, stderr=subprocess.PIPE, text=True, env=env,
                                   timeout=120)
            check(p.returncode == 0, "tsar-suite failed: " + p.stderr)
            passes = plotmod.read_trace(os.path.join(tmp, trace))
            region, mine = plotmod.pick_region(passes, "jacobi.update")
            check(len(mine) >= 2, "%s: region %s has %d passes" % (trace, region, len(mine)))
            for q in mine:
                check(sum(d["iterations"] for d in q["devices"]) == q["n"],
                      "%s pass %d: iterations do not add up to n" % (trace, q["pass"]))
                check(len(q["devices"]) == 2, "%s: two devices expected" % trace)
            for fmt, valid in (("png", is_png), ("svg", is_svg)):
                outdir = os.path.join(tmp, "tsar-" + trace + "-" + fmt)
                printed = plot(a.src, "tsar", os.path.join(tmp, trace), "--out", outdir,
                               "--format", fmt, "--passes", "0:4",
                               "--region", "jacobi.update").stdout.split()
                names = sorted(os.path.basename(x) for x in printed)
                check(names == ["tsar-bytes." + fmt, "tsar-split." + fmt, "tsar-timeline." + fmt],
                      "tsar pictures: %s" % names)
                for x in printed:
                    check(valid(x), "%s is not a valid %s" % (x, fmt))
            p = plot(a.src, "tsar", os.path.join(tmp, trace), "--region", "no-such-region",
                     "--out", tmp, ok=False)
            check(p.returncode != 0 and "no region 'no-such-region'" in p.stderr,
                  "a missing region must be named: " + p.stderr)

        printed = plot(a.src, "suite", results, "--out", tmp).stdout.split()
        check(len(printed) == 1 and is_png(printed[0]), "suite picture: %s" % printed)

        # symmer: the fixture's placements, read back from the log itself (independently of
        # plot.py): first evidence of every rank, then each completed actuation's moves.
        log = os.path.join(a.fixtures, "symmer-decisions.jsonl")
        events = [json.loads(l) for l in open(log) if l.startswith("{")]
        moves = [m for e in events if e["event"] == "actuation" and e.get("completed")
                 for m in e["moves_in_effect"]]
        check(moves, "the fixture must hold at least one completed move")
        states = plotmod.placements(plotmod.read_events(log))
        final = states[-1][1]
        last_move = {m["rank"]: m["to_core"] for m in moves}
        for rank, core in last_move.items():
            check(final.get(rank) == core, "rank %d should end on core %d: %s" % (rank, core, final))
        check(len(set(final.values())) == len(final), "two ranks on one core at the end: %s" % final)
        printed = plot(a.src, "symmer", log, "--out", tmp, "--format", "svg").stdout.split()
        check(len(printed) == 1 and is_svg(printed[0]), "symmer picture: %s" % printed)

        # A participation trial's line among the passes (TSAR_TRACE) is not a pass.
        traced = os.path.join(tmp, "trace.jsonl")
        with_trial = os.path.join(tmp, "with-trial.jsonl")
        with open(traced) as f, open(with_trial, "w") as g:
            lines = f.readlines()
            g.writelines(lines[:1])
            g.write(json.dumps({"region": "x", "pass": 4, "trial": {"unit": "cuda:1", "way": "out",
                                "switched": True, "why": "faster"}}) + "\n")
            g.writelines(lines[1:])
        check(len(plotmod.read_trace(with_trial)) == len(plotmod.read_trace(traced)),
              "a trial's line was read as a pass")

        garbage = os.path.join(tmp, "garbage.jsonl")
        with open(garbage, "w") as f:
            f.write("not json\n")
        p = plot(a.src, "tsar", garbage, "--out", tmp, ok=False)
        check(p.returncode != 0 and "is not JSON" in p.stderr, "garbage trace: " + p.stderr)
        p = plot(a.src, "symmer", garbage, "--out", tmp, ok=False)
        check(p.returncode != 0 and "no decision-log events" in p.stderr,
              "garbage decision log: " + p.stderr)
    print("plot: tsar (json, csv; png, svg), suite and symmer pictures drawn and checked")


if __name__ == "__main__":
    main()
